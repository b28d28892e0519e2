"""Your turn, wherever you are (issue 47 item 6, docs/browser.md): a page in the background says when the decision
becomes its player's (the title and the icon, a short sound) and is itself again once looked at; the sound can be
turned off in the settings panel; the lobby's "Your games" lists the player's tables with whose turn it is, and
follows a turn as it comes. In the terminal, the bell rings when the decision becomes yours after waiting, unless
--quiet.

A page is put in the background the way a hidden tab looks to it: document.hidden and visibilityState overridden,
then a visibilitychange event; it comes back with the overrides removed, a visibilitychange and a focus event."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from deploy.launcher import Stack
from tests.browser.conftest import PHONE
from tests.browser.pages import accessibility_faults, create_table, make_decision
from tests.stack.test_terminal_games import spawn

SHOTS = Path(os.environ.get("MANAFORGE_SHOTS", "/tmp/manaforge-shots"))
DESK = ViewportSize(width=1280, height=800)
HIDE = """() => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  delete document.hidden;
  delete document.visibilityState;
  document.dispatchEvent(new Event("visibilitychange"));
  window.dispatchEvent(new Event("focus"));
}"""


@pytest.fixture
def two(browser: Browser, web_stack: Stack) -> Iterator[tuple[Page, Page]]:
    contexts = [browser.new_context(viewport=PHONE) for _ in range(2)]
    pages = []
    for context in contexts:
        context.set_default_timeout(20_000)
        page = context.new_page()
        page.goto(f"http://{web_stack.web_address}/")
        pages.append(page)
    yield pages[0], pages[1]
    for context in contexts:
        context.close()


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png")


def name_of(page: Page) -> str:
    return page.locator("#who strong").inner_text()


def register(page: Page, prefix: str) -> str:
    name = f"{prefix}{uuid.uuid4().hex[:6]}"
    page.get_by_label("or register a name (for ratings)").fill(name)
    page.get_by_role("button", name="Register").click()
    expect(page.get_by_text(f"Registered as {name}.")).to_be_visible()
    return name


def sit_down_together(ann: Page, bob: Page) -> str:
    """Ann creates a cardbench table with a seat open; Bob joins it from his lobby's list. Both at the table."""
    table_id = create_table(ann, "cardbench", 2, "open")
    waiting = bob.locator("section[aria-labelledby=waiting] li").filter(has_text=name_of(ann))
    waiting.get_by_role("button", name="Join").click()  # the lobby's list is read again every 5 s
    bob.wait_for_url(f"**/#/table/{table_id}")
    expect(bob.locator("p[data-seat]")).to_have_attribute("data-seat", "1")
    ann.wait_for_selector(".actions .choices button:enabled")  # seat 0 moves first
    return table_id


def hide(page: Page) -> None:
    page.evaluate(HIDE)


def come_back(page: Page) -> None:
    page.evaluate(SHOW)


def counted(page: Page, what: str) -> int:
    return int(page.evaluate(f"document.documentElement.dataset.{what} ?? '0'"))


def badge(page: Page) -> str:
    return page.locator("link[rel=icon]").get_attribute("data-badge") or ""


def test_a_background_tab_says_your_turn_until_looked_at_and_its_sound_can_be_turned_off(
    two: tuple[Page, Page],
) -> None:
    ann, bob = two
    sit_down_together(ann, bob)
    own_title = bob.title()
    assert own_title == "cardbench — Manaforge" or own_title.endswith(" — Manaforge")
    hide(bob)
    make_decision(ann)  # now it is Bob's turn, while he looks elsewhere
    expect(bob).to_have_title(f"(Your turn) {own_title}")
    assert badge(bob) == "turn"
    assert counted(bob, "turnNotices") == 1
    assert counted(bob, "turnSounds") == 1
    come_back(bob)
    expect(bob).to_have_title(own_title)
    assert badge(bob) == ""

    make_decision(bob)  # looked at, Bob plays; then turns the sound off in the settings panel, with the keyboard
    bob.get_by_role("button", name="Settings").focus()
    bob.keyboard.press("Enter")
    panel = bob.locator("#settings-panel")
    expect(panel).to_be_visible()
    assert accessibility_faults(bob) == []
    sound = panel.get_by_label("Play a short sound")
    expect(sound).to_be_checked()
    sound.focus()
    bob.keyboard.press("Space")
    expect(sound).not_to_be_checked()
    bob.context.grant_permissions(["notifications"])  # as the person allows them when the browser asks
    notify = panel.get_by_label("Show a browser notification when this tab is hidden")
    expect(notify).not_to_be_checked()  # off until turned on
    notify.check()
    expect(notify).to_be_checked()
    bob.keyboard.press("Escape")
    expect(panel).to_have_count(0)
    expect(bob.get_by_role("button", name="Settings")).to_be_focused()
    assert bob.evaluate("JSON.parse(localStorage.getItem('manaforge.settings'))") == {
        "sound": False,
        "title": True,
        "notify": True,
    }
    assert counted(bob, "turnNotifications") == 0

    hide(bob)
    make_decision(ann)
    expect(bob).to_have_title(f"(Your turn) {own_title}")
    assert counted(bob, "turnNotices") == 2
    assert counted(bob, "turnSounds") == 1  # the sound is off: none played
    assert counted(bob, "turnNotifications") == 1  # the tab is hidden: a notification
    come_back(bob)
    expect(bob).to_have_title(own_title)


def test_your_games_say_whose_turn_it_is_and_follow_a_turn_as_it_comes(two: tuple[Page, Page]) -> None:
    ann, bob = two
    register(ann, "ann")
    bob_name = name_of(bob)
    table_id = sit_down_together(ann, bob)
    make_decision(ann)  # Bob's turn
    ann.goto(ann.url.split("#")[0] + "#/")
    mine = ann.locator(f"section[aria-labelledby=mine] li[data-table='{table_id}']")
    expect(mine).to_contain_text(f"waiting for {bob_name}")
    expect(mine).not_to_contain_text("your turn")

    bob.goto(bob.url.split("#")[0] + "#/")  # a guest's games: the seats this browser holds
    his = bob.locator(f"section[aria-labelledby=mine] li[data-table='{table_id}']")
    expect(his).to_contain_text("your turn")
    expect(his).to_have_class("your-turn")
    his.get_by_role("link", name="Play").click()
    bob.wait_for_url(f"**/#/table/{table_id}")

    hide(ann)  # Ann's lobby in the background: the turn comes on her Events stream
    make_decision(bob)
    expect(mine).to_contain_text("your turn")
    expect(ann).to_have_title("(Your turn) cardbench — Manaforge")
    come_back(ann)
    expect(ann).to_have_title("Manaforge")
    assert accessibility_faults(ann) == []

    for page, viewport, suffix in ((ann, DESK, ""), (ann, PHONE, "-phone")):
        page.set_viewport_size(viewport)
        page.evaluate("window.scrollTo(0, 0); document.activeElement?.blur()")
        shoot(page, f"your-games{suffix}")
        page.get_by_role("button", name="Settings").click()
        expect(page.locator("#settings-panel")).to_be_visible()
        shoot(page, f"settings{suffix}")
        page.keyboard.press("Escape")


def test_the_terminal_rings_its_bell_when_the_decision_becomes_yours_unless_quiet(
    web_stack: Stack, tmp_path: Path
) -> None:
    ann = spawn(web_stack, tmp_path / "ann", "play", "cardbench", "--open", "--name", "ann")
    ann.expect(r"table (\w+): you are seat 0")
    table_id = ann.group(1)
    ann.expect("waiting for 1 more player")
    bob = spawn(web_stack, tmp_path / "bob", "join", table_id, "--name", "bob", "--quiet")
    bob.expect("Waiting for ann: ")
    ann.expect("\x07")  # Ann waited for Bob: the decision is hers now, and her terminal rings
    ann.expect("Your turn: ")
    ann.expect("your move> ")
    ann.sendline("1")
    bob.expect("Your turn: ")
    bob.expect("your move> ")
    assert "\x07" not in bob.seen.getvalue()  # --quiet: no bell
    bob.sendline("1")
    ann.expect("\x07")  # and again after Bob's move
    ann.expect("Your turn: ")
    for terminal in (ann, bob):
        terminal.child.terminate(force=True)
