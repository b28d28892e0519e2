"""The deployment test (`make deploy-test`, opt-in with --deploy): the one-machine deployment of docs/deployment.md
(deploy/single-host/manaforge.yaml, its secrets made by deploy/single-host/secrets.sh) played by `podman kube play`
from the images of `make image`, as the doc says (tests/deploy/pods.py: only the host ports and the bots' delay
differ). Redis, a gateway, the rules service, a worker and the browser edge each run in their own container of one
pod; every port is published on 127.0.0.1 and every client of the test connects there. Each container's health
check passes when podman runs it; the operator's tools run from the image (the migration's check, a backup). A game
of every kind is played through the containerised gateway (a human seat or two played by the test, one bot seat
played by the worker) and a cardbench game through the browser edge's gRPC-Web. Mid-game the main process of one
container of each kind is killed (SIGKILL from the host, a crash); podman's restart policy must start it again,
every game must go on to a valid replay verdict, and every move the platform acknowledged must be in its game's log
at the version it was acknowledged with."""

from __future__ import annotations

import json
import random
import ssl
import struct
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from google.protobuf.message import Message
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from deploy.images import MANAFORGE, REDIS
from gateway.client import Client
from tests.deploy import pods

pytestmark = pytest.mark.deploy

RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL)
RACED = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)
KILL_EVERY = 25  # acknowledged moves between two kills
T = TypeVar("T")


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pods.Deployment]:
    for image in (MANAFORGE, REDIS.local):
        if not image_exists(image):
            pytest.fail(f"{image} is missing: run `make image`")
    deployment = pods.Deployment(tmp_path_factory.mktemp("deploy"))
    pods.down(deployment)
    try:
        pods.play(deployment)
        wait_serving(deployment)
        yield deployment
    finally:
        pods.down(deployment)
        assert not pods.podman("pod", "ps", "--filter", f"name=^{pods.POD}$", "--format", "{{.Name}}")


def image_exists(image: str) -> bool:
    return subprocess.run(["podman", "image", "exists", image], check=False).returncode == 0


def wait_serving(deployment: pods.Deployment, timeout: float = 180.0) -> None:
    """Every container answers on its published port: the gateway lists the games, the edge serves the page."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with Client(deployment.gateway, credentials=deployment.credentials()) as client:
                client.games()
            with urllib.request.urlopen(f"https://{deployment.web}/", timeout=5, context=deployment.https()) as page:
                page.read()
            return
        except (grpc.RpcError, OSError) as exc:
            if time.monotonic() > deadline:
                logs = "\n".join(f"--- {kind}\n{pods.logs(kind)}" for kind in pods.KINDS)
                raise AssertionError(f"the deployment did not come up: {exc}\n{logs}") from exc
            time.sleep(1)


def one_off(deployment: pods.Deployment, *command: str, volume: Path | None = None) -> str:
    """A one-off container of the image in the deployment's pod, as docs/operations.md runs the operator's tools."""
    mounts = ["--volume", f"{volume}:/backup"] if volume else []
    done = subprocess.run(
        [
            "podman",
            "run",
            "--rm",
            "--pod",
            pods.POD,
            "--env",
            f"REDIS_URL={deployment.redis_url}",
            *mounts,
            MANAFORGE,
            *command,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, f"{' '.join(command)}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    return done.stdout


def retried(call: Callable[[], T], timeout: float = 120.0) -> T:
    """A call retried, unchanged (so with the same client action id), while a container is down or restarting."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            if exc.code() not in RETRYABLE or time.monotonic() > deadline:
                raise
        except (OSError, WebUnavailable):
            if time.monotonic() > deadline:
                raise
        time.sleep(0.3)


# ------------------------------------------------------------------------------------------------- the gRPC gateway


@dataclass
class Game:
    """One table the test plays: its human seats' tokens, and the moves the platform acknowledged to them."""

    title: str
    table_id: str
    tokens: dict[int, str]
    acked: list[tuple[int, str]] = field(default_factory=list)  # (version, client action id)
    finished: bool = False


class Gateway:
    """The containerised gateway through the published port; a new channel after every failure (a channel to a
    restarted gateway would otherwise wait out gRPC's reconnect backoff)."""

    def __init__(self, address: str, credentials: grpc.ChannelCredentials | None = None) -> None:
        self.address = address
        self.credentials = credentials
        self.client = Client(address, credentials=credentials)

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        def once() -> Any:
            try:
                return getattr(self.client, name)(*args, **kwargs)
            except grpc.RpcError:
                self.client.close()
                self.client = Client(self.address, credentials=self.credentials)
                raise

        return retried(once)

    def start(self, info: Any, rand: random.Random) -> Game:
        seats = info.min_seats
        bot = seats - 1
        created = self.call("create_table", info.name, seats, bots={bot: "heuristic"}, player_name="ann")
        tokens = {0: created.seat_token}
        for seat in range(1, bot):
            tokens[seat] = self.call("join", created.table.table_id, f"p{seat}", seat=seat).seat_token
        return Game(info.name, created.table.table_id, tokens)

    def step(self, game: Game, rand: random.Random) -> None:
        """One move of a human seat the game waits for (a random legal one), or nothing if it waits for the bot."""
        view = self.call("view", game.table_id, game.tokens[0])
        if view.outcome.finished:
            game.finished = True
            return
        for seat in view.pending.seats:
            if seat not in game.tokens:
                continue
            legal = self.call("view", game.table_id, game.tokens[seat]).legal_actions
            if not legal:
                continue
            cid = uuid.uuid4().hex
            action = rand.choice(legal).action
            try:
                done = self.call("submit", game.table_id, game.tokens[seat], action, client_action_id=cid)
            except grpc.RpcError as exc:
                if exc.code() in RACED:
                    continue  # the bot moved, or a retry after a lost answer raced: look again
                raise
            game.acked.append((done.version, cid))


# ----------------------------------------------------------------------------------------- the browser edge's gRPC-Web


class WebUnavailable(Exception):
    """The edge or the gateway behind it answered UNAVAILABLE (grpc-status 14): retry."""


class Web:
    """gRPC-Web calls as the browser client makes them, through the containerised edge."""

    def __init__(self, address: str, context: ssl.SSLContext) -> None:
        self.address = address
        self.context = context

    def call(self, method: str, request: Message, answer: type[T]) -> T:
        body = struct.pack(">BI", 0, len(request.SerializeToString())) + request.SerializeToString()

        def once() -> T:
            http = urllib.request.Request(
                f"https://{self.address}/manaforge.v1.Gateway/{method}",
                body,
                {"Content-Type": "application/grpc-web+proto"},
            )
            try:
                with urllib.request.urlopen(http, timeout=10, context=self.context) as reply:
                    data = reply.read()
            except urllib.error.HTTPError as exc:
                if exc.code in (502, 503, 504):
                    raise WebUnavailable(f"HTTP {exc.code}") from exc
                raise
            messages, trailers = [], {}
            while data:
                flag, length = struct.unpack(">BI", data[:5])
                payload, data = data[5 : 5 + length], data[5 + length :]
                if flag & 0x80:
                    trailers = dict(line.split(":", 1) for line in payload.decode().strip().split("\r\n"))
                else:
                    messages.append(payload)
            status = trailers.get("grpc-status", "").strip()
            if status in ("14", "4", "13"):
                raise WebUnavailable(trailers.get("grpc-message", ""))
            if status != "0":
                raise WebRefused(status, trailers.get("grpc-message", ""))
            return answer.FromString(messages[0])  # type: ignore[attr-defined, no-any-return]

        return retried(once)


class WebRefused(Exception):
    def __init__(self, status: str, message: str) -> None:
        super().__init__(f"grpc-status {status}: {message}")
        self.status = status


def web_game(web: Web) -> Game:
    seats = [gw.SeatRequest(), gw.SeatRequest()]
    created = web.call(
        "CreateTable",
        gw.CreateTableRequest(config=GameConfig(game="cardbench", seats=2), seats=seats, player_name="web-ann"),
        gw.CreateTableResponse,
    )
    table_id = created.table.table_id
    joined = web.call("JoinTable", gw.JoinTableRequest(table_id=table_id, player_name="web-bob"), gw.JoinTableResponse)
    return Game("cardbench (gRPC-Web)", table_id, {created.seat: created.seat_token, joined.seat: joined.seat_token})


def web_step(web: Web, game: Game, rand: random.Random) -> None:
    view = web.call("GetView", gw.GetViewRequest(table_id=game.table_id, seat_token=game.tokens[0]), gw.SeatView)
    if view.outcome.finished:
        game.finished = True
        return
    for seat in view.pending.seats:
        mine = web.call("GetView", gw.GetViewRequest(table_id=game.table_id, seat_token=game.tokens[seat]), gw.SeatView)
        if not mine.legal_actions:
            continue
        cid = uuid.uuid4().hex
        request = gw.SubmitActionRequest(
            table_id=game.table_id,
            seat_token=game.tokens[seat],
            client_action_id=cid,
            action=rand.choice(mine.legal_actions).action,
        )
        try:
            done = web.call("SubmitAction", request, gw.SubmitActionResponse)
        except WebRefused as exc:
            if exc.status in ("9", "10"):  # FAILED_PRECONDITION, ABORTED: raced, look again
                continue
            raise
        game.acked.append((done.version, cid))


# --------------------------------------------------------------------------------------------------------- the test


def test_games_go_on_through_a_crash_of_each_container(deployment: pods.Deployment, tmp_path: Path) -> None:
    ports = pods.published()
    assert sorted(ports) == sorted(("127.0.0.1", str(p)) for p in deployment.ports.values()), ports
    # the health checks pass as podman runs them (no systemd here to schedule them: run by hand)
    deadline = time.monotonic() + 120
    while unhealthy := [why for kind in pods.KINDS if (why := pods.healthy(kind))]:
        assert time.monotonic() < deadline, f"health checks failing: {unhealthy}"
        time.sleep(3)
    # the operator's tools from the image, in the pod: the migration's check and a backup of the live data
    assert "layout" in one_off(deployment, "manaforge-migrate", "--check")
    backups = tmp_path / "backups"
    backups.mkdir()
    subprocess.run(["chown", "10001:10001", str(backups)], check=True)
    one_off(deployment, "manaforge-backup", "save", "/backup/first", volume=backups)
    manifest = json.loads((backups / "first" / "manifest.json").read_text())
    assert manifest and any(backups.glob("first/*.rdb")), manifest
    assert one_off(deployment, "redis-cli", "-u", deployment.redis_url, "ping").strip() == "PONG"

    # TLS only: a plaintext client is refused; the clients below verify the server's certificate with the CA
    assert deployment.is_tls, "the documented deployment runs with TLS"
    with Client(deployment.gateway) as plaintext, pytest.raises(grpc.RpcError) as refused:
        plaintext.games()
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    rand = random.Random(35)
    gateway = Gateway(deployment.gateway, deployment.credentials())
    web = Web(deployment.web, deployment.https())
    infos = gateway.call("games")
    games = [gateway.start(info, rand) for info in infos]
    browser = web_game(web)
    assert {g.title for g in games} >= {"manufactory", "blueprints", "rnd", "manasurge", "mana_burn", "magicka"}
    restarts = {kind: pods.state(kind).restarts for kind in pods.KINDS}
    to_kill = ["gateway", "worker", "redis", "rules", "web"]
    crashes: list[str] = []
    started = time.monotonic()
    while to_kill or not all(g.finished for g in [*games, browser]):
        assert time.monotonic() - started < 900, f"games still playing: {[g.title for g in games if not g.finished]}"
        for game in games:
            if not game.finished:
                gateway.step(game, rand)
        if not browser.finished:
            web_step(web, browser, rand)
        acked = sum(len(g.acked) for g in [*games, browser])
        if to_kill and acked >= KILL_EVERY * (len(crashes) + 1):
            kind = to_kill.pop(0)
            if kind == "web" and browser.finished:
                browser = web_game(web)  # the edge dies mid-game: a game of its own still going
            crash_started = time.monotonic()
            pods.crash(kind)
            crashes.append(f"{kind}: restarted in {time.monotonic() - crash_started:.1f} s at {acked} moves")
        if to_kill and all(g.finished for g in games):  # kills still to make: a game more to make them in
            games.append(gateway.start(next(i for i in infos if i.name == "cardbench"), rand))
    assert not to_kill, f"the games ended before every kind was killed (left: {to_kill}; {crashes})"
    print("\n".join(crashes))

    # every container was restarted once by podman, and no other time
    assert {kind: pods.state(kind).restarts - restarts[kind] for kind in pods.KINDS} == dict.fromkeys(pods.KINDS, 1)
    # every container is back and healthy (the rules service serves the edge's replays)
    deadline = time.monotonic() + 120
    while unhealthy := [why for kind in pods.KINDS if (why := pods.healthy(kind))]:
        assert time.monotonic() < deadline, f"health checks failing after the crashes: {unhealthy}"
        time.sleep(3)

    logs: dict[str, list[str]] = {}
    for game in [*games, browser]:
        table = gateway.call("wait_finished", game.table_id, timeout=180)
        assert table.replay_verdict.startswith("valid"), f"{game.title}: {table.replay_verdict}"
        log = gateway.call("log", game.table_id)
        logs[game.table_id] = [a.client_action_id for a in log.actions]
        versions = [a.version for a in log.actions]
        assert versions == list(range(1, len(versions) + 1)), f"{game.title}: versions not once each in order"
        lost = [(v, c) for v, c in game.acked if len(log.actions) < v or log.actions[v - 1].client_action_id != c]
        assert not lost, f"{game.title}: acknowledged moves lost: {lost}"
        print(
            f"{game.title}: {len(game.acked)} acknowledged human moves, {len(versions)} moves, {table.replay_verdict}"
        )

    # a backup of the finished games restored into a new Redis volume, as docs/operations.md does it: the pod down,
    # a new volume (made by the Redis image, so its user owns it), the restore as that user, the pod played again
    one_off(deployment, "manaforge-backup", "save", "/backup/final", volume=backups)
    pods.podman("kube", "down", str(deployment.path))
    pods.podman("volume", "rm", pods.VOLUME)
    pods.podman("run", "--rm", "--volume", f"{pods.VOLUME}:/data", REDIS.local, "true")
    uid = pods.podman("run", "--rm", REDIS.local, "id", "-u")
    pods.podman(
        *("run", "--rm", "--user", uid, "--volume", f"{pods.VOLUME}:/data"),
        *("--volume", f"{backups}:/backup:ro", MANAFORGE, "manaforge-backup", "restore", "/backup/final"),
        *("--into", "/data"),
    )
    pods.podman("kube", "play", str(deployment.path))
    wait_serving(deployment)
    gateway = Gateway(deployment.gateway, deployment.credentials())
    for game in [*games, browser]:
        restored = gateway.call("log", game.table_id)
        assert [a.client_action_id for a in restored.actions] == logs[game.table_id], f"{game.title}: not restored"
        assert restored.table.replay_verdict.startswith("valid"), f"{game.title}: {restored.table.replay_verdict}"
    print(f"restored from the backup: {len(games) + 1} finished games with their logs")
