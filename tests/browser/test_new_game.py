"""A new game is its schema, one folder and one registry line, and nothing else (docs/adding-a-game.md).

The proof: the project is copied (the files git knows), a throwaway game is added to the copy (tests/newgame: the
schema `pebbles.proto`, the folder `pebbles/`, and the registry's import and line), the copy's generated code and
browser client are built as `make proto web` builds them, and the copy's platform is started as `make run` starts it.
Then the game is played through the rules service, the gateway, the terminal client and the browser page. A client
that needed a line of its own for the game (a list of game schemas, of labels, of card names) fails here.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pexpect
import pytest
from manaforge.v1 import rules_pb2 as r
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.rules_pb2_grpc import RulesServiceStub
from playwright.sync_api import Browser, expect

from gateway.client import Client
from tests.browser.pages import create_table, decide

ROOT = Path(__file__).resolve().parents[2]
NEWGAME = ROOT / "tests" / "newgame"
WEB = Path("gateway") / "web"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def copy_of_the_project(to: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, to / name)


def add_the_game(project: Path) -> None:
    shutil.copy(NEWGAME / "pebbles.proto", project / "proto" / "manaforge" / "v1" / "games" / "pebbles.proto")
    shutil.copytree(NEWGAME / "pebbles", project / "engine_core" / "games" / "pebbles")
    registry = project / "engine_core" / "games" / "__init__.py"
    text = registry.read_text()
    imports = re.search(r"^from engine_core\.games import (.*)$", text, re.MULTILINE)
    assert imports, "the registry imports its games on one line"
    text = text.replace(imports.group(0), f"{imports.group(0)}, pebbles")
    text = text.replace("GAMES: list[Game[Any, Any]] = [\n", "GAMES: list[Game[Any, Any]] = [\n    pebbles.GAME,\n")
    registry.write_text(text)


def build(project: Path, env: dict[str, str]) -> None:
    """`make proto web` in the copy, with this checkout's virtualenv and npm packages (never installed again from
    here: make builds only the generated code and the page)."""
    (project / WEB / "node_modules").symlink_to(ROOT / WEB / "node_modules")
    subprocess.run(
        [
            "make",
            "--no-print-directory",
            "proto",
            "web",
            f"VENV={sys.prefix}",
            f"--old-file={sys.prefix}/.installed",
            f"--old-file={WEB}/node_modules/.package-lock.json",
        ],
        cwd=project,
        env=env,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str], str, str]]:
    """The copy with the new game, running: (its root, its environment, the gateway's address, the page's)."""
    project = tmp_path_factory.mktemp("project")
    copy_of_the_project(project)
    add_the_game(project)
    ports = {name: str(free_port()) for name in ("GATEWAY", "RULES", "WEB")}
    env = {
        **os.environ,
        "PYTHONPATH": f"{project / 'proto'}{os.pathsep}{project}",  # the copy's packages, not this checkout's
        "MANAFORGE_RUN_DIR": str(project / "run"),
        "MANAFORGE_BOT_DELAY": "0",
        **{f"MANAFORGE_{name}_PORT": port for name, port in ports.items()},
    }
    env.pop("REDIS_URL", None)
    build(project, env)
    log = (project / "run.log").open("w")
    running = subprocess.Popen(
        [sys.executable, "-m", "deploy.launcher", "run"], cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 90
        while "Manaforge is running." not in (project / "run.log").read_text():
            assert running.poll() is None, (project / "run.log").read_text()
            assert time.monotonic() < deadline, (project / "run.log").read_text()
            time.sleep(0.2)
        yield project, env, f"127.0.0.1:{ports['GATEWAY']}", f"127.0.0.1:{ports['WEB']}"
    finally:
        running.terminate()
        running.wait(30)
        log.close()


def test_a_new_game_is_played_through_the_rules_service_and_the_gateway(
    platform: tuple[Path, dict[str, str], str, str],
) -> None:
    """This checkout's clients know nothing of pebbles: its states and actions pass through them as Any."""
    _, env, gateway, _ = platform
    with grpc.insecure_channel(f"127.0.0.1:{env['MANAFORGE_RULES_PORT']}") as channel:
        rules = RulesServiceStub(channel)
        assert "pebbles" in [g.name for g in rules.ListGames(r.ListGamesRequest()).games]
        state = rules.NewGame(r.NewGameRequest(config=GameConfig(game="pebbles", seats=2), seed=1)).state
        texts = []
        for turn in range(7):
            legal = rules.LegalActions(r.LegalActionsRequest(state=state, seat=turn % 2)).actions
            texts.append([a.text for a in legal])
            state = rules.Apply(r.ApplyRequest(state=state, seat=turn % 2, action=legal[0].action)).state
            if rules.GetOutcome(r.GetOutcomeRequest(state=state)).finished:
                break
        assert texts[0] == ["take 1 pebble", "take 2 pebbles"]
        assert rules.GetOutcome(r.GetOutcomeRequest(state=state)).reason == "seat 0 took the last pebble"
    with Client(gateway) as client:
        info = next(g for g in client.games() if g.name == "pebbles")
        assert "Whoever takes the last pebble wins" in info.how_to_play
        made = client.create_table("pebbles", 2, bots={1: "random"}, player_name="ann")
        table_id, token = made.table.table_id, made.seat_token
        view = client.view(table_id, token)
        deadline = time.monotonic() + 60
        while not view.outcome.finished:
            assert time.monotonic() < deadline, view
            if view.legal_actions:
                client.submit(table_id, token, view.legal_actions[0].action, expected_version=view.version)
            time.sleep(0.05)
            view = client.view(table_id, token)
        assert re.fullmatch("seat [01] took the last pebble", view.outcome.reason)
        assert client.wait_finished(table_id).replay_verdict.startswith("valid"), client.table(table_id)


def test_a_new_game_is_played_in_the_terminal(platform: tuple[Path, dict[str, str], str, str], tmp_path: Path) -> None:
    project, env, gateway, _ = platform
    child = pexpect.spawn(
        sys.executable,
        [
            "-c",
            "from gateway.cli import main; main()",
            "--gateway",
            gateway,
            "--name",
            "bea",
            "play",
            "pebbles",
            "--seats",
            "2",
        ],
        cwd=str(project),
        env={**env, "MANAFORGE_HOME": str(tmp_path), "TERM": "dumb"},
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
    )
    child.expect("pebbles in the pile")  # the game's own text of the table
    while child.expect([r"your move> ", r"(You won|You lost)[^\r\n]*\."]) == 0:
        assert re.search(r"1\. take 1 pebble\b", str(child.before)), child.before
        child.sendline("1")
    child.expect(pexpect.EOF)


def test_a_new_game_is_played_on_the_page(platform: tuple[Path, dict[str, str], str, str], browser: Browser) -> None:
    _, _, _, web = platform
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"http://{web}/")
    create_table(page, "pebbles", 2)
    expect(page.get_by_role("button", name="take 1 pebble", exact=True)).to_be_visible()
    while decide(page):
        pass
    expect(page.locator(".result")).to_contain_text(re.compile("You (won|lost)"))
    context.close()
