"""The SDK's rough edges, filed down (issue 52 item 7), against the real stack: `Client.serve(bot, accept=...)` takes
only the challenges `accept` takes; `challenge(name=...)` challenges a player by name, as the terminal does; a
decline reason arrives by name (`decline_reason`); `Credentials.load` takes a str."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import manaforge_sdk as mf
import pytest
from manaforge.v1 import gateway_pb2 as gw

from deploy.launcher import LOOPBACK_LIMITS, Stack

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def edge_stack() -> Iterator[Stack]:
    with Stack(gateways=1, response_timeout=1.0, settings=LOOPBACK_LIMITS) as running:
        yield running


def player(stack: Stack, prefix: str, bot: bool = False) -> mf.Client:
    client = mf.connect(stack.gateway_addresses[0])
    made = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=f"{prefix}_{uuid.uuid4().hex[:8]}"))
    client._use(mf.Credentials(made.player_id, made.secret_key, made.name))
    if bot:
        assert client.upgrade_to_bot().bot
    return client


def first(events: Iterator[gw.PlayerEvent], kind: str) -> Any:
    for event in events:
        if event.WhichOneof("kind") == kind:
            return getattr(event, kind)
    raise AssertionError(f"the stream ended before a {kind} event")


def test_serve_takes_what_accept_takes_and_a_challenge_goes_by_name(edge_stack: Stack) -> None:
    person, bot = player(edge_stack, "ann"), player(edge_stack, "robo", bot=True)
    assert bot.credentials is not None
    served: list[mf.Result] = []

    def only_cardbench(challenge: mf.ChallengeMessage) -> bool:
        return challenge.config.game == "cardbench"

    runner = threading.Thread(
        target=lambda: served.extend(bot.serve(lambda view, legal: legal[0][0], accept=only_cardbench, games=1)),
        daemon=True,
    )
    runner.start()
    events = person.events()
    refused = person.challenge(name=bot.credentials.name.upper(), game="manasurge", seats=2)
    assert refused.challenged_name == bot.credentials.name
    declined = first(events, "challenge_declined")
    assert declined.challenge_id == refused.challenge_id
    assert mf.decline_reason(declined) == "game"
    taken = person.challenge(name=bot.credentials.name, game="cardbench", seats=2, clock=30)
    started = first(events, "game_started")
    assert started.table_id and person.table(started.table_id).seats[1].name == bot.credentials.name
    person.play(started.table_id, started.seat_token, lambda view, legal: legal[-1][0])
    runner.join(60)
    assert not runner.is_alive() and [r.table_id for r in served] == [started.table_id]
    assert mf.decline_reason(taken) == ""


def test_a_challenge_names_one_player_and_a_game() -> None:
    client = mf.Client("127.0.0.1:1")
    with pytest.raises(ValueError, match="a game, and one player by id or by name"):
        client.challenge(game="cardbench")
    with pytest.raises(ValueError, match="a game, and one player by id or by name"):
        client.challenge("some-id", game="cardbench", name="ann")
    with pytest.raises(ValueError, match="a game, and one player by id or by name"):
        client.challenge(name="ann")
    client.close()


def test_credentials_load_takes_a_str_or_a_path(tmp_path: Path) -> None:
    saved = mf.Credentials("id", "key", "ann")
    saved.save(str(tmp_path / "a" / "ann.json"))
    assert mf.Credentials.load(str(tmp_path / "a" / "ann.json")) == saved
    assert mf.Credentials.load(tmp_path / "a" / "ann.json") == saved
    assert mf.Credentials.load(str(tmp_path / "none.json")) is None
