"""Challenges: a registered player invites another to a game (config, the other seats, a clock); the challenged
player accepts (the table is made, both seated) or declines with a reason. A challenge is one Redis key that expires
`ttl` seconds after it was made, answered or not: after that it is gone (NOT_FOUND). Each player has at most
MAX_PENDING challenges waiting from them and MAX_PENDING waiting for them. A bot account at its limit of games
under way declines at once, with reason BUSY. What happens is told to each side through their inbox (inbox.py)."""

from __future__ import annotations

import secrets
import time

from manaforge.v1.gateway_pb2 import (
    Challenge,
    ChallengeStatus,
    CreateChallengeRequest,
    DeclineReason,
    PlayerEvent,
    SeatRequest,
)

from engine_core import find_game
from engine_core.errors import InvalidConfigError
from services.tables.errors import NotYoursError, QuotaError, TableError, TableNotFoundError, TableStateError
from services.tables.inbox import Inbox
from services.tables.players import Players
from services.tables.seating import Seating

MAX_PENDING = 20  # challenges waiting from one player, and for one player
MAX_TEXT = 200  # characters of a decline's text
PENDING = ChallengeStatus.CHALLENGE_STATUS_PENDING
ACCEPTED = ChallengeStatus.CHALLENGE_STATUS_ACCEPTED
DECLINED = ChallengeStatus.CHALLENGE_STATUS_DECLINED
BUSY = DeclineReason.DECLINE_REASON_BUSY


def _key(challenge_id: str) -> str:
    return f"mf:challenge:{challenge_id}"


def _waiting(player_id: str, direction: str) -> str:
    """The challenges waiting from ("out") or for ("in") a player: challenge id -> expiry time."""
    return f"mf:player:{player_id}:challenges:{direction}"


class Challenges:
    def __init__(self, players: Players, seating: Seating, inbox: Inbox, ttl: float = 300.0) -> None:
        self.players = players
        self.seating = seating
        self.inbox = inbox
        self.redis = players.redis
        self.ttl = ttl

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
        await self._room(challenger_id, "out", "from you", now)
        await self._room(request.player_id, "in", f"for {challenged.name}", now)
        challenge = Challenge(
            challenge_id=secrets.token_hex(8),
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
            await self.inbox.tell(challenger_id, PlayerEvent(challenge_declined=challenge))
            return challenge
        await self._save(challenge, new=True)
        for player_id, direction in ((challenger_id, "out"), (challenged.player_id, "in")):
            await self.redis.zadd(_waiting(player_id, direction), {challenge.challenge_id: challenge.expires_at})
            await self.redis.expire(_waiting(player_id, direction), int(self.ttl) + 1)
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
            for seat, (seated_id, name) in enumerate(
                [(challenge.challenger_id, challenge.challenger_name), (player_id, challenge.challenged_name)]
            ):
                await self.seating.join_table(table.table_id, name, seat, seated_id)
        except TableError as exc:  # the challenger (a bot account at its limit) could not be seated: it is over
            challenge.status, challenge.reason, challenge.reason_text = DECLINED, BUSY, str(exc)[:MAX_TEXT]
            await self._save(challenge)
            await self._forget(challenge)
            await self.inbox.tell(challenge.challenger_id, PlayerEvent(challenge_declined=challenge))
            raise
        challenge.status, challenge.table_id = ACCEPTED, table.table_id
        await self._save(challenge)
        await self._forget(challenge)
        await self.inbox.tell(challenge.challenger_id, PlayerEvent(challenge_accepted=challenge))
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
        await self.inbox.tell(challenge.challenger_id, PlayerEvent(challenge_declined=challenge))
        return challenge

    async def pending_for(self, player_id: str, direction: str = "in") -> list[Challenge]:
        """The challenges waiting for a player's answer ("in"), or from them for another's ("out"), oldest first."""
        found = []
        for raw in await self.redis.zrangebyscore(_waiting(player_id, direction), time.time(), "+inf"):
            stored = await self.redis.get(_key(raw.decode()))
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
        await self.redis.zrem(_waiting(challenge.challenger_id, "out"), challenge.challenge_id)
        await self.redis.zrem(_waiting(challenge.challenged_id, "in"), challenge.challenge_id)

    async def _room(self, player_id: str, direction: str, whom: str, now: float) -> None:
        key = _waiting(player_id, direction)
        await self.redis.zremrangebyscore(key, "-inf", now)
        if await self.redis.zcard(key) >= MAX_PENDING:
            raise QuotaError(f"challenge limit: {MAX_PENDING} challenges are waiting {whom} already")
