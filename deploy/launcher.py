"""The local launcher: the one place that knows the processes, their ports and settings.

    python -m deploy.launcher run    # the whole stack in the foreground until Ctrl-C (`make run`)

`make demo` (deploy/demo.py) starts the same Stack; the launcher imports nothing of it.

Its settings are the services' (services/settings.py), read once at start: Redis comes from REDIS_URL when set;
otherwise a real redis-server (Redis 7: Debian's, `make redis`) is started on a free loopback port. The tests start
the same Stack.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import functools
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psutil
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.settings import Settings, SettingsError, settings_at_start
from services.tls import client_credentials

ROOT = Path(__file__).resolve().parent.parent


class StackError(Exception):
    """The stack cannot start here; the message says what is in the way."""


# util-linux's setpriv sets the parent-death signal, then execs the command: the child is tied to the launcher's life
# with no Python code between fork and exec (a `preexec_fn` is unsafe in a process with threads: gRPC's fork
# handlers and any lock another thread held run or wait in the child; a restarted Redis died of SIGSEGV before exec).
SETPRIV = shutil.which("setpriv")


def tied_to_launcher(args: list[str]) -> list[str]:
    """`args` run so that the process receives SIGTERM when the thread that started it ends (Linux's parent-death
    signal), however the launcher dies; unchanged where setpriv is missing (the process then outlives a killed
    launcher)."""
    return [SETPRIV, "--pdeathsig", "TERM", "--", *args] if SETPRIV else args


def check_port_free(port: int) -> None:
    """Refuse a port something already listens on, saying what (servers here bind without port reuse)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return
        except OSError:
            pass
    owner = "another process"
    with contextlib.suppress(psutil.Error):
        for conn in psutil.net_connections("tcp"):
            if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN and conn.pid:
                owner = f"pid {conn.pid} ({' '.join(psutil.Process(conn.pid).cmdline()[:4])})"
    raise StackError(f"port {port} on 127.0.0.1 is taken by {owner}: is Manaforge already running? Stop it first.")


def lock_directory(directory: Path) -> Any:
    """Hold `directory`'s lock while this stack runs: two Redis servers must never write one append-only file."""
    directory.mkdir(parents=True, exist_ok=True)
    handle = open(directory / "manaforge.lock", "a+")  # noqa: SIM115  (held open for the stack's lifetime)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise StackError(f"{directory} is in use by Manaforge {holder}: stop it first") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}")
    handle.flush()
    return handle


def _ephemeral_low(default: int = 32768) -> int:
    """The first port of the kernel's ephemeral range: outgoing connections take their local ports from it."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


SERVER_PORTS = range(20000, max(20001, min(_ephemeral_low(), 32768)))  # free_port: below the ephemeral range
CLUSTER_PORTS = range(10000, 20000)  # free_cluster_port: the node, and its bus at port + 10000, below it too


def _is_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


_GIVEN: deque[int] = deque(maxlen=1024)  # ports this process handed out lately: not handed out again meanwhile


def free_port(ports: range = SERVER_PORTS) -> int:
    """A free loopback port to serve on, outside the kernel's ephemeral range. A port from that range (what
    binding port 0 gives) may be taken as the local end of any outgoing connection once its server stops, and then
    the server cannot be started on it again (a process restarted on its port: `Stack.restart`). Chosen at random,
    and not one this process handed out lately (a stack takes several before its servers bind them)."""
    chooser = random.SystemRandom()
    for _ in range(200):
        port = chooser.randrange(ports.start, ports.stop)
        if port not in _GIVEN and _is_free(port):
            _GIVEN.append(port)
            return port
    with socket.socket() as s:  # a range that is all taken: whatever the kernel gives
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000, fixed in Redis 6) is free too, both outside the kernel's
    ephemeral range (a cluster node is restarted on its ports)."""
    while True:
        port = free_port(CLUSTER_PORTS)
        if _is_free(port + 10000):
            return port


REDIS_MAJOR = 7  # the oldest Redis the stack runs on (sharded pub/sub, Redis Functions)


@functools.cache
def redis_server_binary() -> str:
    """The redis-server of the embedded stack: MANAFORGE_REDIS_SERVER when set, else the one on PATH (`make redis`
    installs Debian's, Redis 7.0); refused, saying why, when it is missing or older than Redis 7."""
    binary = settings_at_start().redis_server or shutil.which("redis-server")
    if not binary:
        raise StackError("no redis-server: run `make redis` (Debian's redis-server package, Redis 7)")
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=False).stdout
    major = version.partition(" v=")[2].split(".")[0]
    if not major.isdigit() or int(major) < REDIS_MAJOR:
        raise StackError(f"{binary} is not Redis {REDIS_MAJOR} or newer ({version.strip() or 'no version'})")
    return binary


def redis_cli_binary() -> str:
    """The redis-cli beside the redis-server (Debian's redis-tools, which redis-server depends on)."""
    return str(Path(redis_server_binary()).with_name("redis-cli"))


def wait_for_cluster(nodes: list[str], timeout: float = 30.0) -> None:
    """Until every node says the cluster is ok and every primary has a replica attached."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            ready = True
            for node in nodes:
                client = redis.Redis.from_url(f"redis://{node}/0")
                info = client.cluster("info")
                replication = client.info("replication")
                ready &= info.get("cluster_state") == "ok"
                if replication.get("role") == "master":
                    ready &= int(replication.get("connected_slaves", 0)) > 0
                else:
                    ready &= replication.get("master_link_status") == "up"
            if ready:
                return
        except redis.RedisError:
            pass
        if time.monotonic() > deadline:
            raise StackError(f"the Redis Cluster on {', '.join(nodes)} did not come up")
        time.sleep(0.1)


def wait_for_grpc(address: str, timeout: float = 20.0, credentials: grpc.ChannelCredentials | None = None) -> None:
    deadline = time.monotonic() + timeout
    with grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                if stub.Check(health_pb2.HealthCheckRequest(), timeout=1).status == 1:
                    return
            except grpc.RpcError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no gRPC server became healthy at {address}") from None
                time.sleep(0.05)


def wait_for_http(address: str, timeout: float = 20.0, ca: str = "") -> None:
    """`ca`: the page is served over HTTPS, by a certificate this CA signed ("system": the system's CAs)."""
    deadline = time.monotonic() + timeout
    context = (
        (ssl.create_default_context() if ca == "system" else ssl.create_default_context(cafile=ca)) if ca else None
    )
    while True:
        try:
            with urllib.request.urlopen(f"http{'s' if ca else ''}://{address}/", timeout=1, context=context):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no web server answered at {address}") from None
            time.sleep(0.05)


def wait_for_redis(url: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    client = redis.Redis.from_url(url)
    while True:
        try:
            client.ping()
            return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@dataclass
class Stack:
    """Redis (unless given), the rules service, `gateways` gateway processes and one Celery worker."""

    redis_url: str = ""
    gateways: int = 1
    worker_concurrency: int = 4
    response_timeout: float = 30.0
    bot_delay: float = 0.0
    redis_dir: str = ""  # where an embedded Redis keeps its append-only file; empty: no persistence
    gateway_port: int = 0  # the first gateway's port (0: any free port; further gateways always take free ports)
    rules_port: int = 0
    web_port: int | None = None  # the web edge (browser client) on this port (0: any free port); None: no web edge
    web_address: str = ""
    quiet: bool = True
    settings: dict[str, str] = field(default_factory=dict)  # more environment for every process (MANAFORGE_*)
    metrics: bool = False  # each process serves Prometheus metrics on a port of its own (metrics_ports)
    log_dir: str = ""  # each process's output to <log_dir>/<name>.log (quiet stacks only)
    metrics_ports: dict[str, int] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    gateway_addresses: list[str] = field(default_factory=list)
    rules_address: str = ""
    rules: int = 1  # rules service processes ("rules", "rules-1", ...)
    rules_on_move_path: bool = False  # gateways and workers send every move to the rules services
    rules_addresses: list[str] = field(default_factory=list)
    replica: bool = False  # an embedded replica of the embedded Redis; moves are acknowledged once it has them
    replica_url: str = ""
    cluster: int = 0  # >0: the game data on an embedded Redis Cluster of this many primaries, each with a replica
    #                   (moves acknowledged once the replica has them); redis_url is then Celery's broker only
    cluster_nodes: list[str] = field(default_factory=list)  # "host:port" of every cluster node ("redis-node-<i>")
    broker: bool = False  # Celery's broker on an embedded Redis of its own ("broker"), apart from the game data
    broker_url: str = ""
    root: Path = ROOT  # the code every process runs: this checkout, or another release's (tests/upgrade)
    python: str = sys.executable  # the interpreter (the venv) the processes run on
    _tmp: str = ""
    _lock: Any = None  # the open lock file of `redis_dir` while this stack runs
    _tmp_replica: str = ""
    _tmp_cluster: str = ""
    _tmp_broker: str = ""

    def __post_init__(self) -> None:
        self.settings = dict(self.settings)  # this stack's own: starting it adds to them

    @classmethod
    def from_settings(cls, settings: Settings, **more: Any) -> Stack:
        """`make run`'s stack: its Redis, ports, run directory and table settings from `settings`."""
        return cls(
            redis_url=settings.redis_url,
            response_timeout=settings.response_timeout,
            bot_delay=settings.bot_delay,
            redis_dir=str(Path(settings.run_dir) / "redis"),
            gateway_port=settings.gateway_port,
            rules_port=settings.rules_port,
            web_port=settings.web_port,
            **more,
        )

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            REDIS_URL=self.redis_url,
            MANAFORGE_RESPONSE_TIMEOUT=str(self.response_timeout),
            MANAFORGE_BOT_DELAY=str(self.bot_delay),
            PYTHONUNBUFFERED="1",
        )
        if self.root != ROOT:  # another checkout's code (and its generated protos) ahead of this one's install
            env["PYTHONPATH"] = os.pathsep.join(str(self.root / part) for part in ("", "proto", "sdk/src"))
        env.update(self.settings)
        return env

    def tls(self) -> Settings:
        """The TLS settings its processes run with (MANAFORGE_TLS_*: the environment, then `settings`)."""
        tls = Settings.from_env({k: v for k, v in self.env().items() if k.startswith("MANAFORGE_TLS_")})
        if tls.is_tls and not tls.is_tls_client:
            raise StackError("MANAFORGE_TLS_CERT needs MANAFORGE_TLS_CA too: the launcher and the web edge verify it")
        return tls

    def wait_for_grpc(self, address: str) -> None:
        wait_for_grpc(address, credentials=client_credentials(self.tls()))

    def wait_for_http(self) -> None:
        wait_for_http(self.web_address, ca=self.tls().tls_ca if self.tls().is_tls else "")

    def _spawn(self, name: str, args: list[str]) -> None:
        env = self.env()
        if self.metrics and name != "redis":
            port = self.metrics_ports.setdefault(name, free_port())
            env["MANAFORGE_METRICS_PORT"] = str(port)
        out: Any = None
        if self.log_dir:
            Path(self.log_dir).mkdir(parents=True, exist_ok=True)
            out = open(Path(self.log_dir) / f"{name}.log", "ab")  # noqa: SIM115  (the child holds it)
        elif self.quiet:
            out = subprocess.DEVNULL
        # Linux signals a child when the *thread* that started it ends: only the main thread's children are tied to
        # the launcher's life (a process restarted from another thread must outlive that thread)
        tied = threading.current_thread() is threading.main_thread()
        self.processes[name] = subprocess.Popen(
            tied_to_launcher(args) if tied else args,
            cwd=self.root,
            env=env,
            stdout=out,
            stderr=out,
            start_new_session=True,  # a Ctrl-C reaches the launcher only: it stops the rest in order
        )
        if self.log_dir:
            out.close()

    def start(self) -> Stack:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        self.tls()  # a TLS setting wrong or missing: refused before anything starts
        for port in (self.gateway_port, self.rules_port, self.web_port or 0):
            if port:
                check_port_free(port)
        if self.redis_dir:
            self._lock = lock_directory(Path(self.redis_dir))
        if not self.redis_url:
            self.start_redis()
        wait_for_redis(self.redis_url)
        if self.replica:
            self.start_replica()
        if self.cluster:
            self.start_cluster()
        if self.broker:
            self.start_broker()
        self.rules_address = f"127.0.0.1:{self.rules_port or free_port()}"
        self.rules_addresses = [self.rules_address] + [f"127.0.0.1:{free_port()}" for _ in range(self.rules - 1)]
        if self.rules_on_move_path:
            self.settings["MANAFORGE_RULES_ADDRESSES"] = ",".join(self.rules_addresses)
        for name, address in zip(self.rules_names(), self.rules_addresses, strict=True):
            self._spawn(name, [self.python, "-m", "services.rules.server", "--address", address])
        if self.web_port is not None:  # the edge on loopback forwards each browser's address to the limits
            self.settings.setdefault("MANAFORGE_LIMIT_TRUSTED_EDGES", "127.0.0.1")
        for i in range(self.gateways):
            address = f"127.0.0.1:{(i == 0 and self.gateway_port) or free_port()}"
            self.gateway_addresses.append(address)
            self._spawn(f"gateway-{i}", [self.python, "-m", "gateway", "--address", address])
        self.start_worker()
        if self.web_port is not None:
            self.web_address = f"127.0.0.1:{self.web_port or free_port()}"
            self.start_web()
        for address in [*self.rules_addresses, *self.gateway_addresses]:
            self.wait_for_grpc(address)
        if self.web_address:
            self.wait_for_http()

    def start_web(self) -> None:
        """The web edge: the browser client, and its gRPC-Web calls carried to the first gateway (and the rules
        service, for replays)."""
        edge = [self.python, "-m", "gateway.web_edge", "--address", self.web_address]
        self._spawn("web", [*edge, "--gateway", self.gateway_addresses[0], "--rules", self.rules_address])

    def start_redis(self, port: int = 0) -> None:
        """An embedded redis-server. With `redis_dir`, every write is in the append-only file before Redis answers
        (appendfsync always), so an acknowledged move survives even a crash of Redis itself."""
        port = port or free_port()
        if self.redis_dir:
            Path(self.redis_dir).mkdir(parents=True, exist_ok=True)
            persistence = ["--appendonly", "yes", "--appendfsync", "always", "--dir", self.redis_dir]
        else:
            self._tmp = self._tmp or tempfile.mkdtemp(prefix="manaforge-redis-")
            persistence = ["--save", "", "--appendonly", "no", "--dir", self._tmp]
        self._spawn("redis", [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", *persistence])
        self.redis_url = f"redis://127.0.0.1:{port}/0"

    def start_broker(self, port: int = 0) -> None:
        """An embedded Redis for Celery's broker only (no persistence: a lost task comes back from the outbox).
        Celery reads CELERY_BROKER_URL ahead of the configured REDIS_URL."""
        port = port or free_port()
        self._tmp_broker = self._tmp_broker or tempfile.mkdtemp(prefix="manaforge-broker-")
        persistence = ["--save", "", "--appendonly", "no", "--dir", self._tmp_broker]
        self._spawn("broker", [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", *persistence])
        self.broker_url = f"redis://127.0.0.1:{port}/0"
        self.settings["CELERY_BROKER_URL"] = self.broker_url
        wait_for_redis(self.broker_url)

    def start_replica(self) -> None:
        """A replica of the embedded Redis; every process then waits for it before acknowledging a move."""
        primary = self.redis_url.rsplit(":", 1)[1].split("/")[0]
        port = free_port()
        self._tmp_replica = tempfile.mkdtemp(prefix="manaforge-replica-")
        self._spawn(
            "redis-replica",
            [
                redis_server_binary(),
                *("--port", str(port), "--bind", "127.0.0.1", "--replicaof", "127.0.0.1", primary),
                *("--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", self._tmp_replica),
            ],
        )
        self.replica_url = f"redis://127.0.0.1:{port}/0"
        wait_for_redis(self.replica_url)
        deadline = time.monotonic() + 20
        while redis.Redis.from_url(self.replica_url).info("replication").get("master_link_status") != "up":
            if time.monotonic() > deadline:
                raise StackError("the Redis replica did not connect to its primary")
            time.sleep(0.05)
        self.settings["MANAFORGE_REDIS_REPLICAS"] = "1"

    def start_cluster(self) -> None:
        """An embedded Redis Cluster on loopback: `cluster` primaries, each with one replica, a failover after a node
        has been unreachable for a second. Every process then keeps its game data there and waits for a replica
        before acknowledging a move (WAIT 1), so a move survives the loss of the primary that took it."""
        self._tmp_cluster = tempfile.mkdtemp(prefix="manaforge-cluster-")
        ports = [free_cluster_port() for _ in range(2 * self.cluster)]
        self.cluster_nodes = [f"127.0.0.1:{port}" for port in ports]
        for i in range(len(ports)):
            self.start_cluster_node(i)
        for node in self.cluster_nodes:
            wait_for_redis(f"redis://{node}/0")
        create = [redis_cli_binary(), "--cluster", "create", *self.cluster_nodes, "--cluster-replicas", "1"]
        done = subprocess.run([*create, "--cluster-yes"], capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise StackError(f"redis-cli --cluster create failed: {done.stdout[-500:]}{done.stderr[-500:]}")
        wait_for_cluster(self.cluster_nodes)
        self.settings["MANAFORGE_REDIS_CLUSTER"] = ",".join(self.cluster_nodes)
        self.settings["MANAFORGE_REDIS_REPLICAS"] = "1"

    def start_cluster_node(self, i: int) -> None:
        port = self.cluster_nodes[i].rsplit(":", 1)[1]
        self._spawn(
            f"redis-node-{i}",
            [
                redis_server_binary(),
                *("--port", port, "--bind", "127.0.0.1", "--dir", self._tmp_cluster),
                *("--cluster-enabled", "yes", "--cluster-config-file", f"nodes-{port}.conf"),
                *("--cluster-node-timeout", "1000", "--save", "", "--appendonly", "no"),
            ],
        )

    def slot_map(self) -> list[tuple[int, int, str]]:
        """The cluster's slot ranges and their primaries ("host:port"), from any node that answers."""
        for node in self.cluster_nodes:
            try:
                reply: Any = redis.Redis.from_url(f"redis://{node}/0").execute_command("CLUSTER SLOTS")  # type: ignore[no-untyped-call]
            except redis.RedisError:
                continue
            return [(int(start), int(end), f"{p[0].decode()}:{p[1]}") for start, end, p, *_ in reply]
        raise StackError("no node of the Redis Cluster answered")

    def data_redis(self) -> Any:
        """A plain (blocking) client of the game data: redis-py's cluster client when it is on a cluster."""
        if self.cluster_nodes:
            nodes = [redis.cluster.ClusterNode(*node.rsplit(":", 1)) for node in self.cluster_nodes]  # type: ignore[no-untyped-call]
            return redis.RedisCluster(startup_nodes=nodes)
        return redis.Redis.from_url(self.redis_url)

    def kill_redis_clients(self, kind: str) -> int:
        """CLIENT KILL TYPE `kind` on every node of the game data (the tests' way to drop connections)."""
        nodes = [f"redis://{node}/0" for node in self.cluster_nodes] or [self.redis_url]
        return sum(int(redis.Redis.from_url(url).client_kill_filter(_type=kind, skipme=True)) for url in nodes)

    def data_settings(self) -> Settings:
        """The services' settings for the game data of this stack (for the tests' own store)."""
        return Settings(redis_url=self.redis_url, redis_cluster=tuple(self.cluster_nodes))

    def start_worker(self) -> None:
        self._spawn(
            "worker",
            [
                self.python,
                "-m",
                "celery",
                "-A",
                "services.workers.app",
                "worker",
                "--pool",
                "threads",
                "--concurrency",
                str(self.worker_concurrency),
                "--loglevel",
                "warning",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
        )

    def restart(self, name: str, crash: bool = False) -> None:
        """Stop one process (with `crash`, kill -9) and start it again on the same port: the tests use it to show
        that nothing lives only in a process."""
        process = self.processes.pop(name)
        if process.poll() is None:
            if crash:
                process.kill()
            else:
                process.terminate()
        process.wait(10)
        if name == "redis":
            self.start_redis(int(self.redis_url.rsplit(":", 1)[1].split("/")[0]))
            wait_for_redis(self.redis_url)
        elif name == "broker":
            self.start_broker(int(self.broker_url.rsplit(":", 1)[1].split("/")[0]))
        elif name.startswith("redis-node-"):
            i = int(name.rsplit("-", 1)[1])
            self.start_cluster_node(i)  # it rejoins from its nodes file (as a replica, if it was failed over)
            wait_for_redis(f"redis://{self.cluster_nodes[i]}/0")
        elif name == "worker":
            self.start_worker()
        elif name == "web":
            self.start_web()
            self.wait_for_http()
        elif name in self.rules_names():
            address = self.rules_addresses[self.rules_names().index(name)]
            self._spawn(name, [self.python, "-m", "services.rules.server", "--address", address])
            self.wait_for_grpc(address)
        elif name.startswith("gateway-"):
            address = self.gateway_addresses[int(name.split("-")[1])]
            self._spawn(name, [self.python, "-m", "gateway", "--address", address])
            self.wait_for_grpc(address)

    def rules_names(self) -> list[str]:
        return ["rules"] + [f"rules-{i}" for i in range(1, self.rules)]

    def revive(self, say: Callable[[str], None] = print) -> list[str]:
        """Start again every process of the stack that has died (a worker killed by the OOM killer, a crashed
        gateway). Returns the names restarted."""
        dead = [name for name, process in self.processes.items() if process.poll() is not None]
        for name in dead:
            say(f"{name} exited with {self.processes[name].returncode}; starting it again")
            self.restart(name)
        return dead

    def stop(self, patience: float = 10.0) -> None:
        """SIGTERM to every process (gateways drain their streams), then kill -9 what is still running after
        `patience` seconds."""
        for process in reversed(list(self.processes.values())):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + patience
        for process in self.processes.values():
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.processes.clear()
        for scratch in (self._tmp, self._tmp_replica, self._tmp_cluster, self._tmp_broker):
            if scratch:
                shutil.rmtree(scratch, ignore_errors=True)
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# Limits per client address for stacks whose every client is on loopback (the tests, the benchmarks).
LOOPBACK_LIMITS = {
    "MANAFORGE_LIMIT_STREAMS": "50000",
    "MANAFORGE_LIMIT_TABLES_PER_MINUTE": "1000000",
    "MANAFORGE_LIMIT_QUEUE_JOINS_PER_MINUTE": "1000000",
    "MANAFORGE_LIMIT_TOKEN_FAILURES_PER_MINUTE": "1000000",
}


def play_commands(gateway: str, ca: str = "") -> list[str]:
    """The terminal client's commands the banner of `make run` suggests (--gateway only off the default port, --ca
    when it serves TLS)."""
    client = ".venv/bin/manaforge" + ("" if gateway == "127.0.0.1:50051" else f" --gateway {gateway}")
    client += f" --ca {ca}" if ca else ""
    suggested = [("games", "the games and their options"), ("play manufactory --seats 3", "you and two bots")]
    return [f"{client} {arguments:<27}  # {what}" for arguments, what in [*suggested, ("--help", "every command")]]


class Stopping(Exception):
    """SIGTERM or SIGHUP: stop the stack as Ctrl-C does."""


def _stopping(signum: int, frame: object) -> None:
    raise Stopping(signal.Signals(signum).name)


def run(settings: Settings) -> None:
    stack = Stack.from_settings(settings, quiet=False, metrics=True)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stopping)
    stack.start()  # refuses, with the reason, when its ports or its Redis directory are taken
    try:
        print(
            f"\nManaforge is running{' (TLS)' if stack.tls().is_tls else ''}.\n"
            f"  browser:       http{'s' if stack.tls().is_tls else ''}://{stack.web_address}/\n"
            f"  gateway:       {stack.gateway_addresses[0]}\n"
            f"  rules service: {stack.rules_address}\n  redis:         {stack.redis_url}\n"
            f"  metrics:       {', '.join(f'{n} :{p}' for n, p in stack.metrics_ports.items())}\n\n"
            "Play from another terminal:\n"
            + "".join(f"  {command}\n" for command in play_commands(stack.gateway_addresses[0], stack.tls().tls_ca))
            + "Stop with Ctrl-C.\n",
            flush=True,
        )
        while True:
            time.sleep(0.5)
            stack.revive(say=lambda line: print(line, file=sys.stderr, flush=True))
    except (KeyboardInterrupt, Stopping):
        pass
    finally:
        # A second Ctrl-C (or signal) while stopping hurries the stop instead of leaving processes behind.
        print("\nstopping... (Ctrl-C again to stop at once)", flush=True)

        def hurried(signum: int, frame: object) -> None:
            for process in list(stack.processes.values()):
                with contextlib.suppress(OSError):
                    process.kill()

        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, hurried)
        stack.stop(patience=10.0)
        print("stopped.", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["run"])
    parser.parse_args()
    settings = settings_at_start()  # a wrong setting stops here, before any process starts
    try:
        run(settings)
    except (StackError, SettingsError) as exc:
        print(f"manaforge: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
