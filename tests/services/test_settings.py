"""The settings: read, typed, defaulted and checked in services/settings.py alone; a wrong value stops a process at
start naming the variable and what it allows; docs/settings.md's table lists exactly these settings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from services.settings import SETTINGS, Settings, SettingsError
from services.tables.store.pubsub import pubsub_mode

ROOT = Path(__file__).resolve().parents[2]


def test_the_defaults_are_the_tables_and_an_empty_environment_gives_them() -> None:
    assert Settings.from_env({}) == Settings()
    assert {s.field: s.kind.parse(s.default) for s in SETTINGS} == vars(Settings())
    assert Settings().bot_delay == 0.5 and Settings().redis() == "redis://127.0.0.1:6379/0"


def test_values_are_typed() -> None:
    settings = Settings.from_env(
        {
            "MANAFORGE_BOT_DELAY": "0",
            "MANAFORGE_BOT_TIME_CAP": "0",  # a bot with no thinking time plays its heuristic's move
            "MANAFORGE_LIMIT_STREAMS": "7",
            "MANAFORGE_RULES_ADDRESSES": "127.0.0.1:1,127.0.0.1:2",
            "MANAFORGE_LIMIT_TRUSTED_EDGES": "127.0.0.1, ::1",
            "MANAFORGE_UVLOOP": "0",
            "MANAFORGE_LOG_LEVEL": "warning",
            "MANAFORGE_METRICS_PORT": "9100",
            "MANAFORGE_SHARDED_PUBSUB": "Off",
            "MANAFORGE_GC_THRESHOLDS": "700, 10, 10",
        }
    )
    assert (
        settings.bot_delay == 0.0
        and settings.bot_time_cap == 0.0
        and settings.limit_streams == 7
        and settings.metrics_port == 9100
    )
    assert settings.rules_addresses == ("127.0.0.1:1", "127.0.0.1:2")
    assert settings.limit_trusted_edges == ("127.0.0.1", "::1")
    assert settings.uvloop is False and settings.log_level == "WARNING"
    assert settings.sharded_pubsub == "off"
    assert settings.gc_thresholds == (700, 10, 10)


@pytest.mark.parametrize(
    ("value", "cluster", "publishes", "subscribes"),
    [
        ("auto", True, "s", (True,)),  # SPUBLISH, SSUBSCRIBE
        ("auto", False, "p", (False,)),  # PUBLISH, SUBSCRIBE: what 0.2.0 does
        ("on", True, "s", (True,)),
        ("on", False, "s", (True,)),
        ("off", False, "p", (False,)),
        ("off", True, "ps", (False, True)),  # the upgrade's bridge: both ways
    ],
)
def test_sharded_pubsub_picks_how_commits_are_published_and_subscribed(
    value: str, cluster: bool, publishes: str, subscribes: tuple[bool, ...]
) -> None:
    assert pubsub_mode(Settings.from_env({"MANAFORGE_SHARDED_PUBSUB": value}).sharded_pubsub, cluster) == (
        publishes,
        subscribes,
    )


@pytest.mark.parametrize(
    ("variable", "value", "allowed"),
    [
        ("MANAFORGE_BOT_DELAY", "soon", "a number of seconds, 0 or more"),
        ("MANAFORGE_BOT_DELAY", "-1", "a number of seconds, 0 or more"),
        ("MANAFORGE_WORKER_STUCK_AFTER", "0", "a number of seconds above 0"),
        ("MANAFORGE_BOT_TIME_CAP", "-0.5", "a number of seconds, 0 or more"),
        ("MANAFORGE_ARCHIVE_TTL", "nan", "a number of seconds, 0 or more"),
        ("MANAFORGE_LIMIT_STREAMS", "2.5", "a whole number above 0"),
        ("MANAFORGE_GATEWAY_PORT", "70000", "a port number from 0 to 65535"),
        ("MANAFORGE_UVLOOP", "yes", "0 (off) or 1 (on)"),
        ("MANAFORGE_LOG_LEVEL", "loud", "one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        ("MANAFORGE_SHARDED_PUBSUB", "yes", "auto, on or off"),
        ("MANAFORGE_GC_THRESHOLDS", "10000,10", "three comma-separated whole numbers, the first above 0"),
        ("MANAFORGE_GC_THRESHOLDS", "0,10,10", "three comma-separated whole numbers, the first above 0"),
        ("MANAFORGE_RULES_ADDRESSES", "rules-host", "comma-separated HOST:PORT addresses"),
        ("REDIS_URL", "127.0.0.1:6379", "a redis://, rediss:// or unix:// URL"),
        ("MANAFORGE_CARD_SETS", "/no/such/directory", "a directory that exists"),
    ],
)
def test_a_wrong_value_is_refused_naming_the_variable_and_what_it_allows(
    variable: str, value: str, allowed: str
) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({variable: value})
    assert f"{variable}={value!r}" in str(refused.value) and allowed in str(refused.value)


def test_every_wrong_value_is_named_at_once() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({"MANAFORGE_BOT_DELAY": "x", "MANAFORGE_LIMIT_STREAMS": "x", "MANAFORGE_BOT_TIME_CAP": "1"})
    assert "MANAFORGE_BOT_DELAY" in str(refused.value) and "MANAFORGE_LIMIT_STREAMS" in str(refused.value)
    assert "MANAFORGE_BOT_TIME_CAP" not in str(refused.value)


@pytest.mark.parametrize(
    "command",
    [["-m", "gateway"], ["-m", "services.rules.server"], ["-m", "gateway.web_edge"], ["-m", "deploy.launcher", "run"]],
)
def test_a_process_with_a_wrong_setting_stops_at_start_saying_why(command: list[str]) -> None:
    env = {**os.environ, "MANAFORGE_BOT_DELAY": "soon", "MANAFORGE_GATEWAY_PORT": "0", "MANAFORGE_RULES_PORT": "0"}
    env["MANAFORGE_WEB_PORT"] = "0"
    done = subprocess.run(
        [sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "MANAFORGE_BOT_DELAY='soon': expected a number of seconds, 0 or more" in done.stderr


def test_a_worker_with_a_wrong_setting_stops_at_start_saying_why() -> None:
    env = {**os.environ, "MANAFORGE_LOG_LEVEL": "loud"}
    command = ["-m", "celery", "-A", "services.workers.app", "worker", "--pool", "solo"]
    done = subprocess.run(
        [sys.executable, *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert "MANAFORGE_LOG_LEVEL='loud': expected one of DEBUG, INFO, WARNING, ERROR, CRITICAL" in done.stderr


def test_the_settings_doc_lists_exactly_the_settings() -> None:
    """A setting added without a row in docs/settings.md, or a row naming no setting (or another default), fails
    here."""
    section = (ROOT / "docs" / "settings.md").read_text()
    rows = re.findall(r"^\| `([A-Z_]+)` \| [^|]+ \| ([^|]+) \|", section, re.MULTILINE)
    assert [name for name, _ in rows] == [s.variable for s in SETTINGS]
    for (name, default), setting in zip(rows, SETTINGS, strict=True):
        if setting.variable != "MANAFORGE_RUN_DIR":  # an absolute path in the code, `run` in the checkout here
            assert default.strip() == (f"`{setting.default}`" if setting.default else "(empty)"), name


def test_no_module_but_the_settings_reads_the_environment() -> None:
    """os.environ / os.getenv appear in services/settings.py alone (the launcher hands its environment on to the
    processes it starts; the terminal client, gateway/cli, reads its own variables)."""
    import ast

    readers = []
    sources = [*(ROOT / "services").rglob("*.py"), *(ROOT / "gateway").rglob("*.py"), ROOT / "deploy" / "launcher.py"]
    for path in sources:
        relative = path.relative_to(ROOT).as_posix()
        if relative == "services/settings.py" or relative.startswith(("gateway/cli/", "gateway/web/")):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
                readers.append(relative)
    assert readers == ["deploy/launcher.py"], readers  # Stack.env: the children's environment, not a setting
