"""The page for everyone: axe-core finds no serious or critical accessibility fault in the lobby (every game's table
and the replay are audited where their tests draw them), and a whole game is played with the keyboard alone."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from gateway.client import Client
from tests.browser.pages import accessibility_faults, join_queue, version


def test_the_lobby_has_no_serious_accessibility_fault(page: Page) -> None:
    page.wait_for_selector("select[name=game] option", state="attached")
    assert accessibility_faults(page) == []
    page.get_by_label("Play as a guest named").fill("bot")  # with a refusal said
    page.get_by_role("button", name="Use this name").click()
    expect(page.get_by_role("alert")).to_be_visible()
    join_queue(page, "manasurge", 5)  # and a place in a queue (five seats: nobody else queues for that)
    expect(page.get_by_role("status", name="In the queue")).to_be_visible()
    assert accessibility_faults(page) == []
    page.get_by_role("button", name="Leave the queue").click()


def tab_to(page: Page, selector: str, presses: int = 80) -> None:
    """Press Tab until the focus is on an element matching `selector`."""
    for _ in range(presses):
        if page.evaluate("s => !!document.activeElement?.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{presses} presses of Tab never reached {selector}")


def test_a_whole_game_with_the_keyboard_alone(page: Page, client: Client) -> None:
    page.wait_for_selector("select[name=game] option[value=manufactory]", state="attached")
    tab_to(page, "select[name=game]")
    page.keyboard.type("Mishra")  # a select's own keys: the option whose title starts so
    expect(page.locator("select[name=game]")).to_have_value("manufactory")
    tab_to(page, "form[aria-label='Create a table'] button")
    page.keyboard.press("Enter")
    page.wait_for_url("**/#/table/*")
    table_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("[data-seat='0']")).to_contain_text("You play as")
    made = 0
    while True:
        page.wait_for_selector(".result, .actions .choices button:enabled")
        if page.locator(".result").count():
            break
        before = version(page)
        tab_to(page, ".actions .choices button:enabled")
        page.keyboard.press("Enter")
        if page.get_by_text("which one?").count():
            tab_to(page, ".actions .choices button:enabled")
            page.keyboard.press("Enter")
        page.wait_for_function(
            "v => document.querySelector('.result') || document.querySelector('.board').dataset.version !== v",
            arg=before,
        )
        made += 1
    assert made == sum(1 for a in client.log(table_id).actions if a.seat == 0) > 0
    tab_to(page, ".result a")  # and on to the replay
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/#/replay/{table_id}")
