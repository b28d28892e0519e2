"""The SDK's rough edges, filed down (issue 52 item 7), against the real stack: `Client.serve(bot, accept=...)` takes
only the challenges `accept` takes; `challenge(name=...)` challenges a player by name, as the terminal does; a
decline reason arrives by name (`decline_reason`); `Credentials.load` takes a str; a bot account runs from a config
file whose filters take and refuse challenges (manaforge_sdk.config)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import manaforge_sdk as mf
import manaforge_sdk.config as mf_config
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


def _challenge(
    game: str = "cardbench", seats: int = 2, clock: float = 0.0, name: str = "Ann", bot: bool = False
) -> Any:
    made = gw.Challenge(challenger_name=name, challenger_bot=bot)
    made.config.game, made.config.seats = game, seats
    made.time_control.decision_seconds = clock
    return made


def test_a_runner_configs_filters_take_and_refuse_challenges(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text(
        'name = "robo"\nbot = "examples.first_bot:bot"\nmax_games = 2\n'
        "[accept]\n"
        'games = ["cardbench", "manasurge"]\nseats = [2]\nclock = [5, 60]\nno_clock = false\n'
        'from = "people"\nblocked = ["Spammer"]\n'
    )
    config = mf_config.load(str(path))
    assert (config.name, config.max_games) == ("robo", 2)
    accept = config.accept
    assert accept(_challenge(clock=10))
    assert accept.refusal(_challenge(game="magicka", clock=10)) == "not magicka"
    assert accept.refusal(_challenge(seats=3, clock=10)) == "not at 3 seats"
    assert accept.refusal(_challenge(clock=2)) == "not a clock of 2 s"
    assert accept.refusal(_challenge()) == "not without a clock"
    assert accept.refusal(_challenge(clock=10, bot=True)) == "not from bot accounts"
    assert accept.refusal(_challenge(clock=10, name="spammer")) == "not from spammer"
    assert mf_config.parse({"name": "robo"}).accept(_challenge(game="magicka", seats=5, bot=True))  # no filters


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "robo", "max_game": 2}, "unknown key 'max_game'"),
        ({"name": "robo", "accept": {"game": ["cardbench"]}}, r"\[accept\]: unknown key 'game'"),
        ({"name": "robo", "accept": {"clock": [60, 5]}}, "clock must be"),
        ({"name": "robo", "accept": {"from": "friends"}}, "from must be one of everyone, people, bots"),
        ({"name": "", "accept": {}}, "name must be a non-empty string"),
        ({"name": "robo", "max_games": 0}, "max_games must be a whole number of at least 1"),
    ],
)
def test_a_runner_config_names_what_it_cannot_use(data: dict[str, Any], message: str) -> None:
    with pytest.raises(mf_config.ConfigError, match=message):
        mf_config.parse(data)


def test_a_configured_bot_account_serves_what_its_filters_take(
    edge_stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MANAFORGE_HOME", str(tmp_path))
    name = f"robo_{uuid.uuid4().hex[:8]}"
    config = mf_config.parse(
        {"name": name, "gateway": edge_stack.gateway_addresses[0], "accept": {"games": ["cardbench"]}}
    )
    served: list[mf.Result] = []
    runner = threading.Thread(
        target=lambda: served.extend(mf_config.run(config, lambda view, legal: legal[0][0], games=1)), daemon=True
    )
    runner.start()
    person = player(edge_stack, "ann")
    events = person.events()
    deadline = 30.0
    while True:  # the runner registers the name first
        try:
            refused = person.challenge(name=name, game="manasurge")
            break
        except mf.ManaforgeError:
            deadline -= 0.2
            assert deadline > 0, "the configured bot account never appeared"
            threading.Event().wait(0.2)
    assert mf.decline_reason(first(events, "challenge_declined")) == "game"
    assert refused.challenged_name == name
    person.challenge(name=name, game="cardbench", clock=30)
    started = first(events, "game_started")
    person.play(started.table_id, started.seat_token, lambda view, legal: legal[-1][0])
    runner.join(60)
    assert [r.table_id for r in served] == [started.table_id]
