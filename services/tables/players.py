"""Players and their ratings: a player registers once (a plain name that looks like no other player's, no bot's and
no reserved word: names.py; a secret key stored hashed), owns the seats, tickets and tables they take, and is rated
per game and seat count with OpenSkill (Plackett-Luce) from validated games only, each game counted once. Every bot
level has a fixed published rating, so a game against bots rates fairly; bots' ratings never move.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from typing import Any

from manaforge.v1.gateway_pb2 import LeaderboardEntry, Player, Rating
from openskill.models import PlackettLuce
from redis.asyncio.cluster import RedisCluster

from engine_core.errors import InvalidConfigError
from services.tables import keys as k
from services.tables import names
from services.tables.errors import NotYoursError, SeatTokenError, TableNotFoundError, TableStateError
from services.tables.names import GUEST_NAME, LOOKS_VERSION, NameRefusedError, NameTakenError

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{2,23}$")
LOOKS_RECHECK = 60.0  # seconds between a process's checks that every registered name's looks are indexed
TABLES_BATCH = 200  # a player's tables looked at per round trip (UpgradeToBot)
MODEL = PlackettLuce()
# The published ratings of the bot levels (mu, sigma): fixed, measured with `make arena` (docs/players.md).
BOT_RATINGS = {"random": (12.0, 1.0), "heuristic": (25.0, 1.0), "ismcts": (29.0, 1.0)}


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def rate(teams: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) of each seat after a game where seat i finished at `ranks[i]` (1 best; ties share a rank)."""
    ratings = [[MODEL.create_rating([mu, sigma])] for mu, sigma in teams]
    rated = MODEL.rate(ratings, ranks=[float(rank) for rank in ranks])
    return [(team[0].mu, team[0].sigma) for team in rated]


class Players:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._known: dict[str, str] = {}  # player id -> key digest, once checked
        self._looks_checked = -LOOKS_RECHECK  # when this process last checked the looks index (monotonic)

    # ----- registration and identity ---------------------------------------------------------------------------

    async def register(self, name: str) -> Player:
        """A new player, under a name that looks like no other player's (claimed form by form, so two look-alikes
        registered at once cannot both pass), no bot's and no reserved word (NameRefusedError, NameTakenError)."""
        if not NAME.match(name):
            raise InvalidConfigError("player name", "3-24 letters, digits, '-' or '_', starting with a letter")
        names.check_registrable(name)
        await self._index_looks()
        forms = sorted(names.looks(name))
        if owner := await self._owner_of(name, forms):
            raise NameTakenError(f"player name: {name!r} is taken: it looks like {owner!r}, a registered player's")
        player_id = secrets.token_hex(8)
        key = secrets.token_urlsafe(24)
        claimed = [form for form in forms if await self.redis.hsetnx(k.name_looks(), form, player_id)]
        if len(claimed) < len(forms) or not await self.redis.hsetnx(k.player_names(), name.lower(), player_id):
            if claimed:
                await self.redis.hdel(k.name_looks(), *claimed)
            owner = await self._owner_of(name, forms) or name
            raise NameTakenError(f"player name: {name!r} is taken: it looks like {owner!r}, a registered player's")
        await self.redis.hset(
            f"mf:player:{player_id}", mapping={"name": name, "key": key_digest(key), "created": time.time()}
        )
        await self.redis.hincrby(k.name_looks_indexed(), "names", 1)
        return Player(player_id=player_id, name=name, secret_key=key)

    async def authenticate(self, player_id: str, key: str) -> str:
        """The player's name, if `key` is theirs."""
        stored = await self.redis.hmget(f"mf:player:{player_id}", ["name", "key"])
        if stored[0] is None or not hmac.compare_digest(stored[1].decode(), key_digest(key)):
            raise SeatTokenError("player: unknown player id or wrong key")
        return str(stored[0].decode())

    async def check_guest_name(self, name: str) -> None:
        """Refuse a guest's name that looks like a bot's or a reserved word (NameRefusedError: INVALID_ARGUMENT),
        or a registered player's (NameTakenError: ALREADY_EXISTS). One read of the looks index. The name of every
        unnamed guest is theirs whatever was registered (registration refuses its look-alikes; an earlier release
        did not)."""
        names.check_anyones(name)
        if name == GUEST_NAME:
            return
        await self._index_looks()
        if owner := await self._owner_of(name, sorted(names.looks(name))):
            raise NameTakenError(names.taken_message(name, owner))

    async def guest_refusal(self, name: str) -> str:
        """Why a guest may not play under `name`, naming the rule ("" when they may)."""
        try:
            await self.check_guest_name(name)
        except (NameRefusedError, NameTakenError) as refused:
            return str(refused)
        return ""

    async def name_of(self, player_id: str) -> str:
        """A registered player's own name: what their seats show, whatever name a request carries."""
        name = await self.redis.hget(f"mf:player:{player_id}", "name")
        if name is None:
            raise TableNotFoundError(f"unknown player: {player_id[:32]!r}")
        return str(name.decode())

    async def _owner_of(self, name: str, forms: list[str]) -> str:
        """The name of a registered player whose name looks like `name` (one of its `forms`, or the same name in
        any case: so a name registered without its looks is found too); "" when none does."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(k.name_looks(), forms)
        pipe.hget(k.player_names(), name.lower())
        looked, exact = await pipe.execute()
        owner = exact or next((found for found in looked if found is not None), None)
        if owner is None:
            return ""
        owner_name = await self.redis.hget(f"mf:player:{owner.decode()}", "name")
        return str(owner_name.decode()) if owner_name is not None else name  # one registering this moment

    async def _index_looks(self) -> None:
        """Index the looks of names registered without them (before this release, or by a process of the release
        before it during an upgrade), or with another LOOKS_VERSION. Checked at most once per LOOKS_RECHECK per
        process (two reads), and only then does it go through the names (each form written only where none is)."""
        now = time.monotonic()
        if now - self._looks_checked < LOOKS_RECHECK:
            return
        self._looks_checked = now
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(k.name_looks_indexed(), ["version", "names"])
        pipe.hlen(k.player_names())
        (version, counted), total = await pipe.execute()
        if version == LOOKS_VERSION.encode() and int(counted or 0) >= total:
            return
        async for _, player_id in self.redis.hscan_iter(k.player_names(), count=500):
            name = await self.redis.hget(f"mf:player:{player_id.decode()}", "name")
            if name is not None:
                for form in names.looks(name.decode()):
                    await self.redis.hsetnx(k.name_looks(), form, player_id)
        await self.redis.hset(k.name_looks_indexed(), mapping={"version": LOOKS_VERSION, "names": total})

    async def player_id_named(self, name: str) -> str:
        """The id of the registered player called `name` (any case)."""
        found = await self.redis.hget(k.player_names(), name.lower())
        if found is None:
            raise TableNotFoundError(f"unknown player: no registered player is called {name[:32]!r}")
        return str(found.decode())

    async def player(self, player_id: str) -> Player:
        name = await self.redis.hget(f"mf:player:{player_id}", "name")
        if name is None:
            raise TableNotFoundError(f"unknown player: {player_id[:32]!r}")
        player = Player(player_id=player_id, name=name.decode(), bot=await self.is_bot(player_id))
        for key in await self.redis.smembers(f"mf:player:{player_id}:rated"):
            game, seats = key.decode().split(":")
            player.ratings.append(await self.rating(player_id, game, int(seats)))
        return player

    # ----- bot accounts ----------------------------------------------------------------------------------------

    async def is_bot(self, player_id: str) -> bool:
        return bool(player_id) and await self.redis.hget(f"mf:player:{player_id}", "bot") == b"1"

    async def upgrade_to_bot(self, player_id: str) -> Player:
        """Make a player a bot account, for good (as Lichess does): only before any rated game, so a bot's rating
        never started among people's, and while the player sits at no unfinished table (its opponents sat down
        with a person; a game joined as a person would not count against the bot's game limit)."""
        if await self.is_bot(player_id):
            raise TableStateError("bot account: this player is a bot account already (an upgrade is for good)")
        if await self.redis.scard(f"mf:player:{player_id}:rated"):
            raise TableStateError("bot account: only a player with no rated game may become a bot account")
        if table_id := await self.unfinished_table(player_id):
            raise TableStateError(
                f"bot account: a player becomes a bot account only while seated at no unfinished table; table "
                f"{table_id} has not finished"
            )
        await self.redis.hset(f"mf:player:{player_id}", "bot", 1)
        return await self.player(player_id)

    async def unfinished_table(self, player_id: str) -> str:
        """A table the player sits at that has not finished (made, under way), newest first; "" when none."""
        key = f"mf:player:{player_id}:tables"
        start = 0
        while batch := [raw.decode() for raw in await self.redis.zrevrange(key, start, start + TABLES_BATCH - 1)]:
            pipe = self.redis.pipeline(transaction=False)
            for table_id in batch:
                pipe.zscore(k.live_tables(k.shard_of(table_id)), table_id)  # left when it finishes or is removed
            for table_id, score in zip(batch, await pipe.execute(), strict=True):
                if score is not None:
                    return str(table_id)
            start += TABLES_BATCH
        return ""

    async def require_bot(self, player_id: str, call: str) -> None:
        if not await self.is_bot(player_id):
            raise NotYoursError(f"bot account: {call} is for bot accounts only (UpgradeToBot)")

    # ----- tables ----------------------------------------------------------------------------------------------

    async def sat_at(self, player_id: str, table_id: str, created_at: float) -> None:
        await self.redis.zadd(f"mf:player:{player_id}:tables", {table_id: created_at})

    async def tables(self, player_id: str, before: float | None, count: int) -> list[tuple[str, float]]:
        top = f"({before}" if before is not None else "+inf"
        found = await self.redis.zrevrangebyscore(
            f"mf:player:{player_id}:tables", top, "-inf", start=0, num=count, withscores=True
        )
        return [(t.decode(), float(score)) for t, score in found]

    # ----- ratings ---------------------------------------------------------------------------------------------

    @staticmethod
    def _board(game: str, seats: int, bots: bool = False) -> str:
        """People's leaderboard, or the bot accounts' (`bots`)."""
        return f"mf:leaderboard:{'bots:' if bots else ''}{game}:{seats}"

    async def rating(self, player_id: str, game: str, seats: int) -> Rating:
        if player_id.startswith("bot:"):
            mu, sigma = BOT_RATINGS.get(player_id[4:], BOT_RATINGS["random"])
            return Rating(game=game, seats=seats, mu=mu, sigma=sigma, ordinal=ordinal(mu, sigma))
        mu, sigma, games = await self.redis.hmget(f"mf:player:{player_id}:rating:{game}:{seats}", ["mu", "sigma", "n"])
        if mu is None:
            default = MODEL.rating()
            return Rating(game=game, seats=seats, mu=default.mu, sigma=default.sigma, ordinal=default.ordinal())
        rank = await self.redis.zrevrank(self._board(game, seats, await self.is_bot(player_id)), player_id)
        mu, sigma = float(mu), float(sigma)
        mine = ordinal(mu, sigma)
        # the place on the leaderboard, which lists the bot levels among the players (after a player they tie with)
        bots_above = sum(ordinal(*BOT_RATINGS[level]) > mine for level in BOT_RATINGS)
        return Rating(
            game=game,
            seats=seats,
            mu=mu,
            sigma=sigma,
            ordinal=mine,
            games=int(games or 0),
            rank=rank + 1 + bots_above if rank is not None else 0,
        )

    async def rate_game(self, table_id: str, game: str, seats: list[str], ranks: list[int]) -> bool:
        """Rate a validated game once. `seats`: each seat's player id ("bot:<level>" for bots, "" for guests, who
        are not rated and play at the default rating). Returns whether it rated (False: already rated, or no
        registered player sat)."""
        players = [p for p in seats if p and not p.startswith("bot:")]
        if not players or not await self.redis.set(f"mf:rated:{table_id}", 1, nx=True, ex=40 * 24 * 3600):
            return False
        before = [await self.rating(p, game, len(seats)) if p else MODEL.rating() for p in seats]
        after = rate([(r.mu, r.sigma) for r in before], ranks)
        bots = {p for p in players if await self.is_bot(p)}
        # one step on a single Redis; on a cluster each player's keys are written on their own node
        pipe = self.redis.pipeline(transaction=not isinstance(self.redis, RedisCluster))
        for player_id, (mu, sigma) in zip(seats, after, strict=True):
            if not player_id or player_id.startswith("bot:"):
                continue  # guests are not rated; bots keep their published ratings
            key = f"mf:player:{player_id}:rating:{game}:{len(seats)}"
            pipe.hset(key, mapping={"mu": mu, "sigma": sigma})
            pipe.hincrby(key, "n", 1)
            pipe.sadd(f"mf:player:{player_id}:rated", f"{game}:{len(seats)}")
            pipe.zadd(self._board(game, len(seats), player_id in bots), {player_id: ordinal(mu, sigma)})
        await pipe.execute()
        return True

    async def leaderboard(self, game: str, seats: int, limit: int, bots: bool = False) -> list[LeaderboardEntry]:
        """Players (or bot accounts) by ordinal, with the bot levels' published ratings placed among them."""
        found = await self.redis.zrevrange(self._board(game, seats, bots), 0, limit - 1, withscores=True)
        entries = []
        for raw, _ in found:
            player_id = raw.decode()
            name = await self.redis.hget(f"mf:player:{player_id}", "name")
            rating = await self.rating(player_id, game, seats)
            entries.append(LeaderboardEntry(player_id=player_id, name=(name or b"?").decode(), rating=rating))
        for level in BOT_RATINGS:
            rating = await self.rating(f"bot:{level}", game, seats)
            entries.append(LeaderboardEntry(player_id=f"bot:{level}", name=f"bot ({level})", rating=rating))
        entries.sort(key=lambda e: -e.rating.ordinal)
        return entries[:limit]
