"""The bot runner: a bot is one function from the seat's view and its legal actions to an action; the runner plays
the seat to the end of the game and returns the outcome.

It follows the seat's updates (Watch, resumed after the last one across a gateway's restart) and, whenever the game
waits for the seat at a version it has not acted at yet, asks the bot and submits the move with one client action
id, and on a turn the version it was chosen at (`expected_version`, as the browser and terminal clients send it): a
vote or an answer to a response window is sent without it, so another seat's vote landing first does not refuse it.
A move sent while the gateway is away is sent again with the same id, so it lands once; a move the game no longer
waits for (the seat's clock ran out and decided for it) is refused, changes nothing, and the runner goes on with the
next update.

`serve` runs a bot account: it takes challenges from its event stream and plays each game that starts with `play`."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message
from manaforge.v1.common_pb2 import DecisionKind, Outcome
from manaforge.v1.gateway_pb2 import Challenge, SeatView

from manaforge_sdk.client import Client
from manaforge_sdk.errors import IllegalAction, ManaforgeError
from manaforge_sdk.messages import unpack

TURN = DecisionKind.DECISION_KIND_TURN

View = Message
"""The game's state message as one seat sees it (e.g. a CardbenchState): hidden cards removed."""
Action = Message
"""One of the game's action messages (e.g. a CardbenchAction)."""
LegalActions = list[tuple[Message, str]]
"""The seat's legal actions now: (the action message, what it does in words)."""
Bot = Callable[[Any, Any], Message]  # Any: a bot may name its game's own classes (CardbenchState, ...)
"""(the seat's view: the game's state message as the seat sees it, the legal actions: (action message, its text))
-> the action to take (one of the legal ones; in a game with free text, such as R&D's card names, any of its kind)."""


@dataclass(frozen=True)
class Result:
    """How a game ended for one seat."""

    table_id: str
    seat: int
    outcome: Outcome  # winners, scores (per seat) and the reason, in words
    moves: list[str] = field(default_factory=list)  # the client action ids of the moves the bot made, in order

    @property
    def won(self) -> bool:
        """The seat is among the winners (a shared win counts)."""
        return self.seat in self.outcome.winners

    def __str__(self) -> str:
        winners = list(self.outcome.winners)
        verdict = "won" if self.won and len(winners) == 1 else "shared the win" if self.won else "lost"
        if not winners:
            verdict = "drew"
        scores = " to ".join(f"{s:g}" for s in self.outcome.scores)
        return f"seat {self.seat} {verdict}{f', {scores}' if scores else ''} ({self.outcome.reason})"


def legal_actions(view: SeatView) -> list[tuple[Message, str]]:
    """The seat's legal actions, each unpacked into the game's action message, with its text."""
    return [(unpack(legal.action), legal.text) for legal in view.legal_actions]


def play(client: Client, table_id: str, seat_token: str, bot: Bot) -> Result:
    """Play the seat to the end of the game; returns its Result. Raises SeatTokenRefused for a token that holds no
    seat at the table, TableNotFound for an unknown table, IllegalAction when the rules refuse the bot's action,
    GatewayLost when no gateway answered for the client's patience."""
    seat = client.view(table_id, seat_token).seat  # checks the token at once (and brings an away seat back)
    moves: list[str] = []
    acted = -1  # the version the bot last decided at
    known = 0  # the latest version known: of an update, or made by our own move
    for update in client.watch(table_id, seat_token, with_text=False):
        view = update.view
        if view.version < known:
            continue  # from before our own move (a stream resumed): nothing to do
        known = view.version
        if view.outcome.finished:
            return Result(table_id, seat, view.outcome, moves)
        if not view.legal_actions or view.version <= acted:
            continue
        acted = view.version
        action = bot(unpack(view.view), legal_actions(view))
        move_id = uuid.uuid4().hex  # one id for every try of this move: it lands once
        expected = view.version if view.pending.kind == TURN else None  # a vote may cross other seats' votes
        try:
            done = client.submit(table_id, seat_token, action, client_action_id=move_id, expected_version=expected)
        except ManaforgeError as error:
            if error.code == grpc.StatusCode.ABORTED:
                continue  # the game moved on first (the seat's clock decided): the next update says where to
            late = expected is None and error.code == grpc.StatusCode.FAILED_PRECONDITION
            if late and client.view(table_id, seat_token).version > view.version:
                continue  # the decision was gone when the move came (the clock decided): the updates say how
            if error.code == grpc.StatusCode.FAILED_PRECONDITION:
                raise IllegalAction(
                    f"the bot's action was refused at table {table_id}, version {view.version}: {error.details}",
                    error.code,
                    error.details,
                ) from error
            raise
        moves.append(move_id)
        known = max(known, done.version)
    final = client.view(table_id, seat_token)
    if final.outcome.finished:
        return Result(table_id, seat, final.outcome, moves)
    raise ManaforgeError(f"the updates of table {table_id} ended before the game did (version {final.version})")


ChallengeMessage = Challenge
"""A challenge (the gateway's Challenge message): challenger_name, challenger_bot, config, others, time_control."""
Accept = Callable[[ChallengeMessage], bool]
"""Whether a bot account takes a challenge (the challenge: challenger, config, seats, clock)."""


def serve(
    client: Client,
    bot: Bot,
    *,
    max_games: int = 4,
    accept: Accept | None = None,
    games: int | None = None,
) -> list[Result]:
    """Run a bot account: follow its events, accept the challenges `accept` takes (all of them without it) while
    fewer than `max_games` of its games are under way, decline the others (as busy, or as not this game), and
    play every game that starts with `bot` (each on its own thread, with `play`). Returns the results once `games`
    games have ended (None: never; stop it with Ctrl-C). The stream is resumed when the gateway restarts, and a
    game announced again is not played twice."""
    results: list[Result] = []
    playing: dict[str, threading.Thread] = {}
    lock = threading.Lock()

    def run(table_id: str, token: str) -> None:
        result = play(client, table_id, token, bot)
        with lock:
            results.append(result)

    for event in client.events():
        kind = event.WhichOneof("kind")
        if kind == "challenge_received":
            challenge = event.challenge_received
            under_way = sum(thread.is_alive() for thread in playing.values())
            if under_way >= max_games:
                _answer(client.decline, challenge.challenge_id, "busy", f"playing {under_way} games already")
            elif accept is not None and not accept(challenge):
                _answer(client.decline, challenge.challenge_id, "game", "")
            else:
                try:
                    client.accept(challenge.challenge_id)
                except ManaforgeError as error:
                    if error.code == grpc.StatusCode.FAILED_PRECONDITION and error.details.startswith("busy"):
                        _answer(client.decline, challenge.challenge_id, "busy", error.details[:200])
                    elif error.code not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                        raise  # expired or answered meanwhile: nothing to do
        elif kind == "game_started" and event.game_started.table_id not in playing:
            started = event.game_started
            thread = threading.Thread(target=run, args=(started.table_id, started.seat_token), daemon=True)
            playing[started.table_id] = thread
            thread.start()
        elif kind == "game_ended" and event.game_ended.table_id in playing:
            playing[event.game_ended.table_id].join()
            if games is not None and len(results) >= games:
                break
    return results


def _answer(decline: Callable[[str, str, str], Any], challenge_id: str, reason: str, text: str) -> None:
    try:
        decline(challenge_id, reason, text)
    except ManaforgeError as error:
        if error.code not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
            raise  # expired or answered meanwhile: nothing to do
