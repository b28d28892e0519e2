"""What limits challenges: the open challenges of each player and of each pair of players, the cool-down of a
declined challenger, and each player's challenge preferences. Every key shares the challenges' hash tag (keys.py),
so a new challenge is checked and counted in one script (lua/challenge_room.lua) and the rest are one-slot batches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.tables import keys as k
from services.tables.store.base import StoreBase

STRIKES_KEPT = 24 * 3600.0  # seconds a pair's declines are remembered after the last one


@dataclass(frozen=True)
class ChallengeLimits:
    """The most challenges open at once: from one player, for one player, and from one player to another."""

    sent: int
    received: int
    between: int


@dataclass(frozen=True)
class ChallengeRoom:
    """Whether a new challenge was counted: "ok", or why not: "refused" ("all" or "game"), "cooling" (the seconds
    left; `game_only`: a cool-down for this game alone) or "full" (which limit: "pair", "sent", "received")."""

    status: str
    detail: str = ""
    game_only: bool = False


@dataclass(frozen=True)
class Preferences:
    """What challenges a player refuses: all of them, or those for some games."""

    refuse_all: bool = False
    refused_games: tuple[str, ...] = ()


def _open(challenger_id: str, challenged_id: str) -> list[str]:
    return [
        k.challenges_open(challenger_id, "sent"),
        k.challenges_open(challenged_id, "received"),
        k.challenges_between(challenger_id, challenged_id),
    ]


class ChallengeStore(StoreBase):
    async def challenge_room(
        self,
        challenger_id: str,
        challenged_id: str,
        challenge_id: str,
        game: str,
        now: float,
        expires_at: float,
        limits: ChallengeLimits,
    ) -> ChallengeRoom:
        """Count a new challenge open until `expires_at` against every limit, unless one refuses it (nothing
        changes then)."""
        keys = [
            *_open(challenger_id, challenged_id),
            k.challenge_cooldown(challenger_id, challenged_id),
            k.challenge_preferences(challenged_id),
        ]
        args: list[Any] = [challenge_id, repr(now), repr(expires_at), game, limits.sent, limits.received]
        args += [limits.between, max(1, int(expires_at - now) + 1)]
        status, *detail = [part.decode() for part in await self._script(self._challenge_room, keys=keys, args=args)]
        return ChallengeRoom(status, detail[0] if detail else "", detail[1:] == ["game"])

    async def challenge_closed(self, challenger_id: str, challenged_id: str, challenge_id: str) -> None:
        """An answered challenge is open no longer."""
        batch = self._batch()
        for key in _open(challenger_id, challenged_id):
            batch.zrem(key, challenge_id)
        await batch.execute()

    async def open_challenges(self, player_id: str, direction: str, now: float) -> list[str]:
        """The ids of the open challenges from ("sent") or for ("received") a player, oldest first."""
        found = await self.redis.zrangebyscore(k.challenges_open(player_id, direction), now, "+inf")
        return [raw.decode() for raw in found]

    async def challenge_declined(
        self, challenger_id: str, challenged_id: str, game: str, now: float, first: float, longest: float
    ) -> float:
        """One more decline of the challenger by the challenged player: the seconds the challenger waits now (for
        one game, or for every game when `game` is ""), `first` at the first decline remembered, twice as long at
        each one after, at most `longest`."""
        key = k.challenge_cooldown(challenger_id, challenged_id)
        strikes = int(await self.redis.hincrby(key, "strikes", 1))
        wait = min(longest, first * 2.0 ** min(strikes - 1, 32))
        batch = self._batch()
        batch.hset(key, f"until:{game}" if game else "until", repr(now + wait))
        batch.expire(key, int(max(STRIKES_KEPT, wait)) + 1)
        await batch.execute()
        return wait

    async def challenge_accepted(self, challenger_id: str, challenged_id: str) -> None:
        """Declines before an accepted challenge are forgotten."""
        await self.redis.delete(k.challenge_cooldown(challenger_id, challenged_id))

    async def challenge_preferences(self, player_id: str) -> Preferences:
        stored = await self.redis.hkeys(k.challenge_preferences(player_id))
        fields = sorted(field.decode() for field in stored)
        games = tuple(field.removeprefix("refuse:") for field in fields if field.startswith("refuse:"))
        return Preferences("refuse_all" in fields, games)

    async def set_challenge_preferences(self, player_id: str, preferences: Preferences) -> None:
        key = k.challenge_preferences(player_id)
        fields = {f"refuse:{game}": 1 for game in preferences.refused_games}
        if preferences.refuse_all:
            fields["refuse_all"] = 1
        batch = self._batch()
        batch.delete(key)
        if fields:
            batch.hset(key, mapping=fields)
        await batch.execute()
