"""The decision of a seat played in the terminal (the part of a Sitting, sitting.py, that asks and sends): the
question is asked while the table's updates keep arriving; an update that takes the decision away leaves the
question at once (Superseded), one that does not is said below it; the person is reminded of the seat's clock
before it runs out; the move chosen is sent until it lands, is refused, or is too late."""

from __future__ import annotations

import time
import uuid
from collections import deque
from functools import partial

import grpc
from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import DecisionKind
from manaforge.v1.gateway_pb2 import SeatView

from gateway.cli.asking import Out
from gateway.cli.console import Console, Ended, EndOfInput, Line, Said, Update
from gateway.cli.reconnect import Reconnector
from gateway.cli.table import choose
from gateway.cli.words import Screen
from gateway.client import Client, pack

REMIND = 10.0  # seconds left on the seat's clock when the person is reminded (when more than twice this was left)
TURN = DecisionKind.DECISION_KIND_TURN


def is_same_decision(asked: SeatView, view: SeatView) -> bool:
    """Whether `view` still asks the seat what `asked` did: the same version, or another seat's move at a decision
    taken at the same time (a vote, a response window) that left this seat's choices exactly as they were."""
    if view.version == asked.version:
        return True
    return (
        asked.pending.kind != TURN
        and view.pending.kind == asked.pending.kind
        and asked.seat in view.pending.seats
        and view.legal_actions == asked.legal_actions
    )


class Superseded(Exception):
    """The decision being asked about is gone: the updates that say how wait in the inbox."""


class Deciding:
    """Asking a seat's decision and sending the move; the state is a Sitting's (sitting.py sets it up)."""

    client: Client
    table_id: str
    token: str
    console: Console
    out: Out
    link: Reconnector
    screen: Screen
    inbox: deque[gw.WatchUpdate]
    typed: deque[str]
    input_ended: bool
    known: int
    latest: SeatView | None
    asked: SeatView | None
    prompt: str | None
    remind_at: float | None
    ended: bool

    def _decide(self, view: SeatView) -> None:
        """Ask for a move and send it, until one lands, or the decision is gone."""
        self.asked = view
        self._remind(view)
        while True:
            try:
                action = choose(view, self._ask, self.out, self.screen)
            except Superseded:
                return
            request = gw.SubmitActionRequest(
                table_id=self.table_id,
                seat_token=self.token,
                action=pack(action),
                client_action_id=uuid.uuid4().hex,  # one id for every try: a move that landed is not made twice
                # a turn is taken on the board as seen; a vote or an answer may cross other seats' moves (as the page)
                expected_version=view.version if view.pending.kind == TURN else None,
            )
            try:
                done = self.link.call(
                    partial(self.client.stub.SubmitAction, request), back="the gateway is back: your move was sent"
                )
            except grpc.RpcError as exc:
                if exc.code() == grpc.StatusCode.ABORTED or self._moved_on(view, exc):  # the next updates show where to
                    self.out("Too late: the game moved on before your move arrived, so it was not made.")
                    return
                self.out(f"refused: {exc.details()}")
                continue
            self.asked = None
            self.known = max(self.known, done.version)  # an update from before it (a stream resumed) asks nothing
            return

    def _moved_on(self, view: SeatView, refused: grpc.RpcError) -> bool:
        """Whether a vote or an answer (sent without the version it was chosen at) was refused because the decision
        was gone by the time it came (the seat's clock decided), not for a rule of its own."""
        if refused.code() != grpc.StatusCode.FAILED_PRECONDITION or view.pending.kind == TURN:
            return False
        return bool(self.link.call(lambda: self.client.view(self.table_id, self.token)).version > view.version)

    def _remind(self, view: SeatView) -> None:
        """Remind the person of the seat's clock before it runs out (when the decision has a clock, not too short)."""
        mine = [d.at for d in view.deadlines if d.seat == view.seat]
        self.remind_at = mine[0] - REMIND if mine and mine[0] - time.time() > 2 * REMIND else None

    def _ask(self, prompt: str) -> str:
        """The next line typed, the question on screen meanwhile; raises Superseded when an update takes the decision
        away, EOFError when nothing more can be typed."""
        if self.typed:  # typed ahead: shown after its question, as if typed there
            typed = self.typed.popleft()
            self.console.write(f"{prompt}{typed}\n")
            return typed
        if self.input_ended:
            raise EOFError
        self.prompt = prompt
        self.console.write(prompt)
        try:
            while True:
                item = self.console.next(self._until_reminder())
                if item is None:
                    self.remind_at = None
                    self._interject(f"  {REMIND:g} s left on your clock, then the clock decides for you")
                elif isinstance(item, Line):
                    return item.text
                elif isinstance(item, EndOfInput):
                    self.input_ended = True
                    self.out("")
                    raise EOFError
                elif isinstance(item, Update):
                    view = item.update.view
                    if self.asked is None or not is_same_decision(self.asked, view):
                        self.inbox.append(item.update)
                        self.out("")
                        raise Superseded
                    said = (f"  * {self.screen.event(event.text)}" for event in item.update.events)
                    self._interject(*said)  # the same decision: the question stands
                    if view.version > self.asked.version:  # another seat's move (e.g. its vote) left it as it was
                        self.asked = self.latest = view
                        self.known = max(self.known, view.version)
                        self._remind(view)
                elif isinstance(item, Said):
                    self._interject(item.text)
                else:
                    self._ended(item)
                    self.out("")
                    raise Superseded
        finally:
            self.prompt = None

    def _until_reminder(self) -> float | None:
        """Seconds until the person is reminded of the seat's clock (None: no reminder to come)."""
        return None if self.remind_at is None else max(0.0, self.remind_at - time.time())

    def _interject(self, *lines: str) -> None:
        """Lines said while a question is on screen: below it, then the question again."""
        if not lines:
            return
        self.out("")
        for line in lines:
            self.out(line)
        if self.prompt is not None:
            self.console.write(self.prompt)

    def _ended(self, item: Ended) -> None:
        """The updates ended: with an error (raised), or at the end of the game."""
        if item.error is not None:
            raise item.error
        self.ended = True
