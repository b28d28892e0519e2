"""Two people playing each other in the browser, as people play: both queue for a game, both reach the table, they
click their decisions, one closes the page mid-game and comes back by the table's link, and the game finishes. A
short clock (the platform's default on this module's stack) keeps long games moving: what a person leaves undecided
is decided by the clock, and its bot plays a seat that let three decisions run out."""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import grpc
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client
from tests.browser.conftest import PHONE
from tests.browser.pages import accessibility_faults, choose, create_table, join_queue, make_decision, offered, version

CLOCK = 3.0  # seconds per decision, the default clock of every table on this module's stack


@pytest.fixture(scope="module")
def clock_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_BOT_TIME_CAP": "0.2", "MANAFORGE_DECISION_SECONDS": str(CLOCK)}
    logs = str(tmp_path_factory.mktemp("clock-stack-logs"))
    with Stack(gateways=1, response_timeout=1.0, web_port=0, settings=settings, log_dir=logs) as running:
        yield running


@pytest.fixture
def client(clock_stack: Stack) -> Iterator[Client]:
    with Client(clock_stack.gateway_addresses[0]) as made:
        yield made


@dataclass
class Person:
    """One person: a browser context of their own (storage, guest name) and the page they have open."""

    context: BrowserContext
    page: Page
    clicks: int = 0
    clicked_at = ""  # the board's version when this person last clicked a decision

    def click(self) -> bool:
        """Click the decision the page offers, if it offers a new one (the answer is not waited for)."""
        if self.page.is_closed() or not offered(self.page) or version(self.page) == self.clicked_at:
            return False
        self.clicked_at = version(self.page)
        try:
            choose(self.page, timeout=2000)
        except PlaywrightError:  # the decision went away first (the clock made it): there is a next one
            return False
        self.clicks += 1
        return True

    def open(self, address: str) -> None:
        self.page = self.context.new_page()
        self.page.goto(address)

    @property
    def seat(self) -> int:
        return int(self.page.locator("p[data-seat]").get_attribute("data-seat") or "-1")

    def at_the_table(self) -> bool:
        return self.seat >= 0 if self.page.locator("p[data-seat]").count() else False

    def status(self) -> str:
        found = self.page.get_by_role("status", name="In the queue")
        return found.inner_text() if found.count() else ""


@pytest.fixture
def crowd(browser: Browser, clock_stack: Stack) -> Iterator[Callable[[], Person]]:
    """People, each in a browser context of their own, on the lobby."""
    contexts: list[BrowserContext] = []

    def person() -> Person:
        context = browser.new_context(viewport=PHONE)
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        page.goto(f"http://{clock_stack.web_address}/")
        return Person(context, page)

    yield person
    for context in contexts:
        context.close()


Step = Iterator[None]  # a scenario advances a little at each step: several run side by side


def until(condition: Callable[[], object], patience: float = 60.0) -> Step:
    deadline = time.monotonic() + patience
    while not condition():
        assert time.monotonic() < deadline, "waited in vain"
        yield


def clicking(people: list[Person], done: Callable[[], object], clicks: int | None = None) -> Step:
    """The people click their decisions as their pages offer them (each at most `clicks` more), until `done()`."""
    limit = {id(p): p.clicks + (clicks if clicks is not None else 10**6) for p in people}
    deadline = time.monotonic() + 90
    while not done():
        assert time.monotonic() < deadline, "the game did not move on"
        for person in people:
            if person.clicks < limit[id(person)]:
                person.click()
        yield


def side_by_side(scenarios: dict[str, Step]) -> None:
    """Run the scenarios a step each in turn until all are done (their clocks run at the same time)."""
    running = dict(scenarios)
    while running:
        for name, scenario in list(running.items()):
            try:
                next(scenario)
            except StopIteration:
                del running[name]
            except Exception as failed:
                raise AssertionError(f"{name}: {failed}") from failed
        time.sleep(0.02)


def two_people(game: str, ann: Person, bob: Person, client: Client) -> Step:
    """Both queue for `game` and reach the table; they click a few decisions each; bob closes the page and the clock
    decides for the seat until it is away (a bot plays it at once); bob comes back by the table's link and is told
    what was decided meanwhile; they play to the end (a long game: a few more decisions each, then the clock's)."""
    seats, clicks = GAMES[game]
    join_queue(ann.page, game, seats)
    yield from until(lambda: "1 waiting" in ann.status())
    join_queue(bob.page, game, seats)
    if seats > 2:
        yield from until(lambda: "2 waiting" in bob.status())
        bob.page.get_by_role("button", name="Fill with bots now").click()
    yield from until(lambda: ann.at_the_table() and bob.at_the_table())
    table_id = ann.page.url.rsplit("/", 1)[1]
    assert bob.page.url.rsplit("/", 1)[1] == table_id
    assert {ann.seat, bob.seat} == {0, 1}
    link, seat = bob.page.url, bob.seat

    def over() -> bool:
        return client.table(table_id).outcome.finished

    yield from clicking([ann, bob], lambda: over() or min(ann.clicks, bob.clicks) >= 2)
    away_already = client.table(table_id).seats[seat].away  # (a slow click let the clock take the seat: said live)
    bob.page.close()
    yield from clicking([ann], lambda: over() or client.table(table_id).seats[seat].away)
    if not over():
        yield from until(lambda: "away" in ann.page.locator(".seatbar li").nth(seat).inner_text(), 10)
    bob.open(link)
    yield from until(bob.at_the_table)
    assert bob.seat == seat
    notice = bob.page.get_by_role("status", name="Your clock")
    back_in_time = not bob.page.locator(".result").count()
    if back_in_time:
        yield from until(lambda: notice.count())
        said = notice.inner_text()
        assert "You are back" in said if away_already else "While you were gone, the clock decided for you" in said
        assert not client.table(table_id).seats[seat].away
    yield from clicking([ann, bob], over, clicks=clicks)
    for person in (ann, bob):
        yield from until(lambda: person.page.locator(".result h2").count(), 30)  # noqa: B023 (used at once)
        result = person.page.locator(".result h2").inner_text()  # R&D is cooperative: everyone wins, or nobody
        assert re.match("You (won|lost|tied)|A cooperative game", result), result
    # the people's own clicks landed (a page's move has a random id; the clock's are named for it)
    log = client.log(table_id)
    clicked = [
        sum(1 for a in log.actions if a.seat == s and re.fullmatch("[0-9a-f]{32}", a.client_action_id)) for s in (0, 1)
    ]
    assert min(clicked) >= 2 and (clicked[seat] >= 3 or not back_in_time), clicked


# game: seats (three: the two people fill the third with a bot), decisions each person makes after coming back
# before leaving the rest to the clock (None: all, to the end)
GAMES = {
    "manufactory": (2, None),
    "rnd": (3, None),
    "manasurge": (2, 2),
    "blueprints": (2, 2),
    "mana_burn": (2, 2),
    "magicka": (2, 2),
}


def test_two_people_queue_play_leave_come_back_and_finish_every_game(
    crowd: Callable[[], Person], client: Client
) -> None:
    side_by_side({game: two_people(game, crowd(), crowd(), client) for game in GAMES})


def test_the_clock_says_what_it_decided_and_how_to_come_back(crowd: Callable[[], Person], client: Client) -> None:
    page = crowd().page
    table_id = create_table(page, "manufactory", 2, others="open")  # the platform's default clock: CLOCK seconds
    token = client.join(table_id, "bob").seat_token
    stop = threading.Event()

    def bob() -> None:  # the other player, quick but not instant: the page keeps up with the game
        while not stop.is_set():
            view = client.view(table_id, token)
            if view.outcome.finished:
                return
            if 1 in view.pending.seats and view.legal_actions:
                time.sleep(0.5)
                with contextlib.suppress(grpc.RpcError):
                    client.submit(table_id, token, view.legal_actions[0].action, expected_version=view.version)
            time.sleep(0.1)

    playing = threading.Thread(target=bob)
    playing.start()
    try:
        timer = page.get_by_role("timer", name=re.compile("^you:"))
        expect(timer).to_have_attribute("aria-label", re.compile(rf"^you: [0-{int(CLOCK)}] seconds? left"))
        notice = page.get_by_role("status", name="Your clock")
        expect(notice).to_contain_text("Your time ran out: the clock decided for you: ", timeout=CLOCK * 1000 + 3000)
        expect(notice).to_contain_text("After 3 in a row, a bot plays your seat")
        expect(notice).to_contain_text("You are away", timeout=CLOCK * 3000 + 5000)
        assert client.table(table_id).seats[0].away
        assert accessibility_faults(page) == []
        notice.get_by_role("button", name="I'm back").click()
        expect(notice).to_contain_text("You are back: your clock runs in full again.")
        assert not client.table(table_id).seats[0].away
        make_decision(page)  # the player's own move: the notice has done its work
        expect(page.get_by_role("status", name="Your clock")).to_have_count(0)
    finally:
        stop.set()
        playing.join(10)
