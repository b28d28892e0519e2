"""Every game of the platform, at its fewest seats and at more (four, or three for the longest; its most when
fewer), played through the SDK's bot runner against the platform's random bots: the SDK takes every decision of its
seat itself. A decision the platform's stand-in had to take for it (the seat's clock ran out, or a response window's
timer passed for it) is in the game's log under the server's id, `clock:<version>` or `timeout:<version>` (the log
is published once the game is over), and fails the test; so does a game still under way after GAME_TIME seconds.

A stack of its own: a response window waits RESPONSE_TIMEOUT seconds and a turn CLOCK seconds, long enough for a
slow machine's bot (the SDK answers within milliseconds of an update), short enough that a missed decision shows
within seconds. Games with a length option are played short."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import manaforge_sdk as mf
import pytest

from deploy.launcher import LOOPBACK_LIMITS, Stack
from engine_core.registry import GAMES

CLOCK = 5.0  # seconds a turn waits for the SDK's bot before the stand-in decides
RESPONSE_TIMEOUT = 5.0  # seconds a response window waits before it passes for the seat
GAME_TIME = 90.0  # a game played well ends within seconds; this bounds one that is not
STAND_IN = ("clock:", "timeout:")  # the server's ids of the decisions made for a seat
SHORT = {"mana_burn": {"turn_limit": "15"}, "blueprints": {"round_limit": "20"}, "magicka": {"round_limit": "50"}}
# More seats play longer, not differently for the SDK's seat: four at most, and three for the games whose random
# bots play hundreds of moves more at four (a 15-round MANA BURN game: ~230 moves at two seats, ~800 at four).
MOST_SEATS = 4
LONG = {"mana_burn": 3, "magicka": 3}
CASES = [
    pytest.param(game.info.name, seats, id=f"{game.info.name}-{seats}")
    for game in GAMES
    for seats in sorted({game.info.min_seats, min(game.info.max_seats, LONG.get(game.info.name, MOST_SEATS))})
]
pytestmark = pytest.mark.timeout(150)


@pytest.fixture(scope="module")
def turn_stack() -> Iterator[Stack]:
    with Stack(gateways=1, response_timeout=RESPONSE_TIMEOUT, settings=LOOPBACK_LIMITS) as running:
        yield running


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_the_sdk_takes_every_decision_of_its_seat(turn_stack: Stack, game: str, seats: int) -> None:
    choices = random.Random(f"{game}-{seats}")
    asked = 0

    def bot(view: mf.View, legal_actions: mf.LegalActions) -> mf.Action:
        nonlocal asked
        asked += 1
        return choices.choice(legal_actions)[0]

    results: list[mf.Result] = []
    errors: list[BaseException] = []
    with mf.connect(turn_stack.gateway_addresses[0]) as client:
        seat = client.create_table(
            game,
            seats,
            {i: "random" for i in range(1, seats)},
            options=SHORT.get(game),
            name="every game (guest)",
            clock=CLOCK,
        )

        def play() -> None:
            try:
                results.append(client.play(seat.table_id, seat.token, bot))
            except BaseException as error:  # shown by the test, not lost on the thread
                errors.append(error)

        player = threading.Thread(target=play, daemon=True)
        player.start()
        player.join(GAME_TIME)
        table = client.table(seat.table_id)
        assert table.outcome.finished, (
            f"{game} at {seats} seats still under way after {GAME_TIME:g} s: version {table.version}, the SDK's bot"
            f" asked {asked} times, the seat away: {table.seats[seat.seat].away}"
        )
        player.join(5.0)
        assert not errors, errors
        ours = [a for a in client.log(seat.table_id).actions if a.seat == seat.seat]  # once the game is over
    stood_in = [a.client_action_id for a in ours if a.client_action_id.startswith(STAND_IN)]
    assert not stood_in, f"the stand-in decided for the SDK's seat: {stood_in} of {len(ours)} decisions"
    (result,) = results
    assert result.outcome.finished
    # every decision of the seat was the SDK's: the bot was asked for each, and each landed once, under its id
    assert [a.client_action_id for a in ours] == result.moves
    assert asked == len(result.moves) > 0
