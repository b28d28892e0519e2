"""A seat at a table, played in the terminal. The client follows the table's updates while the person decides: a
question whose decision is gone (the seat's clock ran out and a bot decided for it, another seat moved, the game
ended) is left at once, saying what happened and what to do, so a question is only ever asked about the decision the
game waits for now; the clock shown is the server's deadline of that decision."""

from __future__ import annotations

from collections import deque
from functools import partial

from manaforge.v1 import gateway_pb2 as gw
from manaforge.v1.common_pb2 import DecisionKind
from manaforge.v1.gateway_pb2 import SeatView

from gateway.cli.asking import Leave, Out
from gateway.cli.console import Console, Ended, EndOfInput, Item, Line, Said, Update
from gateway.cli.deciding import Deciding
from gateway.cli.reconnect import PATIENCE, Reconnector
from gateway.cli.table import WATCH_HELP, command, show, show_verdict
from gateway.cli.words import Screen, seat_names
from gateway.client import Client

TAKEOVER_AFTER = 3  # decisions run out in a row before a seat is away, when the table's clock does not say


def clock_of(table: gw.Table) -> float:
    """The seconds of one decision at the table (a bank clock's whole bank); 0 without a clock."""
    return table.time_control.bank_seconds or table.time_control.decision_seconds


class Sitting(Deciding):
    """One person's seat at one table: the updates followed, the questions asked (deciding.py), the answers sent."""

    def __init__(
        self,
        client: Client,
        table_id: str,
        token: str,
        console: Console,
        out: Out,
        patience: float,
        registered: bool,
        bell: bool = True,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.token = token
        self.console = console
        self.out = out
        self.registered = registered
        self.bell = bell  # the terminal's bell when the decision becomes ours after waiting (off: --quiet)
        self.waited = False  # the latest view taken in waited for another seat
        hint = f"The game goes on: come back with `manaforge rejoin {table_id}`."
        self.link = Reconnector(client, out, patience, hint=hint)  # the calls this thread makes
        self.stream = Reconnector(client, console.say, patience, hint=hint)  # the updates, read on their own thread
        self.table = self.link.call(lambda: client.table(table_id))
        self.screen = screen_of(client, self.table, self.link)
        self.bots = {s.seat for s in self.table.seats if s.kind == gw.SEAT_KIND_BOT}
        self.inbox: deque[gw.WatchUpdate] = deque()  # updates received, not yet taken in
        self.typed: deque[str] = deque()  # lines typed ahead of the question they answer
        self.input_ended = False
        self.known = 0  # the latest version known: of a view taken in, or made by our own move
        self.asked: SeatView | None = None  # the decision being asked about, or answered by a move not yet landed
        self.prompt: str | None = None  # the question on screen, waiting for its line
        self.remind_at: float | None = None  # when to remind the person of the clock of the decision asked about
        self.away = False  # the seat's clock ran out `takeover_after` times in a row: a bot plays it at once
        self.shown = -1  # the version last shown while another person decides
        self.ended = False  # the updates ended (the game is over)
        self.latest: SeatView | None = None  # the latest view taken in (what `v` and `i` look at)
        self.lines: list[str] = []  # the table's lines as last shown (an answer window shows only what changed)

    # -- the game, update by update -------------------------------------------------------------------------------

    def run(self) -> None:
        """Follow the table to its end, or until the person leaves (raises Leave)."""
        if not self.table.started:
            open_seats = sum(s.kind == gw.SEAT_KIND_OPEN for s in self.table.seats)
            self.out(f"waiting for {open_seats} more player(s): others join with `manaforge join {self.table_id}`")
            self.waited = True  # for the people to come: the first decision rings
        self.console.follow(self.stream.follow(self.table_id, self.token))
        try:
            while updates := self._updates():
                if self._take(updates):
                    return
        finally:
            self.stream.stop()

    def _take(self, updates: list[gw.WatchUpdate]) -> bool:
        """Show what the updates say and act on the latest view; True when the game is over."""
        self.screen.me = updates[-1].view.seat
        for update in updates:
            for event in update.events:
                self.out(f"  * {self.screen.event(event.text)}")
            if self.asked is not None and update.view.version > self.asked.version:
                self._decided_without_us(self.asked, update)
                self.asked = None
        view = updates[-1].view
        if view.version < self.known:
            return False  # older than the game is known to be (our move landed since): only its events were new
        self.known = view.version
        self.latest = view
        if not self.table.started and view.version > 0:  # the game has begun: every seat is taken, names known
            self._look_at_table()
        if view.outcome.finished:
            self._look_at_table()
            show(view, self.out, self.screen)
            return True
        if self.away:
            return False
        if not view.legal_actions:
            self.waited = True
            humans = [s for s in view.pending.seats if s not in self.bots and s != view.seat]
            if humans and view.version != self.shown:  # another human decides: show what they are looking at
                self.shown = view.version
                self.lines = show(view, self.out, self.screen)
            return False
        self.shown = view.version
        if self.waited and self.bell:
            self.console.write("\a")  # the decision became ours: a person looking elsewhere hears it
        self.waited = False
        answering = view.pending.kind == DecisionKind.DECISION_KIND_RESPONSE and not view.outcome.finished
        self.lines = show(view, self.out, self.screen, since=self.lines if answering else ())
        self._decide(view)
        return False

    def _look_at_table(self) -> None:
        self.table = self.link.call(lambda: self.client.table(self.table_id))
        self.screen.names = seat_names(self.table)

    def _decided_without_us(self, asked: SeatView, update: gw.WatchUpdate) -> None:
        """The decision at `asked` was made before our move (`update` is the first to show it): when it was made for
        our seat (its time ran out), say so, what was decided, and how the seat becomes away and comes back."""
        me = asked.seat
        acted = [e for e in update.events if e.version == asked.version + 1]
        ours = [e for e in acted if e.HasField("actor") and e.actor == me]
        if not ours and list(asked.pending.seats) != [me]:
            return  # another seat's move came first (a decision taken at the same time): the events say it
        what = "; ".join(self.screen.say(e.text, capital=False) for e in ours or acted)
        what = f": {what}" if what else ""
        if asked.pending.kind == DecisionKind.DECISION_KIND_RESPONSE:
            self.out(f"Your time to answer ran out, so the rules answered for you{what}.")
            return
        self._look_at_table()
        self.out(f"Your time ran out, so a bot decided for you{what}.")
        if self.table.seats[me].away:
            self.away = True
            self.out(
                "You are marked away: a bot now plays your seat at once, decision after decision."
                " Type anything (Enter) to come back."
            )
        else:
            after = self.table.time_control.takeover_after or TAKEOVER_AFTER
            self.out(
                f"After {after} in a row your seat is marked away: a bot then plays it at once"
                " until you type something."
            )

    # -- waiting --------------------------------------------------------------------------------------------------

    def _updates(self) -> list[gw.WatchUpdate]:
        """The updates received (at least one, waiting for it), all of them: only the latest view is acted on, so a
        decision that is gone is never asked about. Lines typed meanwhile wait for their question, or, when the seat
        is away, bring it back. Empty when the updates ended."""
        while not self.inbox and not self.ended:
            self._receive(self.console.next())
        while (item := self.console.next(0)) is not None:  # and all that came with it
            self._receive(item)
        updates = list(self.inbox)
        self.inbox.clear()
        return updates

    def _receive(self, item: Item | None) -> None:
        """Take in an item that came while no question is asked."""
        if isinstance(item, Update):
            self.inbox.append(item.update)
        elif isinstance(item, Line):
            self._typed(item.text)
        elif isinstance(item, EndOfInput):
            self.input_ended = True
        elif isinstance(item, Said):
            self.out(item.text)
        elif isinstance(item, Ended):
            self._ended(item)

    def _typed(self, text: str) -> None:
        """A line typed while no question is asked: a line that asks the terminal something (h, v, i, r) is
        answered at once; it brings an away seat back (q leaves); any other line waits for the next question."""
        asked = command(text, self.latest, self.screen, self.out)
        if not self.away:
            if not asked:
                self.typed.append(text)
            return
        if text.strip().lower() == "q":
            raise Leave
        # any call with the seat's token brings the seat back, its clock in full again
        view = self.link.call(lambda: self.client.view(self.table_id, self.token))
        self.away = False
        clock = clock_of(self.table)
        self.out(f"You are back: your clock runs again{f' ({clock:g} s a decision)' if clock else ''}.")
        self.inbox.append(gw.WatchUpdate(seq=view.seq, view=view))

    # -- leaving --------------------------------------------------------------------------------------------------

    def leave(self) -> None:
        """Say what leaving means now: the game is over, or it goes on without the person, and how to come back."""
        came = [item.update.view for item in iter(partial(self.console.next, 0), None) if isinstance(item, Update)]
        if any(view.outcome.finished for view in came):  # it ended as the person left
            show(next(view for view in came if view.outcome.finished), self.out, self.screen)
            self.out(f"\nyou left table {self.table_id}; the game is over.")
            return
        clock = clock_of(self.table)
        after = self.table.time_control.takeover_after or TAKEOVER_AFTER
        meanwhile = (
            f"when your clock runs out a bot decides for your seat, and after {after} in a row at once"
            if clock
            else "it waits for your seat"
        )
        where = "" if self.registered else " from this machine (register to come back from anywhere)"
        self.out(
            f"\nyou left table {self.table_id}; the game goes on: {meanwhile}."
            f" Come back with `manaforge rejoin {self.table_id}`{where}."
        )


def play(
    client: Client,
    table_id: str,
    token: str,
    console: Console | None = None,
    out: Out = print,
    patience: float = PATIENCE,
    registered: bool = False,
    bell: bool = True,
) -> None:
    """Follow the table as this seat; ask for a move whenever one is ours (ringing the terminal's bell when it
    became ours after waiting, unless `bell` is off); show the table while a human decides. Across a restart of the
    gateway, every call is made again and the updates resume after the last one shown."""
    sitting = Sitting(client, table_id, token, console or Console(), out, patience, registered, bell)
    try:
        sitting.run()
    except Leave:
        sitting.leave()
        return
    show_verdict(client, table_id, out, sitting.link)


def screen_of(client: Client, table: gw.Table, link: Reconnector) -> Screen:
    """What the terminal shows of `table`: its seats by name; its cards' facts (GetCatalogue) and its game's
    how-to-play page (ListGames), each asked once, when first needed."""

    def guide() -> str:
        games = link.call(client.games)
        return next((info.how_to_play for info in games if info.name == table.config.game), "")

    return Screen(
        game=table.config.game,
        names=seat_names(table),
        catalogue=lambda: link.call(lambda: client.catalogue(table.config)),
        guide=guide,
    )


def watch(client: Client, table_id: str, console: Console | None = None, out: Out = print) -> None:
    """Follow a game as a spectator (the public view) to its end, answering h, v, i and r as they are typed."""
    console = console or Console()
    link = Reconnector(client, out)
    screen = screen_of(client, link.call(lambda: client.table(table_id)), link)
    stream = Reconnector(client, console.say)
    console.follow(stream.follow(table_id))
    latest: SeatView | None = None
    try:
        while True:
            item = console.next()
            if isinstance(item, Update):
                latest = item.update.view
                for event in item.update.events:
                    out(f"  * {screen.event(event.text)}")
                show(latest, out, screen)
            elif isinstance(item, Line):
                if item.text.strip() and not command(item.text, latest, screen, out, WATCH_HELP):
                    out("h: what you can type while watching")
            elif isinstance(item, Said):
                out(item.text)
            elif isinstance(item, Ended):
                if item.error is not None:
                    raise item.error
                break
    finally:
        stream.stop()
    show_verdict(client, table_id, out, link)
