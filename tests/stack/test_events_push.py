"""A player's Events stream is pushed, not polled: an idle stream makes no Redis command that names its player, yet
it learns of a new game and of each turn; a pub/sub blip (the hubs' connections killed) and a gateway restart (the
stream resumed from its cursor) lose no your_turn. On one Redis and on a cluster (the `stack` fixture)."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator

import grpc
import pytest
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import GameConfig

from deploy.launcher import Stack
from gateway.client import Client

Metadata = tuple[tuple[str, str], ...]
pytestmark = pytest.mark.timeout(240)


def credentials(player: gw.Player) -> Metadata:
    return (("x-player-id", player.player_id), ("x-player-key", player.secret_key))


def register(client: Client, prefix: str) -> gw.Player:
    player: gw.Player = client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=f"{prefix}{uuid.uuid4().hex[:8]}"))
    return player


class Stream:
    """One Events stream read on a thread of its own: what came, waited for by kind."""

    def __init__(self, client: Client, player: gw.Player, after: str = "") -> None:
        self.call = client.stub.Events(gw.EventsRequest(after=after), metadata=credentials(player), timeout=200)
        self.events: list[gw.PlayerEvent] = []
        self.ended: grpc.RpcError | None = None
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for event in self.call:
                with self.changed:
                    self.events.append(event)
                    self.changed.notify_all()
        except grpc.RpcError as exc:
            with self.changed:
                self.ended = exc
                self.changed.notify_all()

    def wait(self, found: Callable[[gw.PlayerEvent], bool], what: str, timeout: float = 30) -> gw.PlayerEvent:
        with self.changed:
            self.changed.wait_for(lambda: any(found(e) for e in self.events) or self.ended is not None, timeout)
            for event in self.events:
                if found(event):
                    return event
        raise AssertionError(f"no {what} on the Events stream (ended: {self.ended}); it had {self.events}")

    @property
    def cursor(self) -> str:
        return [e.cursor for e in self.events if e.cursor][-1]

    def close(self) -> None:
        self.call.cancel()  # type: ignore[no-untyped-call]


def game_started(table_id: str) -> Callable[[gw.PlayerEvent], bool]:
    return lambda e: e.WhichOneof("kind") == "game_started" and e.game_started.table_id == table_id


def your_turn(table_id: str, version: int) -> Callable[[gw.PlayerEvent], bool]:
    return lambda e: (
        e.WhichOneof("kind") == "your_turn"
        and (e.your_turn.table_id, e.your_turn.version)
        == (
            table_id,
            version,
        )
    )


class Game:
    """A started two-seat cardbench table of two registered players: `ann` (whose stream the test reads) and bob."""

    def __init__(self, client: Client, ann: gw.Player, bob: gw.Player) -> None:
        created = client.stub.CreateTable(
            gw.CreateTableRequest(config=GameConfig(game="cardbench", seats=2), seats=[gw.SeatRequest()] * 2),
            metadata=credentials(ann),
        )
        self.client = client
        self.table_id = created.table.table_id
        joined = client.stub.JoinTable(gw.JoinTableRequest(table_id=self.table_id), metadata=credentials(bob))
        self.tokens = {created.seat: created.seat_token, joined.seat: joined.seat_token}
        self.ann_seat = created.seat

    def pending(self) -> list[int]:
        return list(self.client.table(self.table_id).pending.seats)

    def until_ann_moves(self) -> int:
        """Bob moves (where it is his turn) until it is ann's: the version that waits for her."""
        for _ in range(20):
            table = self.client.table(self.table_id)
            if self.ann_seat in table.pending.seats:
                return int(table.version)
            seat = table.pending.seats[0]
            self.move(seat)
        raise AssertionError("ann's turn never came")

    def move(self, seat: int) -> int:
        token = self.tokens[seat]
        action = self.client.view(self.table_id, token).legal_actions[0].action
        return int(self.client.submit(self.table_id, token, action).version)

    def next_turn_of_ann(self) -> int:
        """Ann moves, then bob until it is ann's turn again: that version."""
        self.move(self.ann_seat)
        return self.until_ann_moves()


class Monitor:
    """The commands the data's Redis nodes run for a while (MONITOR on each node) that name `text`."""

    def __init__(self, stack: Stack, text: str) -> None:
        self.text = text.encode()
        self.nodes = stack.cluster_nodes or [stack.redis_url.split("//")[1].split("/")[0]]
        self.seen: list[str] = []
        self.monitored = 0  # commands seen in all (the monitor works: the stack is never silent)

    def _watch(self, node: str, until: float, ready: threading.Barrier) -> None:
        host, _, port = node.rpartition(":")
        with socket.create_connection((host, int(port)), timeout=5) as connection:
            connection.sendall(b"MONITOR\r\n")
            received = b""
            while not received.startswith(b"+OK\r\n"):
                received += connection.recv(65536)
            ready.wait()
            connection.settimeout(0.2)
            while time.monotonic() < until:
                try:
                    received += connection.recv(65536)
                except TimeoutError:
                    continue
        lines = received.split(b"\r\n")[1:]
        self.monitored += len(lines)
        self.seen.extend(line.decode(errors="replace") for line in lines if self.text in line)

    def over(self, seconds: float) -> list[str]:
        ready = threading.Barrier(len(self.nodes) + 1)
        until = time.monotonic() + seconds
        threads = [threading.Thread(target=self._watch, args=(node, until, ready)) for node in self.nodes]
        for thread in threads:
            thread.start()
        ready.wait(10)
        for thread in threads:
            thread.join()
        assert self.monitored > 0, "MONITOR saw no command at all"
        return self.seen


@pytest.fixture
def players(client: Client) -> tuple[gw.Player, gw.Player]:
    return register(client, "push"), register(client, "pal")


@pytest.fixture
def opened(client: Client, players: tuple[gw.Player, gw.Player]) -> Iterator[Stream]:
    stream = Stream(client, players[0])
    stream.wait(lambda e: bool(e.cursor), "cursor")
    yield stream
    stream.close()


def test_an_idle_stream_makes_no_redis_command_and_still_hears_of_a_new_game_and_its_turns(
    stack: Stack, client: Client, client_b: Client, players: tuple[gw.Player, gw.Player], opened: Stream
) -> None:
    ann, bob = players
    time.sleep(3.0)  # the stream's opening looks are done (services.tables.inbox.SETTLE after it opened)
    idle = Monitor(stack, ann.player_id).over(2.0)
    assert idle == [], f"an idle Events stream asked Redis about its player: {idle[:5]}"
    game = Game(client_b, ann, bob)  # made on the other gateway: the stream hears of it through Redis
    started = opened.wait(game_started(game.table_id), "game_started")
    assert started.game_started.seat == game.ann_seat and started.game_started.seat_token
    first = game.until_ann_moves()
    opened.wait(your_turn(game.table_id, first), f"your_turn at version {first}")
    second = game.next_turn_of_ann()
    opened.wait(your_turn(game.table_id, second), f"your_turn at version {second}")
    followed = Monitor(stack, ann.player_id).over(2.0)  # a game under way followed: still nothing asked
    assert followed == [], f"an idle Events stream with a game under way asked Redis: {followed[:5]}"


def test_a_your_turn_and_a_new_game_arrive_after_a_pubsub_blip(
    stack: Stack, client: Client, client_b: Client, players: tuple[gw.Player, gw.Player], opened: Stream
) -> None:
    ann, bob = players
    game = Game(client_b, ann, bob)
    opened.wait(game_started(game.table_id), "game_started")
    first = game.until_ann_moves()
    opened.wait(your_turn(game.table_id, first), f"your_turn at version {first}")
    assert stack.kill_redis_clients("pubsub") >= 1  # every hub's pub/sub connections: they reconnect
    second = game.next_turn_of_ann()  # (at once: most likely before the hubs subscribe again)
    opened.wait(your_turn(game.table_id, second), f"your_turn at version {second} after the blip")
    assert stack.kill_redis_clients("pubsub") >= 1
    other = Game(client_b, ann, bob)  # a new game, its notice perhaps published while nobody listened
    opened.wait(game_started(other.table_id), "game_started after the blip")
    third = game.next_turn_of_ann()  # and the pushes flow again
    opened.wait(your_turn(game.table_id, third), f"your_turn at version {third}")


def test_a_your_turn_that_came_while_the_gateway_restarted_is_told_on_resuming_from_the_cursor(
    stack: Stack, client: Client, client_b: Client, players: tuple[gw.Player, gw.Player]
) -> None:
    ann, bob = players
    stream = Stream(client_b, ann)  # on the gateway that restarts
    game = Game(client, ann, bob)
    stream.wait(game_started(game.table_id), "game_started")
    first = game.until_ann_moves()
    stream.wait(your_turn(game.table_id, first), f"your_turn at version {first}")
    cursor = stream.cursor
    stack.restart("gateway-1")
    with stream.changed:
        assert stream.changed.wait_for(lambda: stream.ended is not None, 20), "the stream ended with its gateway"
    second = game.next_turn_of_ann()  # while no stream is open
    with Client(stack.gateway_addresses[1]) as again:
        resumed = Stream(again, ann, after=cursor)
        try:
            told = resumed.wait(your_turn(game.table_id, second), f"your_turn at version {second} on resuming")
            assert told.your_turn.seat == game.ann_seat
            third = game.next_turn_of_ann()  # and pushed on the resumed stream
            resumed.wait(your_turn(game.table_id, third), f"your_turn at version {third}")
        finally:
            resumed.close()


def test_a_challenge_and_its_game_reach_idle_streams_in_order(
    stack: Stack, client: Client, client_b: Client, players: tuple[gw.Player, gw.Player], opened: Stream
) -> None:
    ann, bob = players
    time.sleep(3.0)  # the stream's opening looks are done: what follows is pushed
    bobs = Stream(client_b, bob)
    try:
        bobs.wait(lambda e: bool(e.cursor), "cursor")
        challenge = client_b.stub.CreateChallenge(
            gw.CreateChallengeRequest(player_id=ann.player_id, config=GameConfig(game="cardbench", seats=2)),
            metadata=credentials(bob),
        )
        received = opened.wait(lambda e: e.WhichOneof("kind") == "challenge_received", "challenge_received")
        assert received.challenge_received.challenge_id == challenge.challenge_id and received.cursor
        client.stub.AcceptChallenge(
            gw.AcceptChallengeRequest(challenge_id=challenge.challenge_id), metadata=credentials(ann)
        )
        accepted = bobs.wait(lambda e: e.WhichOneof("kind") == "challenge_accepted", "challenge_accepted")
        table_id = accepted.challenge_accepted.table_id
        started = bobs.wait(game_started(table_id), "bob's game_started")
        assert bobs.events.index(accepted) < bobs.events.index(started), "accepted, then the game started"
        assert opened.wait(game_started(table_id), "ann's game_started").game_started.seat == 1
    finally:
        bobs.close()
