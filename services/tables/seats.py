"""How a table's seats are held: each taken seat by an occupant string ("bot:<level>", "player:<id>:<name>",
"botplayer:<id>:<name>" for a bot account, or "human:<name>"), and the Seat messages the clients see."""

from __future__ import annotations

from manaforge.v1.gateway_pb2 import Seat, SeatKind

# A seat keeps its newest MAX_SEAT_TOKENS live seat tokens: a new one (JoinTable's, RejoinTable's, a matched queue
# ticket's, the Events stream's) retires the oldest, in the same step (lua/issue_token.lua). Enough for a player's
# few clients at once; a token lost or leaked is retired by the player's next ones. Its holder is then refused with a
# message saying so, while the seat remembers the digests of its newest RETIRED_KEPT retired tokens.
MAX_SEAT_TOKENS = 4
RETIRED_KEPT = 8


def occupant_of(seat: Seat) -> str:
    """How the seats hash names a seat's occupant ("bot:<level>", "player:<id>:<name>" or "human:<name>")."""
    if seat.kind == SeatKind.SEAT_KIND_BOT:
        return f"bot:{seat.bot_level}"
    if seat.player_id:
        return f"{'botplayer' if seat.bot_account else 'player'}:{seat.player_id}:{seat.name}"
    return f"human:{seat.name}"


def occupant_for(player_id: str, name: str, bot_account: bool) -> str:
    """A registered player's (or bot account's) occupant string, or a guest's."""
    if not player_id:
        return f"human:{name}"
    return f"{'botplayer' if bot_account else 'player'}:{player_id}:{name}"


def is_players(occupant: str, player_id: str) -> bool:
    """Whether the seat is held by the registered player `player_id` (a person or a bot account)."""
    kind, _, rest = occupant.partition(":")
    return kind in ("player", "botplayer") and rest.partition(":")[0] == player_id


def seats_of(
    occupants: dict[int, str], count: int, away: list[bool] | None = None, only_taken: bool = False
) -> list[Seat]:
    """The seats of a table as its occupants hold them. Bots are told apart by number when there are several:
    "bot 1 (heuristic)", "bot 2 (heuristic)", in seat order (bots are seated when the table is made, so a bot's name
    never changes)."""
    bots = [seat for seat in range(count) if occupants.get(seat, "").startswith("bot:")]
    numbers = {seat: number for number, seat in enumerate(bots, start=1)} if len(bots) > 1 else {}
    return [
        _seat(seat, occupants.get(seat), bool(away and away[seat]), numbers.get(seat))
        for seat in range(count)
        if seat in occupants or not only_taken
    ]


def _seat(seat: int, occupant: str | None, away: bool = False, number: int | None = None) -> Seat:
    if occupant is None:
        return Seat(seat=seat, kind=SeatKind.SEAT_KIND_OPEN)
    kind, _, rest = occupant.partition(":")
    if kind == "bot":
        name = f"bot {number} ({rest})" if number else f"bot ({rest})"
        return Seat(seat=seat, kind=SeatKind.SEAT_KIND_BOT, name=name, bot_level=rest)
    if kind in ("player", "botplayer"):
        player_id, _, name = rest.partition(":")
        return Seat(
            seat=seat,
            kind=SeatKind.SEAT_KIND_HUMAN,
            name=name,
            player_id=player_id,
            away=away,
            bot_account=kind == "botplayer",
        )
    return Seat(seat=seat, kind=SeatKind.SEAT_KIND_HUMAN, name=rest, away=away)


def rated_as(occupant: str) -> str:
    """A seat's identity for ratings: a player's id, "bot:<level>", or "" for a guest."""
    kind, _, rest = occupant.partition(":")
    if kind in ("player", "botplayer"):
        return rest.partition(":")[0]
    return occupant if kind == "bot" else ""
