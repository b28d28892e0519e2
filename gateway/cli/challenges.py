"""Challenges in the terminal (registered players): challenge a player by name and wait for the answer, list the
challenges waiting, accept (then play, as `play` does) or decline with a reason; the lobby waits for challenges and
answers them as they come; at a table, a challenge that comes is announced between the table's lines.

Everything a player is told comes from their Events stream (the gateway's per-player stream): opened before a
challenge is made, so its answer cannot be missed; followed again after its last cursor when the gateway goes away."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import grpc
from manaforge.v1 import gateway_pb2 as gw

from engine_core import find_game
from engine_core.errors import UnknownGameError
from gateway.cli.console import Console, EndOfInput, Line, Said
from gateway.cli.reconnect import BACKOFF, is_away
from gateway.client import Client

Out = Callable[[str], None]
Sit = Callable[[str, str], None]  # sit at (table id, seat token) and play

# The reasons a person may give, as typed, and as the challenger reads them ("busy" is the server's, for bot accounts).
REASONS = {
    "generic": gw.DECLINE_REASON_GENERIC,
    "later": gw.DECLINE_REASON_LATER,
    "game": gw.DECLINE_REASON_GAME,
    "clock": gw.DECLINE_REASON_TIME_CONTROL,
    "no_bots": gw.DECLINE_REASON_NO_BOTS,
}
REASON_WORDS = {
    gw.DECLINE_REASON_UNSPECIFIED: "no reason given",
    gw.DECLINE_REASON_GENERIC: "no reason given",
    gw.DECLINE_REASON_BUSY: "busy: at its limit of games under way",
    gw.DECLINE_REASON_LATER: "not now",
    gw.DECLINE_REASON_GAME: "not this game",
    gw.DECLINE_REASON_TIME_CONTROL: "not this clock",
    gw.DECLINE_REASON_NO_BOTS: "does not play bot accounts",
}
LOBBY_HELP = """In the lobby, type:
  l                 the challenges waiting for your answer
  a N               accept challenge N: you sit at its table and play
  d N [WHY] [TEXT]  decline it; WHY is one of later, game, clock, no_bots (default: none given), TEXT your words
  q                 leave the lobby (Ctrl-D too)"""


def config_words(challenge: gw.Challenge) -> str:
    """ "cardbench, 2 seats, turn_limit=15, 60 s a decision" """
    words = [challenge.config.game, f"{challenge.config.seats} seats"]
    words += [
        f"{name}={value}" for name, value in sorted(challenge.config.options.items()) if not is_default(challenge, name)
    ]
    clock = challenge.time_control
    if clock.bank_seconds:
        words.append(f"a {clock.bank_seconds:g} s bank (+{clock.increment_seconds:g} s a move)")
    elif clock.decision_seconds:
        words.append(f"{clock.decision_seconds:g} s a decision")
    levels = [seat.bot_level or "random" for seat in challenge.others if seat.bot]
    if levels:
        words.append(f"{len(levels)} bot{'s' if len(levels) > 1 else ''} ({', '.join(sorted(set(levels)))})")
    if open_seats := len(challenge.others) - len(levels):
        words.append(f"{open_seats} open seat{'s' if open_seats > 1 else ''}")
    return ", ".join(words)


def is_default(challenge: gw.Challenge, option: str) -> bool:
    """The option has the game's default value (said of a challenge only when it differs)."""
    try:
        options = find_game(challenge.config.game).info.options
    except UnknownGameError:
        return False
    return any(o.name == option and o.default == challenge.config.options[option] for o in options)


def challenger_words(challenge: gw.Challenge) -> str:
    return challenge.challenger_name + (" (bot account)" if challenge.challenger_bot else "")


def expires_in(challenge: gw.Challenge) -> str:
    return f"{max(0, round(challenge.expires_at - time.time()))} s"


def received_line(challenge: gw.Challenge) -> str:
    who, what = challenger_words(challenge), config_words(challenge)
    return f"{who} challenges you: {what} (expires in {expires_in(challenge)})"


def declined_line(challenge: gw.Challenge) -> str:
    said = f"{challenge.challenged_name} declined your challenge ({config_words(challenge)}): "
    said += REASON_WORDS.get(challenge.reason, "no reason given")
    return said + (f' — "{challenge.reason_text}"' if challenge.reason_text else "")


class Events:
    """The player's Events stream, followed across a gateway's restarts (after the last cursor received)."""

    def __init__(self, client: Client, timeout: float | None = None) -> None:
        self.client = client
        self.cursor = ""
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.stopped = False
        self._call: grpc.CallIterator[gw.PlayerEvent] | None = None
        self._lock = threading.Lock()
        self._stream = self._open()  # open now: nothing that happens from here on is missed

    def _open(self) -> Iterator[gw.PlayerEvent]:
        timeout = None if self.deadline is None else max(0.1, self.deadline - time.monotonic())
        with self._lock:
            if self.stopped:
                return iter(())
            self._call = self.client.stub.Events(gw.EventsRequest(after=self.cursor), timeout=timeout)
        stream = iter(self._call)
        opening = next(stream)  # the bare cursor: the stream is live
        self.cursor = self.cursor or opening.cursor
        return stream

    def __iter__(self) -> Iterator[gw.PlayerEvent]:
        tries = 0
        while not self.stopped:
            try:
                for event in self._stream:
                    tries = 0
                    if event.cursor:
                        self.cursor = event.cursor
                    yield event
                return
            except grpc.RpcError as error:
                if self.stopped or error.code() == grpc.StatusCode.CANCELLED:
                    return
                if not is_away(error):
                    raise
                time.sleep(BACKOFF[min(tries, len(BACKOFF) - 1)])
                tries += 1
                try:
                    self._stream = self._open()
                except grpc.RpcError as again:
                    if not is_away(again):
                        raise
                    self._stream = iter(())

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            if self._call is not None:
                self._call.cancel()  # type: ignore[no-untyped-call]


class Announcer:
    """Says each challenge that comes while the person does something else (sits at a table, waits in the lobby),
    through `say` (a Console's: between the table's lines), on a thread of its own; `seen` gets each one first."""

    def __init__(self, client: Client, say: Out, seen: Callable[[gw.Challenge], str] | None = None) -> None:
        self.say = say
        self.seen = seen or (lambda c: f"`manaforge accept {c.challenge_id}` or `manaforge decline {c.challenge_id}`")
        self.events = Events(client)
        threading.Thread(target=self._run, name="challenges", daemon=True).start()

    def _run(self) -> None:
        try:
            for event in self.events:
                kind = event.WhichOneof("kind")
                if kind == "challenge_received":
                    challenge = event.challenge_received
                    self.say(f"** {received_line(challenge)}: {self.seen(challenge)}")
                elif kind == "challenge_declined":
                    self.say(f"** {declined_line(event.challenge_declined)}")
        except grpc.RpcError:
            pass  # the announcements stop; what the person is doing goes on

    def stop(self) -> None:
        self.events.stop()


def announce_at_table(client: Client, console: Console) -> Callable[[], None]:
    """Challenges that come to a registered player at a table are said between its lines; returns the stop."""
    try:
        announcer = Announcer(
            client,
            console.say,
            lambda c: f"after this game, `manaforge accept {c.challenge_id}` (or decline)",
        )
    except grpc.RpcError:
        return lambda: None  # no announcements (an old gateway, a stream limit): the game is what matters
    return announcer.stop


def challenge(client: Client, request: gw.CreateChallengeRequest, out: Out, sit: Sit) -> None:
    """Challenge a player and wait for the answer: accepted, sit at the table; declined, say why; no answer before
    it expires, say so."""
    events = Events(client)
    try:
        made = client.stub.CreateChallenge(request)
    except BaseException:
        events.stop()
        raise
    if made.status == gw.CHALLENGE_STATUS_DECLINED:  # a bot account at its limit declines at once
        events.stop()
        out(declined_line(made))
        return
    who = made.challenged_name
    out(
        f"challenge {made.challenge_id} sent to {who}: {config_words(made)}. Waiting for {who}'s answer (expires in"
        f" {expires_in(made)}; Ctrl-C stops waiting, the challenge stays until then)..."
    )
    timer = threading.Timer(max(0.0, made.expires_at - time.time()) + 1.0, events.stop)
    timer.daemon = True
    timer.start()
    answer: gw.Challenge | None = None
    try:
        for event in events:
            kind = event.WhichOneof("kind")
            if kind in ("challenge_accepted", "challenge_declined"):
                answered: gw.Challenge = getattr(event, kind)
                if answered.challenge_id == made.challenge_id:
                    answer = answered
                    break
                if kind == "challenge_declined":
                    out(declined_line(answered))
            elif kind == "challenge_received":
                out(f"meanwhile, {received_line(event.challenge_received)}")
    except KeyboardInterrupt:
        out(
            f"\nyou stopped waiting; challenge {made.challenge_id} stays open for {expires_in(made)}: if {who} accepts,"
            " `manaforge mine` lists the table and `manaforge rejoin TABLE` seats you"
        )
        return
    finally:
        timer.cancel()
        events.stop()
    if answer is None:
        out(f"{who} did not answer: the challenge expired")
    elif answer.status == gw.CHALLENGE_STATUS_DECLINED:
        out(declined_line(answer))
    else:
        joined = client.stub.RejoinTable(gw.RejoinTableRequest(table_id=answer.table_id))
        out(f"{who} accepted: table {answer.table_id}, you are seat {joined.seat}")
        sit(answer.table_id, joined.seat_token)


def list_challenges(client: Client, out: Out) -> None:
    listed = client.stub.ListChallenges(gw.ListChallengesRequest())
    if not listed.received and not listed.sent:
        out("no challenges waiting: challenge a player with `manaforge challenge NAME GAME`")
    if listed.received:
        out("Waiting for your answer (`manaforge accept ID`, `manaforge decline ID [WHY] [TEXT]`):")
    for c in listed.received:
        out(f"  {c.challenge_id}  from {challenger_words(c)}: {config_words(c)}, expires in {expires_in(c)}")
    if listed.sent:
        out("Waiting for their answer:")
    for c in listed.sent:
        out(f"  {c.challenge_id}  to {c.challenged_name}: {config_words(c)}, expires in {expires_in(c)}")


def accept(client: Client, challenge_id: str, out: Out, sit: Sit) -> None:
    accepted = client.stub.AcceptChallenge(gw.AcceptChallengeRequest(challenge_id=challenge_id))
    joined = client.stub.RejoinTable(gw.RejoinTableRequest(table_id=accepted.table_id))
    out(f"you accepted {challenger_words(accepted)}'s challenge: table {accepted.table_id}, you are seat {joined.seat}")
    sit(accepted.table_id, joined.seat_token)


def decline(client: Client, challenge_id: str, reason: str, text: str, out: Out) -> None:
    request = gw.DeclineChallengeRequest(challenge_id=challenge_id, reason=REASONS[reason], text=text)
    declined = client.stub.DeclineChallenge(request)
    out(f"you declined {challenger_words(declined)}'s challenge ({config_words(declined)}): they are told")


def refuse(client: Client, words: list[str], out: Out) -> None:
    """`all`: refuse every challenge; `none`: take them all again; games' names: refuse those games' (instead of
    those refused before); nothing: say what is refused."""
    if words:
        everyone, games = words == ["all"], [] if words in (["all"], ["none"]) else words
        accept_from = gw.CHALLENGES_FROM_NOBODY if everyone else gw.CHALLENGES_FROM_EVERYONE
        request = gw.ChallengePreferences(accept_from=accept_from, refused_games=games)
        preferences = client.stub.SetChallengePreferences(request)
    else:
        preferences = client.stub.GetChallengePreferences(gw.GetChallengePreferencesRequest())
    if preferences.accept_from == gw.CHALLENGES_FROM_NOBODY:
        out("you refuse every challenge (`manaforge refuse none` takes them again)")
    elif preferences.refused_games:
        out(f"you refuse challenges for {', '.join(preferences.refused_games)}; you take the others")
    else:
        out("you take every challenge")


def split_reason(words: list[str]) -> tuple[str, str]:
    """ "later not tonight" -> ("later", "not tonight"); "not tonight" -> ("generic", "not tonight")."""
    if words and words[0].lower() in REASONS:
        return words[0].lower(), " ".join(words[1:])
    return "generic", " ".join(words)


class Lobby:
    """Waiting for challenges: each is announced with a number as it comes, and answered by it."""

    def __init__(self, client: Client, out: Out, console: Console) -> None:
        self.client = client
        self.out = out
        self.console = console
        self.table: tuple[str, str] | None = None  # the table of the challenge accepted: (table id, seat token)
        self.numbers: dict[str, int] = {}
        self.waiting: dict[int, gw.Challenge] = {}
        self._lock = threading.Lock()

    def _number(self, c: gw.Challenge) -> str:
        with self._lock:
            number = self.numbers.setdefault(c.challenge_id, len(self.numbers) + 1)
            self.waiting[number] = c
        return f"`a {number}` accepts, `d {number} [WHY] [TEXT]` declines"

    def run(self) -> tuple[str, str] | None:
        """Wait and answer until the person leaves (None) or accepts a challenge: (table id, seat token)."""
        announcer = Announcer(self.client, self.console.say, self._number)
        self.out("In the lobby: challenges to you are announced here as they come (h: help, q: leave).")
        self.console.listen()
        try:
            while True:
                item = self.console.next()
                if isinstance(item, Said):
                    self.out(item.text)
                elif isinstance(item, EndOfInput):
                    return None
                elif isinstance(item, Line) and self._typed(item.text.split()):
                    return self.table
        finally:
            announcer.stop()

    def _sit(self, table_id: str, token: str) -> None:
        self.table = (table_id, token)

    def _typed(self, words: list[str]) -> bool:
        """Act on a typed line; True when the lobby is left (to play, or for good)."""
        if not words:
            return False
        command, rest = words[0].lower(), words[1:]
        if command in ("q", "quit"):
            return True
        if command in ("l", "list"):
            with self._lock:
                waiting = sorted(self.waiting.items())
            for number, c in waiting:
                self.out(f"  {number}. {received_line(c)}")
            if not waiting:
                self.out("no challenges waiting for your answer")
            return False
        if command in ("a", "d") and rest and rest[0].isdigit():
            with self._lock:
                found = self.waiting.pop(int(rest[0]), None)
            if found is None:
                self.out(f"no challenge {rest[0]} is waiting: `l` lists them")
                return False
            c = found
            try:
                if command == "a":
                    accept(self.client, c.challenge_id, self.out, self._sit)
                    return True
                decline(self.client, c.challenge_id, *split_reason(rest[1:]), self.out)
            except grpc.RpcError as exc:
                self.out(f"{exc.details()}")
            return False
        self.out(LOBBY_HELP)
        return False
