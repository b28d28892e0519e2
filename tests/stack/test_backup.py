"""Backup and restore (docs/operations.md): a running stack's game data saved with `python -m deploy.backup save`,
the stack stopped, a new one started from `restore`: every game under way goes on from where it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deploy.launcher import LOOPBACK_LIMITS, ROOT, Stack
from gateway.client import Client
from tests.stack.helpers import first_legal

MOVES_BEFORE = 12  # moves each game has made when the backup is taken (a cardbench game takes 100)


def stack_on(redis_dir: Path) -> Stack:
    """A stack whose Redis keeps its data in `redis_dir` (as `make run`'s does)."""
    return Stack(
        gateways=1, worker_concurrency=2, response_timeout=30.0, settings=LOOPBACK_LIMITS, redis_dir=str(redis_dir)
    )


def backup(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "deploy.backup", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def move(client: Client, table_id: str, tokens: list[str]) -> list[tuple[int, str]]:
    """One move by every human seat that has one now: (version acknowledged, client action id)."""
    acknowledged = []
    for i, token in enumerate(tokens):
        if client.view(table_id, token).legal_actions:
            action_id = f"{table_id}-{i}-{client.table(table_id).version}"
            done = client.submit(table_id, token, first_legal(client, table_id, token), action_id)
            acknowledged.append((done.version, action_id))
    return acknowledged


def test_games_under_way_go_on_after_a_backup_is_restored_into_a_new_stack(tmp_path: Path) -> None:
    games: dict[str, list[str]] = {}  # table id -> its human seats' tokens
    acknowledged: dict[str, list[tuple[int, str]]] = {}
    with stack_on(tmp_path / "old") as old, Client(old.gateway_addresses[0]) as client:
        for _ in range(3):  # two people
            created = client.create_table("cardbench", 2, player_name="ann")
            joined = client.join(created.table.table_id, "bob")
            games[created.table.table_id] = [created.seat_token, joined.seat_token]
        for _ in range(2):  # a person and a bot: the bot's turn is outbox work when the backup is taken
            created = client.create_table("cardbench", 2, bots={1: "random"}, player_name="cy")
            games[created.table.table_id] = [created.seat_token]
        for table_id, tokens in games.items():
            acknowledged[table_id] = []
            while client.table(table_id).version < MOVES_BEFORE:
                acknowledged[table_id] += move(client, table_id, tokens)
        printed = backup("save", str(tmp_path / "backup"), "--redis-url", old.redis_url)
        assert "keys" in printed and (tmp_path / "backup" / "primary-0.rdb").stat().st_size > 0
        versions = {table_id: client.table(table_id).version for table_id in games}

    assert "restored" in backup("restore", str(tmp_path / "backup"), "--into", str(tmp_path / "new"))
    assert (tmp_path / "new" / "appendonlydir").is_dir()
    with stack_on(tmp_path / "new") as new, Client(new.gateway_addresses[0]) as client:
        for table_id, tokens in games.items():
            assert client.table(table_id).version >= versions[table_id] >= MOVES_BEFORE
            while not client.table(table_id).outcome.finished:
                move(client, table_id, tokens)
            table = client.wait_finished(table_id, 60)
            assert table.version == 100 and table.replay_verdict.startswith("valid")
            log = {entry.version: entry.client_action_id for entry in client.log(table_id).actions}
            assert [log.get(version) for version, _ in acknowledged[table_id]] == [a for _, a in acknowledged[table_id]]
