"""Challenges: a registered player invites another to a game (config, the other seats, a clock); the challenged
player accepts (the table is made, both seated) or declines with a reason. A challenge is one Redis key that expires
`ttl` seconds after it was made, answered or not: after that it is gone (NOT_FOUND). A bot account at its limit of
games under way declines at once, with reason BUSY. What happens is told to each side through their inbox (inbox.py).

What one player can make another hold is bounded, checked and counted in one atomic step (store/challenges.py):
- LIMITS: challenges open at once from one player, for one player, and from one player to another;
- a declined challenger waits COOLDOWN seconds before challenging the same player again, twice as long after each
  decline remembered (declines are forgotten a day after the last, or once a challenge is accepted), at most
  LONGEST_COOLDOWN; declined as "not this game" or "not this clock", it waits only to offer the same game again;
- a player refuses challenges from everyone, or for some games (their preferences); the challenger is told so."""

from __future__ import annotations

import math
import secrets
import time

from manaforge.v1.gateway_pb2 import (
    Challenge,
    ChallengePreferences,
    ChallengesFrom,
    ChallengeStatus,
    CreateChallengeRequest,
    DeclineReason,
    PlayerEvent,
    SeatRequest,
)

from engine_core import find_game, game_names
from engine_core.errors import InvalidConfigError
from services.tables.errors import NotYoursError, QuotaError, TableError, TableNotFoundError, TableStateError
from services.tables.inbox import Inbox
from services.tables.players import Players
from services.tables.seating import Seating
from services.tables.store.challenges import ChallengeLimits, ChallengeRoom, Preferences

LIMITS = ChallengeLimits(sent=20, received=20, between=1)  # challenges open at once
COOLDOWN = 60.0  # seconds a declined challenger waits before challenging the same player again (the first time)
LONGEST_COOLDOWN = 3600.0  # the most it waits, however often it was declined
MAX_TEXT = 200  # characters of a decline's text
PENDING = ChallengeStatus.CHALLENGE_STATUS_PENDING
ACCEPTED = ChallengeStatus.CHALLENGE_STATUS_ACCEPTED
DECLINED = ChallengeStatus.CHALLENGE_STATUS_DECLINED
BUSY = DeclineReason.DECLINE_REASON_BUSY
GAME = DeclineReason.DECLINE_REASON_GAME
TIME_CONTROL = DeclineReason.DECLINE_REASON_TIME_CONTROL
EVERYONE = ChallengesFrom.CHALLENGES_FROM_EVERYONE
NOBODY = ChallengesFrom.CHALLENGES_FROM_NOBODY


def _key(challenge_id: str) -> str:
    return f"mf:challenge:{challenge_id}"


class Challenges:
    def __init__(
        self,
        players: Players,
        seating: Seating,
        inbox: Inbox,
        ttl: float = 300.0,
        cooldown: float = COOLDOWN,
        longest_cooldown: float = LONGEST_COOLDOWN,
    ) -> None:
        self.players = players
        self.seating = seating
        self.inbox = inbox
        self.redis = players.redis
        self.store = seating.store
        self.ttl = ttl
        self.cooldown = cooldown
        self.longest_cooldown = longest_cooldown

    async def create(self, challenger_id: str, request: CreateChallengeRequest) -> Challenge:
        if not request.player_id and request.player_name:
            request.player_id = await self.players.player_id_named(request.player_name)
        if request.player_id == challenger_id:
            raise InvalidConfigError("challenge", "a player cannot challenge themselves")
        challenger = await self.players.player(challenger_id)
        challenged = await self.players.player(request.player_id)  # NOT_FOUND: unknown player
        config = find_game(request.config.game).check_config(request.config)
        if config.seats < 2:
            raise InvalidConfigError("challenge", "a challenge is for a table of at least 2 seats")
        if request.others and len(request.others) != config.seats - 2:
            raise InvalidConfigError("others", f"{config.seats - 2} seat requests: the seats after the two players'")
        clock = self.seating.time_control(request.time_control if request.HasField("time_control") else None)
        now = time.time()
        challenge_id = secrets.token_hex(8)
        room = await self.store.challenge_room(
            challenger_id, challenged.player_id, challenge_id, config.game, now, now + self.ttl, LIMITS
        )
        if room.status != "ok":
            raise _refusal(room, challenged.name, config.game)
        challenge = Challenge(
            challenge_id=challenge_id,
            challenger_id=challenger_id,
            challenger_name=challenger.name,
            challenger_bot=challenger.bot,
            challenged_id=challenged.player_id,
            challenged_name=challenged.name,
            config=config,
            others=list(request.others) or [SeatRequest() for _ in range(config.seats - 2)],
            time_control=clock,
            status=PENDING,
            expires_at=now + self.ttl,
        )
        if challenged.bot and await self.seating.is_busy(challenged.player_id):
            challenge.status, challenge.reason, challenge.reason_text = DECLINED, BUSY, self.seating.busy_message()
            await self._save(challenge, new=True)
            await self._forget(challenge)
            await self.inbox.tell(challenger_id, PlayerEvent(challenge_declined=challenge))
            return challenge
        await self._save(challenge, new=True)
        await self.inbox.tell(challenged.player_id, PlayerEvent(challenge_received=challenge))
        return challenge

    async def accept(self, player_id: str, challenge_id: str) -> Challenge:
        challenge = await self._answerable(player_id, challenge_id, "accept")
        if await self.players.is_bot(player_id) and await self.seating.is_busy(player_id):
            raise TableStateError(self.seating.busy_message())
        await self._decide(challenge)
        seats = [SeatRequest(), SeatRequest(), *challenge.others]
        try:
            table, _, _ = await self.seating.create_table(
                challenge.config, seats, listed=False, time_control=challenge.time_control
            )
            await self.seating.join_table(table.table_id, challenge.challenger_name, 0, challenge.challenger_id)
        except TableError as exc:  # the challenger (a bot account at its limit) could not be seated: it is over
            challenge.status, challenge.reason, challenge.reason_text = DECLINED, BUSY, str(exc)[:MAX_TEXT]
            await self._save(challenge)
            await self._forget(challenge)
            await self.inbox.tell(challenge.challenger_id, PlayerEvent(challenge_declined=challenge))
            raise
        challenge.status, challenge.table_id = ACCEPTED, table.table_id
        await self._save(challenge)
        await self._forget(challenge)
        await self.store.challenge_accepted(challenge.challenger_id, player_id)
        await self.inbox.tell(challenge.challenger_id, PlayerEvent(challenge_accepted=challenge))
        # the challenged player's seat, taken last, starts the game: the challenger's Events stream (pushed) tells
        # of the accepted challenge before its game_started
        await self.seating.join_table(table.table_id, challenge.challenged_name, 1, player_id)
        return challenge

    async def decline(self, player_id: str, challenge_id: str, reason: int, text: str) -> Challenge:
        if len(text) > MAX_TEXT:
            raise InvalidConfigError("text", f"at most {MAX_TEXT} characters")
        if reason not in DeclineReason.values():
            raise InvalidConfigError("reason", "one of DeclineReason's values")
        if reason == BUSY:
            await self.players.require_bot(player_id, "declining as busy")
        challenge = await self._answerable(player_id, challenge_id, "decline")
        await self._decide(challenge)
        challenge.status = DECLINED
        challenge.reason = reason or DeclineReason.DECLINE_REASON_GENERIC  # type: ignore[assignment]
        challenge.reason_text = "".join(ch for ch in text if ch.isprintable())
        await self._save(challenge)
        await self._forget(challenge)
        if reason != BUSY:  # a busy bot account is not turning the challenger away
            game = challenge.config.game if reason in (GAME, TIME_CONTROL) else ""  # not this one: ask another way
            await self.store.challenge_declined(
                challenge.challenger_id, player_id, game, time.time(), self.cooldown, self.longest_cooldown
            )
        await self.inbox.tell(challenge.challenger_id, PlayerEvent(challenge_declined=challenge))
        return challenge

    async def pending_for(self, player_id: str, direction: str = "in") -> list[Challenge]:
        """The challenges waiting for a player's answer ("in"), or from them for another's ("out"), oldest first."""
        found = []
        for challenge_id in await self.store.open_challenges(
            player_id, "received" if direction == "in" else "sent", time.time()
        ):
            stored = await self.redis.get(_key(challenge_id))
            if stored is not None:
                challenge = Challenge.FromString(stored)
                if challenge.status == PENDING:
                    found.append(challenge)
        return found

    # ----- storage ---------------------------------------------------------------------------------------------

    async def get(self, challenge_id: str) -> Challenge:
        stored = await self.redis.get(_key(challenge_id[:64]))
        if stored is None:
            raise TableNotFoundError(
                f"challenge: {challenge_id[:32]!r} is unknown or has expired (a challenge lasts {self.ttl:g} s)"
            )
        return Challenge.FromString(stored)

    async def _answerable(self, player_id: str, challenge_id: str, answer: str) -> Challenge:
        challenge = await self.get(challenge_id)
        if challenge.challenged_id != player_id:
            raise NotYoursError(f"challenge: only the challenged player may {answer} it")
        if challenge.status != PENDING:
            raise TableStateError(f"challenge: already {ChallengeStatus.Name(challenge.status)[17:].lower()}")
        return challenge

    async def _decide(self, challenge: Challenge) -> None:
        """The one answer a challenge gets: a second one (a race, a retry) is refused."""
        if not await self.redis.set(f"{_key(challenge.challenge_id)}:answered", 1, nx=True, ex=int(self.ttl) + 1):
            raise TableStateError("challenge: already answered")

    async def _save(self, challenge: Challenge, new: bool = False) -> None:
        data = challenge.SerializeToString()
        if new:
            await self.redis.set(_key(challenge.challenge_id), data, ex=max(1, round(self.ttl)))
        else:  # its expiry stays: a challenge is gone ttl seconds after it was made
            await self.redis.set(_key(challenge.challenge_id), data, keepttl=True, xx=True)

    async def _forget(self, challenge: Challenge) -> None:
        await self.store.challenge_closed(challenge.challenger_id, challenge.challenged_id, challenge.challenge_id)

    # ----- preferences -------------------------------------------------------------------------------------------

    async def preferences(self, player_id: str) -> ChallengePreferences:
        stored = await self.store.challenge_preferences(player_id)
        return ChallengePreferences(
            accept_from=NOBODY if stored.refuse_all else EVERYONE, refused_games=list(stored.refused_games)
        )

    async def set_preferences(self, player_id: str, preferences: ChallengePreferences) -> ChallengePreferences:
        """Replace what challenges the player refuses (each game named once, a game the platform has)."""
        if preferences.accept_from not in ChallengesFrom.values():
            raise InvalidConfigError("accept_from", "one of ChallengesFrom's values")
        known = game_names()
        unknown = [game for game in preferences.refused_games if game not in known]
        if unknown:
            raise InvalidConfigError(
                "refused_games", f"{unknown[0][:32]!r} is no game's name: one of {', '.join(known)}"
            )
        refused = tuple(sorted(set(preferences.refused_games)))
        await self.store.set_challenge_preferences(player_id, Preferences(preferences.accept_from == NOBODY, refused))
        return await self.preferences(player_id)


def _refusal(room: ChallengeRoom, name: str, game: str) -> TableError:
    """Why a challenge to `name` was refused, naming the rule."""
    if room.status == "refused":
        return TableStateError(f"{name} does not accept challenges" + (f" for {game}" if room.detail == "game" else ""))
    if room.status == "cooling":
        to = f" to {game}" if room.game_only else ""
        return QuotaError(
            f"challenge cool-down: {name} declined your last challenge{to}: you may challenge them{to} again in"
            f" {math.ceil(float(room.detail))} s"
        )
    limit = {
        "pair": f"a challenge from you to {name} is waiting already (at most {LIMITS.between} at a time)",
        "sent": f"{LIMITS.sent} challenges from you are waiting already (at most {LIMITS.sent} at a time)",
        "received": f"{LIMITS.received} challenges are waiting for {name} already (at most {LIMITS.received})",
    }
    return QuotaError(f"challenge limit: {limit[room.detail]}")
