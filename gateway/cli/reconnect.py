"""A game under way, carried across a gateway's restart: a call that finds the gateway away (UNAVAILABLE: draining,
restarting, unreachable) is made again until it answers, and a stream resumes after the last event it showed, so
nothing is shown twice or missed. The person at the terminal is told, in a line, when the gateway goes and when it
is back; after `patience` seconds without it the client gives up with GatewayLost."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import grpc
from manaforge.v1 import gateway_pb2 as gw

from gateway.client import Client

T = TypeVar("T")
Out = Callable[[str], None]

PATIENCE = 60.0  # seconds without a gateway before the client gives up
BACKOFF = (0.25, 0.5, 1.0, 2.0)  # the pauses between tries, the last one repeated


class GatewayLost(Exception):
    """The gateway stayed away for longer than the client's patience."""


def is_away(error: grpc.RpcError) -> bool:
    """The gateway is draining, restarting or out of reach (the call may be made again, to it or another)."""
    return error.code() == grpc.StatusCode.UNAVAILABLE


def is_draining(error: grpc.RpcError) -> bool:
    return "gateway draining" in (error.details() or "")


class Reconnector:
    """The calls of one game under way, made through `client`; `hint` is added to the message of giving up."""

    def __init__(self, client: Client, out: Out, patience: float = PATIENCE, hint: str = "") -> None:
        self.client = client
        self.out = out
        self.patience = patience
        self.hint = hint
        self.away_since: float | None = None  # when the gateway went away, while it is away
        self.draining = False  # it said it was draining (a graceful restart)
        self.said = False  # the person was told it is away
        self.tries = 0
        self.stopped = False  # `stop` was called: `follow` ends
        self._stream: grpc.CallIterator[gw.WatchUpdate] | None = None  # the stream `follow` reads now

    def call(self, make: Callable[[], T], back: str = "the gateway is back") -> T:
        """`make()`, made again while the gateway is away; `back` is said once it answers again."""
        while True:
            try:
                answer = make()
            except grpc.RpcError as error:
                if not is_away(error):
                    raise
                self._wait(error)
                continue
            self._back(back)
            return answer

    def follow(self, table_id: str, token: str = "") -> Iterator[gw.WatchUpdate]:
        """The seat's (or, without a token, the public) updates until the game is over, resumed after the last one
        across a restart of the gateway."""
        last = 0
        while not self.stopped:
            request = gw.WatchRequest(table_id=table_id, seat_token=token, after_seq=last)
            stream = self._stream = self.client.stub.Watch(request)
            if self.stopped:  # stopped between the check and the call: `stop` did not see this stream
                stream.cancel()
            try:
                for update in stream:
                    self._back(
                        "the gateway restarted: reconnected, nothing missed"
                        if self.draining
                        else "the gateway is back: nothing missed"
                    )
                    last = update.seq
                    yield update
                return
            except grpc.RpcError as error:
                if self.stopped:
                    return
                if not is_away(error):
                    raise
                self._wait(error)
            finally:
                stream.cancel()  # type: ignore[no-untyped-call]  # a stream we leave is dropped at once

    def stop(self) -> None:
        """End `follow` from another thread: the stream it reads is cancelled, and it ends without trying again."""
        self.stopped = True
        if self._stream is not None:
            self._stream.cancel()  # type: ignore[no-untyped-call]

    def _wait(self, error: grpc.RpcError) -> None:
        """Pause before the next try (none before the first: a restarted gateway may already answer); say once that
        the gateway is away; give up after the patience."""
        now = time.monotonic()
        if self.away_since is None:
            self.away_since, self.draining, self.said, self.tries = now, is_draining(error), False, 0
            return
        if not self.said:
            self.said = True
            self.out(
                "the gateway is restarting: reconnecting…"
                if self.draining
                else f"the gateway at {self.client.address} is unavailable: trying again…"
            )
        left = self.away_since + self.patience - now
        if left <= 0:
            self.away_since = None
            hint = f" {self.hint}" if self.hint else ""
            raise GatewayLost(
                f"the gateway at {self.client.address} has not answered for {self.patience:g} s; giving up.{hint}"
            )
        time.sleep(min(BACKOFF[min(self.tries, len(BACKOFF) - 1)], left))
        self.tries += 1

    def _back(self, said: str) -> None:
        if self.away_since is not None:
            self.away_since = None
            self.out(said)
