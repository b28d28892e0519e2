"""Every setting of the server side, in one place: each is read from the environment once, at a process's start,
typed, defaulted and checked here; everything else receives the values (`Settings`).

A wrong value stops the process at start with an error naming the variable and the values it allows
(`SettingsError`). docs/settings.md's table lists exactly the settings of `SETTINGS` (a test holds them equal).
The terminal client's own variables (MANAFORGE_GATEWAY, MANAFORGE_HOME) are the client's: gateway/cli reads them.
"""

from __future__ import annotations

import math
import os
import socket
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LOCAL_REDIS = "redis://127.0.0.1:6379/0"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
SYSTEM_STORE = "system"  # MANAFORGE_TLS_CA's value for the system's trusted certificate authorities


class SettingsError(ValueError):
    """One or more settings have values they do not allow; the message names each variable and what it allows."""


@dataclass(frozen=True)
class Kind:
    """How a setting's text becomes its value: `parse` raises ValueError for a text outside `allowed`."""

    allowed: str  # what the value may be, as the error says it
    parse: Callable[[str], Any]


def _number(text: str, cast: Callable[[str], float], low: float, high: float = math.inf, open_low: bool = False) -> Any:
    value = cast(text.strip())
    if not math.isfinite(value) or value < low or (open_low and value == low) or value > high:
        raise ValueError(text)
    return value


def _choice(choices: tuple[str, ...]) -> Kind:
    def parse(text: str) -> str:
        if text.upper() not in choices:
            raise ValueError(text)
        return text.upper()

    return Kind("one of " + ", ".join(choices), parse)


def _addresses(text: str) -> tuple[str, ...]:
    addresses = tuple(a.strip() for a in text.split(",") if a.strip())
    for address in addresses:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(address)
    return addresses


def _redis_url(text: str) -> str:
    if text and not text.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(text)
    return text


def _thresholds(text: str) -> tuple[int, int, int]:
    first, second, third = (int(part) for part in text.split(","))
    if first < 1 or second < 0 or third < 0:
        raise ValueError(text)
    return first, second, third


def _directory(text: str) -> str:
    if text and not Path(text).is_dir():
        raise ValueError(text)
    return text


def _file(text: str) -> str:
    if text and not Path(text).is_file():
        raise ValueError(text)
    return text


def _authority(text: str) -> str:
    return SYSTEM_STORE if text.strip().lower() == SYSTEM_STORE else _file(text)


SECONDS = Kind("a number of seconds, 0 or more", lambda t: _number(t, float, 0.0))
POSITIVE_SECONDS = Kind("a number of seconds above 0", lambda t: _number(t, float, 0.0, open_low=True))
PER_MINUTE = Kind("a number per minute above 0", lambda t: _number(t, float, 0.0, open_low=True))
COUNT = Kind("a whole number, 0 or more", lambda t: _number(t, int, 0))
POSITIVE_COUNT = Kind("a whole number above 0", lambda t: _number(t, int, 1))
PORT = Kind("a port number from 0 to 65535 (0: any free port)", lambda t: _number(t, int, 0, 65535))
METRICS_PORT = Kind(
    "empty (no metrics) or a port number from 1 to 65535", lambda t: _number(t, int, 1, 65535) if t else 0
)
SWITCH = Kind("0 (off) or 1 (on)", lambda t: {"0": False, "1": True}[t.strip()])
TEXT = Kind("any text", str)
HOSTS = Kind("comma-separated host names or addresses", lambda t: tuple(h.strip() for h in t.split(",") if h.strip()))
ADDRESSES = Kind("empty, or comma-separated HOST:PORT addresses", _addresses)
REDIS_URL = Kind("empty, or a redis://, rediss:// or unix:// URL", _redis_url)
DIRECTORY = Kind("empty, or a directory that exists", _directory)
LOG_LEVEL = _choice(LOG_LEVELS)
GC_THRESHOLDS = Kind("three comma-separated whole numbers, the first above 0", _thresholds)
PEM_FILE = Kind("empty, or a PEM file that exists", _file)
AUTHORITY = Kind("empty, system (the system's trusted CAs), or a PEM file that exists", _authority)
SHARDED = Kind("auto, on or off", lambda t: {"auto": "auto", "on": "on", "off": "off"}[t.strip().lower()])


@dataclass(frozen=True)
class Setting:
    variable: str  # the environment variable
    field: str  # the Settings field it fills
    kind: Kind
    default: str  # as it would be written in the environment
    meaning: str


SETTINGS: tuple[Setting, ...] = (
    # where the data lives
    Setting("REDIS_URL", "redis_url", REDIS_URL, "",
            "the Celery broker, and the game data unless MANAFORGE_REDIS_CLUSTER names a cluster; empty: "
            "redis://127.0.0.1:6379/0, and `make run` starts an embedded Redis"),
    Setting("MANAFORGE_REDIS_CLUSTER", "redis_cluster", ADDRESSES, "",
            "seed nodes of a Redis Cluster that holds the game data"),
    Setting("MANAFORGE_REDIS_CLUSTER_PASSWORD", "redis_cluster_password", TEXT, "", "the cluster's password"),
    Setting("MANAFORGE_SHARDED_PUBSUB", "sharded_pubsub", SHARDED, "auto",
            "table channels on sharded pub/sub (SPUBLISH, SSUBSCRIBE: a commit's message stays on its table's shard); "
            "auto: on for a Redis Cluster, off for one Redis; off on a cluster is the bridge of an upgrade from 0.2.0 "
            "(PUBLISH and SPUBLISH, SUBSCRIBE and SSUBSCRIBE: docs/scaling.md)"),
    Setting("MANAFORGE_REDIS_REPLICAS", "redis_replicas", COUNT, "0",
            "acknowledge a move once this many replicas have it (WAIT); 0: once the primary has it"),
    Setting("MANAFORGE_REDIS_REPLICA_WAIT", "redis_replica_wait", SECONDS, "0.1",
            "seconds to wait for those replicas before answering UNAVAILABLE (retry)"),
    # how tables play
    Setting("MANAFORGE_RESPONSE_TIMEOUT", "response_timeout", SECONDS, "30",
            "seconds before an absent player is passed in a response window"),
    Setting("MANAFORGE_BOT_DELAY", "bot_delay", SECONDS, "0.5",
            "seconds a bot waits before moving (a person sees each bot move arrive; tests and benchmarks set 0)"),
    Setting("MANAFORGE_BOT_TIME_CAP", "bot_time_cap", SECONDS, "2",
            "seconds a bot may think, whatever its level's budget (0: it plays its heuristic's move at once)"),
    Setting("MANAFORGE_DECISION_SECONDS", "decision_seconds", SECONDS, "120",
            "a table's default clock per decision (0: none)"),
    Setting("MANAFORGE_BOT_GAMES", "bot_games", POSITIVE_COUNT, "8",
            "games under way a bot account may play at once (beyond: challenges declined as busy, joins refused)"),
    Setting("MANAFORGE_CHALLENGE_TTL", "challenge_ttl", POSITIVE_SECONDS, "300",
            "seconds a challenge lasts, answered or not; then it is gone"),
    Setting("MANAFORGE_CARD_SETS", "card_sets", DIRECTORY, "",
            "a directory of MTGJSON set files every gateway, worker and rules service registers at start"),
    Setting("MANAFORGE_RULES_ADDRESSES", "rules_addresses", ADDRESSES, "",
            "rules services every move is sent to (empty: the engine runs in the gateway or worker)"),
    # how long things are kept
    Setting("MANAFORGE_ARCHIVE_AFTER", "archive_after", SECONDS, "60",
            "seconds a validated game stays live before it is archived"),
    Setting("MANAFORGE_ARCHIVE_TTL", "archive_ttl", SECONDS, "2592000", "seconds an archived game is kept (30 days)"),
    Setting("MANAFORGE_OPEN_TABLE_SECONDS", "open_table_seconds", SECONDS, "3600",
            "seconds before a table whose seats were never all taken is removed"),
    # what one client may do (per address, per gateway)
    Setting("MANAFORGE_LIMIT_TABLES_PER_MINUTE", "limit_tables_per_minute", PER_MINUTE, "120",
            "tables created (and registrations, name checks) per minute"),
    Setting("MANAFORGE_LIMIT_QUEUE_JOINS_PER_MINUTE", "limit_queue_joins_per_minute", PER_MINUTE, "120",
            "matchmaking queue joins per minute"),
    Setting("MANAFORGE_LIMIT_TOKEN_FAILURES_PER_MINUTE", "limit_token_failures_per_minute", PER_MINUTE, "60",
            "wrong seat tokens or player keys per minute"),
    Setting("MANAFORGE_LIMIT_STREAMS", "limit_streams", POSITIVE_COUNT, "1000", "concurrent Watch and Play streams"),
    Setting("MANAFORGE_LIMIT_BOT_CALLS_PER_MINUTE", "limit_bot_calls_per_minute", PER_MINUTE, "600",
            "calls per minute of one bot account (per gateway), beside its address's limits"),
    Setting("MANAFORGE_LIMIT_TRUSTED_EDGES", "limit_trusted_edges", HOSTS, "",
            "hosts whose x-forwarded-for the limits believe (`make run`: 127.0.0.1, its web edge)"),
    # the operator
    Setting("MANAFORGE_OPERATOR_KEY", "operator_key", TEXT, "",
            "the key an operator's Admin calls carry (x-operator-key; docs/operations.md); empty: the console is off"),
    Setting("MANAFORGE_WEB_CONSOLE", "web_console", SWITCH, "0",
            "the web edge carries the operator console's Admin calls (#/console), from loopback browsers only"),
    # processes
    Setting("MANAFORGE_UVLOOP", "uvloop", SWITCH, "1",
            "gateways and rules services on uvloop (0: the standard asyncio loop)"),
    Setting("MANAFORGE_GATEWAY_REUSEPORT", "gateway_reuseport", SWITCH, "0",
            "gateways listen with SO_REUSEPORT: several gateway processes share one address (the kernel spreads "
            "connections), so one host or pod uses all its cores; 0: a second gateway on a used address fails"),
    Setting("MANAFORGE_GC_THRESHOLDS", "gc_thresholds", GC_THRESHOLDS, "10000,10,10",
            "Python's garbage collector in every Manaforge process: objects allocated before the youngest collection, "
            "then how many collections of each generation before the next one up (Python's own: 700,10,10; "
            "services/collector.py)"),
    Setting("MANAFORGE_WORKER_STUCK_AFTER", "worker_stuck_after", POSITIVE_SECONDS, "60",
            "seconds a worker's dispatcher may begin no step before the worker exits to be restarted"),
    Setting("MANAFORGE_GATEWAY_ID", "gateway_id", TEXT, "",
            "this gateway's name in the operator's overview, its metrics and the audit log; empty: its host name "
            "(HOSTNAME, else the system's) and the port it serves on, e.g. gateway-7d9f-x2k:50051"),
    Setting("MANAFORGE_COMMIT", "commit", TEXT, "",
            "the source commit this process runs (its version's metric, health answer and first log line); images "
            "set it at build (ARG COMMIT); empty: git's HEAD when run from a checkout, else unknown"),
    Setting("MANAFORGE_LOG_LEVEL", "log_level", LOG_LEVEL, "INFO", "the lowest level logged (JSON lines on stderr)"),
    Setting("MANAFORGE_METRICS_PORT", "metrics_port", METRICS_PORT, "", "the process's Prometheus metrics port"),
    Setting("MANAFORGE_METRICS_ADDRESS", "metrics_address", TEXT, "127.0.0.1", "the address metrics are served on"),
    # TLS (docs/deployment.md#tls): a server's listeners, and our processes as clients of each other
    Setting("MANAFORGE_TLS_CERT", "tls_cert", PEM_FILE, "",
            "the certificate (chain) this process serves with; with MANAFORGE_TLS_KEY every listener of a gateway, "
            "rules service or web edge (and its metrics) speaks TLS only; empty: plaintext"),
    Setting("MANAFORGE_TLS_KEY", "tls_key", PEM_FILE, "", "the private key of MANAFORGE_TLS_CERT"),
    Setting("MANAFORGE_TLS_CLIENT_CA", "tls_client_ca", PEM_FILE, "",
            "mutual TLS: a gRPC server (gateway, rules service) accepts only clients whose certificate this CA "
            "signed; empty: any client"),
    Setting("MANAFORGE_TLS_CA", "tls_ca", AUTHORITY, "",
            "our processes as clients (gateway and worker to the rules services, web edge to the gateway) speak TLS "
            "and trust this CA; system: the system's CAs; empty: plaintext"),
    Setting("MANAFORGE_TLS_CLIENT_CERT", "tls_client_cert", PEM_FILE, "",
            "the certificate those clients present to a server that asks (mutual TLS)"),
    Setting("MANAFORGE_TLS_CLIENT_KEY", "tls_client_key", PEM_FILE, "", "the private key of MANAFORGE_TLS_CLIENT_CERT"),
    # `make run` (the launcher)
    Setting("MANAFORGE_GATEWAY_PORT", "gateway_port", PORT, "50051", "`make run`'s gateway port on 127.0.0.1"),
    Setting("MANAFORGE_RULES_PORT", "rules_port", PORT, "50061", "`make run`'s rules service port on 127.0.0.1"),
    Setting("MANAFORGE_WEB_PORT", "web_port", PORT, "8080", "`make run`'s browser page (web edge) on 127.0.0.1"),
    Setting("MANAFORGE_RUN_DIR", "run_dir", TEXT, str(ROOT / "run"),
            "where `make run` keeps its Redis append-only file (`run/` in the checkout)"),
    Setting("MANAFORGE_REDIS_SERVER", "redis_server", TEXT, "",
            "the redis-server (7 or newer) that `make run` and the tests start; empty: the one on PATH (`make redis`)"),
)  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """The values of SETTINGS (see each one's meaning there). `Settings()` is every default; `from_env` reads them."""

    redis_url: str = ""  # see redis()
    redis_cluster: tuple[str, ...] = ()
    redis_cluster_password: str = ""
    sharded_pubsub: str = "auto"
    redis_replicas: int = 0
    redis_replica_wait: float = 0.1
    response_timeout: float = 30.0
    bot_delay: float = 0.5
    bot_time_cap: float = 2.0
    decision_seconds: float = 120.0
    bot_games: int = 8
    challenge_ttl: float = 300.0
    card_sets: str = ""
    rules_addresses: tuple[str, ...] = ()
    archive_after: float = 60.0
    archive_ttl: float = 30 * 24 * 3600.0
    open_table_seconds: float = 3600.0
    limit_tables_per_minute: float = 120.0
    limit_queue_joins_per_minute: float = 120.0
    limit_token_failures_per_minute: float = 60.0
    limit_streams: int = 1000
    limit_bot_calls_per_minute: float = 600.0
    limit_trusted_edges: tuple[str, ...] = ()
    operator_key: str = ""
    web_console: bool = False
    uvloop: bool = True
    gateway_reuseport: bool = False
    gc_thresholds: tuple[int, int, int] = (10000, 10, 10)
    worker_stuck_after: float = 60.0
    gateway_id: str = ""  # empty: see gateway_name()
    commit: str = ""
    log_level: str = "INFO"
    metrics_port: int = 0  # 0: no metrics server
    metrics_address: str = "127.0.0.1"
    tls_cert: str = ""
    tls_key: str = ""
    tls_client_ca: str = ""
    tls_ca: str = ""
    tls_client_cert: str = ""
    tls_client_key: str = ""
    gateway_port: int = 50051
    rules_port: int = 50061
    web_port: int = 8080
    run_dir: str = str(ROOT / "run")
    redis_server: str = ""  # empty: the redis-server on PATH

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """Every setting from `environ` (a variable unset or empty takes its default). SettingsError names every
        variable whose value is not allowed, and what it allows."""
        values: dict[str, Any] = {}
        wrong: list[str] = []
        for setting in SETTINGS:
            text = environ.get(setting.variable, "") or setting.default
            try:
                values[setting.field] = setting.kind.parse(text)
            except (ValueError, KeyError):
                wrong.append(f"{setting.variable}={text!r}: expected {setting.kind.allowed}")
        if not wrong:
            wrong = _unpaired(values)
        if wrong:
            raise SettingsError("; ".join(wrong))
        return cls(**values)

    @property
    def is_tls(self) -> bool:
        """Whether this process's listeners speak TLS (a certificate and its key are set)."""
        return bool(self.tls_cert)

    @property
    def is_tls_client(self) -> bool:
        """Whether this process speaks TLS to our other processes (MANAFORGE_TLS_CA is set)."""
        return bool(self.tls_ca)

    def gateway_name(self, port: int, environ: Mapping[str, str] = os.environ) -> str:
        """This gateway's identity: MANAFORGE_GATEWAY_ID, else its host name and port (never a bind address)."""
        return self.gateway_id or f"{environ.get('HOSTNAME') or socket.gethostname()}:{port}"

    def redis(self) -> str:
        """The Redis server's URL: REDIS_URL, else the local default."""
        return self.redis_url or LOCAL_REDIS


def _unpaired(values: Mapping[str, Any]) -> list[str]:
    """The TLS settings that make sense only together: each one set without its partner."""
    wrong = []
    if bool(values["tls_cert"]) != bool(values["tls_key"]):
        wrong.append("MANAFORGE_TLS_CERT and MANAFORGE_TLS_KEY: set both (TLS) or neither (plaintext)")
    if bool(values["tls_client_cert"]) != bool(values["tls_client_key"]):
        wrong.append("MANAFORGE_TLS_CLIENT_CERT and MANAFORGE_TLS_CLIENT_KEY: set both (mutual TLS) or neither")
    if values["tls_client_ca"] and not values["tls_cert"]:
        wrong.append("MANAFORGE_TLS_CLIENT_CA (mutual TLS) needs MANAFORGE_TLS_CERT and MANAFORGE_TLS_KEY")
    if values["tls_client_cert"] and not values["tls_ca"]:
        wrong.append("MANAFORGE_TLS_CLIENT_CERT (mutual TLS) needs MANAFORGE_TLS_CA (TLS to our servers)")
    return wrong


def settings_at_start(environ: Mapping[str, str] = os.environ) -> Settings:
    """A process's settings, read once at its start; a wrong value ends the process with status 2 and the error."""
    try:
        return Settings.from_env(environ)
    except SettingsError as exc:
        print(f"manaforge: settings: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
