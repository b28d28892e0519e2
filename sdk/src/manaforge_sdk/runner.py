"""The bot runner: a bot is one function from the seat's view and its legal actions to an action; the runner plays
the seat to the end of the game and returns the outcome.

It follows the seat's updates (Watch, resumed after the last one across a gateway's restart) and, whenever the game
waits for the seat at a version it has not acted at yet, asks the bot and submits the move with one client action
id, and on a turn the version it was chosen at (`expected_version`, as the browser and terminal clients send it): a
vote or an answer to a response window is sent without it, so another seat's vote landing first does not refuse it.
A move sent while the gateway is away is sent again with the same id, so it lands once; a move the game no longer
waits for (the seat's clock ran out and decided for it) is refused, changes nothing, and the runner goes on with the
next update.

A bot function that raises is logged (the `manaforge_sdk.runner` logger, with the table, seat and version) and asked
once more for the same decision; when it raises again the runner stops playing the seat and returns a failed Result
(`error`): the platform's stand-in plays the seat for the rest of the game, as for a player who left.

`serve` runs a bot account: it takes challenges from its event stream and plays each game that starts with `play`;
it always returns once `games` games are over for it, failed ones included."""

from __future__ import annotations

import logging
import queue
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc
from google.protobuf.message import Message
from manaforge.v1.common_pb2 import DecisionKind, Outcome
from manaforge.v1.gateway_pb2 import Challenge, PlayerEvent, SeatView, SubmitActionResponse, WatchUpdate

from manaforge_sdk.errors import IllegalAction, ManaforgeError
from manaforge_sdk.messages import unpack

TURN = DecisionKind.DECISION_KIND_TURN
TRIES = 2  # calls of a bot that raises for one decision before the seat is left to the platform's stand-in
log = logging.getLogger(__name__)

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
    # Why the runner stopped playing the seat before the game ended (the bot raised twice for one decision, or the
    # game's thread in `serve` failed): the platform's stand-in plays it to the end; "" when the bot played it out.
    error: str = ""

    @property
    def failed(self) -> bool:
        """The runner left the seat before the game ended (`error` says why); the outcome is the game's then."""
        return bool(self.error)

    @property
    def won(self) -> bool:
        """The seat is among the winners (a shared win counts)."""
        return self.seat in self.outcome.winners

    def __str__(self) -> str:
        if self.failed:
            return f"seat {self.seat} failed: {self.error} (the platform's stand-in plays the seat)"
        winners = list(self.outcome.winners)
        verdict = "won" if self.won and len(winners) == 1 else "shared the win" if self.won else "lost"
        if not winners:
            verdict = "drew"
        scores = " to ".join(f"{s:g}" for s in self.outcome.scores)
        return f"seat {self.seat} {verdict}{f', {scores}' if scores else ''} ({self.outcome.reason})"


class Events(Protocol):
    """A player's event stream (`Client.events`, an EventStream): iterate it; `cancel()` ends the iteration."""

    def __iter__(self) -> Iterator[PlayerEvent]: ...

    def cancel(self) -> None: ...


class Gateway(Protocol):
    """What the runner asks of a client: `Client` is one. The runner takes the client it is given, so it imports no
    client (client.py imports the runner for `Client.play` and `Client.serve`)."""

    def view(self, table_id: str, seat_token: str = "") -> SeatView: ...

    def watch(self, table_id: str, seat_token: str = "", *, with_text: bool = True) -> Iterator[WatchUpdate]: ...

    def submit(
        self,
        table_id: str,
        seat_token: str,
        action: Message,
        *,
        client_action_id: str = "",
        expected_version: int | None = None,
    ) -> SubmitActionResponse: ...

    def events(self, after: str = "") -> Events: ...

    def accept(self, challenge_id: str) -> Challenge: ...

    def decline(self, challenge_id: str, reason: str = "generic", text: str = "") -> Challenge: ...


def legal_actions(view: SeatView) -> list[tuple[Message, str]]:
    """The seat's legal actions, each unpacked into the game's action message, with its text."""
    return [(unpack(legal.action), legal.text) for legal in view.legal_actions]


def play(client: Gateway, table_id: str, seat_token: str, bot: Bot) -> Result:
    """Play the seat to the end of the game; returns its Result. A bot that raises twice for one decision ends the
    runner's play at once: the Result is failed (`error`), the stand-in plays the seat for the rest of the game.
    Raises SeatTokenRefused for a token that holds no seat at the table, TableNotFound for an unknown table,
    IllegalAction when the rules refuse the bot's action, GatewayLost when no gateway answered for the client's
    patience."""
    seat = client.view(table_id, seat_token).seat  # checks the token at once (and brings an away seat back)
    for_seat = getattr(bot, "for_seat", None)
    if callable(for_seat):  # a bot that needs its seat number (envs.bridge.policy_bot): the function for this seat
        bot = for_seat(seat)
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
        try:
            action = _ask(bot, view, seat)
        except BotFailed as failed:
            return Result(table_id, seat, view.outcome, moves, error=str(failed))
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


class BotFailed(Exception):
    """The bot function raised at each of its tries for one decision (the runner's own: `play` returns a failed
    Result)."""


def _ask(bot: Bot, view: SeatView, seat: int) -> Message:
    """The bot's action for the decision of `view`. A bot that raises is asked again (on a fresh copy of the view),
    up to TRIES times in all, each failure logged with the table, seat and version; then BotFailed."""
    where = f"table {view.table_id}, seat {seat}, version {view.version}"
    failure: Exception | None = None
    for tries in range(1, TRIES + 1):
        try:
            return bot(unpack(view.view), legal_actions(view))
        except Exception as error:
            failure = error
            then = "asking it again" if tries < TRIES else "the platform's stand-in plays the seat from now on"
            log.exception("the bot raised at %s (try %d of %d): %s", where, tries, TRIES, then)
    raise BotFailed(f"the bot raised at {where}, {TRIES} times: {type(failure).__name__}: {failure}") from failure


ChallengeMessage = Challenge
"""A challenge (the gateway's Challenge message): challenger_name, challenger_bot, config, others, time_control."""
Accept = Callable[[ChallengeMessage], bool]
"""Whether a bot account takes a challenge (the challenge: challenger, config, seats, clock)."""


def serve(
    client: Gateway,
    bot: Bot,
    *,
    max_games: int = 4,
    accept: Accept | None = None,
    games: int | None = None,
) -> list[Result]:
    """Run a bot account: follow its events, accept the challenges `accept` takes (all of them without it) while
    fewer than `max_games` of its games are under way, decline the others (as busy, or as not this game), and
    play every game that starts with `bot` (each on its own thread, with `play`). Returns the results once `games`
    games are over for it (None: never; stop it with Ctrl-C): played to their end, or failed (`Result.error`: the
    bot raised twice for one decision, or the game's thread hit any other error, logged with its table and seat),
    the platform's stand-in then playing the seat. The stream is resumed when the gateway restarts, and a game
    announced again is not played twice. Raises what ends the account's event stream (GatewayLost, ...)."""
    results: list[Result] = []
    started: set[str] = set()  # the tables whose games this runner has played or plays
    inbox: queue.SimpleQueue[PlayerEvent | Result | Exception | None] = queue.SimpleQueue()  # None: no more events
    events = client.events()

    def follow() -> None:
        try:
            for event in events:
                inbox.put(event)
            inbox.put(None)
        except Exception as error:
            inbox.put(error)

    def run(table_id: str, seat: int, token: str) -> None:
        try:
            result = play(client, table_id, token, bot)
        except BaseException as error:  # whatever it is, the game is over for this runner: serve() goes on
            log.exception("the runner stopped playing table %s, seat %d", table_id, seat)
            result = Result(table_id, seat, Outcome(), error=f"{type(error).__name__}: {error}")
        inbox.put(result)

    threading.Thread(target=follow, name="manaforge events", daemon=True).start()
    try:
        while games is None or len(results) < games:
            item = inbox.get()
            if item is None:
                break
            if isinstance(item, Exception):
                raise item
            if isinstance(item, Result):
                results.append(item)
                continue
            kind = item.WhichOneof("kind")
            if kind == "challenge_received":
                under_way = len(started) - len(results)
                _take(client, item.challenge_received, under_way, max_games, accept)
            elif kind == "game_started" and item.game_started.table_id not in started:
                game = item.game_started
                started.add(game.table_id)
                args = (game.table_id, game.seat, game.seat_token)
                threading.Thread(target=run, args=args, name=f"manaforge {game.table_id}", daemon=True).start()
    finally:
        events.cancel()
    return results


def _take(client: Gateway, challenge: Challenge, under_way: int, max_games: int, accept: Accept | None) -> None:
    """Accept the challenge, or decline it: busy with `max_games` games under way, or not a game `accept` takes."""
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
                raise  # NOT_FOUND, FAILED_PRECONDITION: expired or answered meanwhile, nothing to do


def _answer(decline: Callable[[str, str, str], Any], challenge_id: str, reason: str, text: str) -> None:
    try:
        decline(challenge_id, reason, text)
    except ManaforgeError as error:
        if error.code not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
            raise  # expired or answered meanwhile: nothing to do
