"""The paths between people in the browser: two people queued together both reach the table, a reload keeps the
place in the queue, "Fill with bots now" works at any moment; a made-up table link or a forged seat token ends in a
clear message; and the page's small faults (a guest name that is taken, the replay's step buttons, the phone lobby's
scroll, the web edge's log when a tab closes)."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from manaforge.v1 import gateway_pb2 as gw
from playwright.sync_api import Browser, BrowserContext, Page, expect

from deploy.launcher import Stack
from gateway.client import Client
from tests.browser.conftest import PHONE
from tests.browser.pages import accessibility_faults, create_table, join_queue, play_to_the_end, watch_calls


@pytest.fixture
def other(browser: Browser, web_stack: Stack) -> Iterator[Page]:
    """A second person: a browser context of their own (their own storage, their own guest name)."""
    made = browser.new_context(viewport=PHONE)
    made.set_default_timeout(20_000)
    opened = made.new_page()
    opened.goto(f"http://{web_stack.web_address}/")
    yield opened
    made.close()


def seat_of(page: Page) -> int:
    expect(page.get_by_text("You play as")).to_be_visible()
    return int(page.locator("p[data-seat]").get_attribute("data-seat") or "-1")


# ---------------------------------------------------------------------------------------------------- the queue


def test_two_people_queued_together_both_reach_the_table(page: Page, other: Page, client: Client) -> None:
    join_queue(page, "manufactory", 2)
    expect(page.get_by_role("status")).to_contain_text("1 waiting for Mishra's Manufactory")
    join_queue(other, "manufactory", 2)  # the match is made by this join: its answer carries the seat
    page.wait_for_url("**/#/table/*")
    other.wait_for_url("**/#/table/*", timeout=5_000)
    assert page.url.rsplit("/", 1)[1] == other.url.rsplit("/", 1)[1]
    assert {seat_of(page), seat_of(other)} == {0, 1}
    table = client.table(page.url.rsplit("/", 1)[1])
    assert all(s.name.startswith("guest-") for s in table.seats)


def test_a_reload_keeps_the_place_in_the_queue(page: Page, other: Page) -> None:
    join_queue(page, "blueprints", 2)
    expect(page.get_by_role("status")).to_contain_text("waiting for Urza's Blueprints")  # the place is taken
    page.reload()
    expect(page.get_by_role("status")).to_contain_text("waiting for Urza's Blueprints")
    join_queue(other, "blueprints", 2)
    page.wait_for_url("**/#/table/*")
    other.wait_for_url("**/#/table/*")
    assert {seat_of(page), seat_of(other)} == {0, 1}


def test_a_match_made_while_the_page_reloads_is_not_lost(page: Page, other: Page, client: Client) -> None:
    join_queue(page, "manasurge", 2)
    expect(page.get_by_role("status")).to_contain_text("1 waiting")
    ticket = json.loads(page.evaluate("localStorage.getItem('manaforge.ticket')"))
    page.goto("about:blank")  # the page is away (a reload, a closed tab) when the match is made
    join_queue(other, "manasurge", 2)
    other.wait_for_url("**/#/table/*")
    # the seat token was already handed to a WaitForMatch in the first answer: its holder may ask again
    again = client.stub.WaitForMatch(gw.WaitForMatchRequest(ticket_id=ticket["ticketId"], timeout_seconds=1))
    assert again.matched and again.seat_token
    page.go_back()
    page.wait_for_url("**/#/table/*")
    assert seat_of(page) + seat_of(other) == 1


def test_the_place_in_the_queue_goes_along_to_other_pages(page: Page, other: Page, client: Client) -> None:
    join_queue(page, "mana_burn", 2)
    expect(page.get_by_role("status", name="In the queue")).to_contain_text("1 waiting for MANA BURN")
    watched = client.create_table("manufactory", 2, bots={0: "random", 1: "random"}).table.table_id
    page.goto(page.url.split("#")[0] + f"#/table/{watched}")  # watching a game meanwhile
    expect(page.get_by_role("status", name="In the queue")).to_contain_text("waiting for MANA BURN")
    join_queue(other, "mana_burn", 2)
    page.wait_for_url(re.compile(r".*#/table/(?!" + watched + ")"))
    other.wait_for_url("**/#/table/*")
    assert page.url.rsplit("/", 1)[1] == other.url.rsplit("/", 1)[1] != watched
    assert seat_of(page) + seat_of(other) == 1
    expect(page.get_by_role("status", name="In the queue")).to_have_count(0)


def test_leaving_the_queue_on_purpose_leaves_it(page: Page, other: Page) -> None:
    join_queue(page, "magicka", 2)
    expect(page.get_by_role("status")).to_contain_text("1 waiting")
    page.get_by_role("button", name="Leave the queue").click()
    expect(page.get_by_role("form", name="Queue for a game")).to_be_visible()
    assert page.evaluate("localStorage.getItem('manaforge.ticket')") is None
    join_queue(other, "magicka", 2)
    expect(other.get_by_role("status")).to_contain_text("1 waiting")


def test_fill_with_bots_takes_everyone_waiting_to_the_table(page: Page, other: Page, client: Client) -> None:
    join_queue(page, "rnd", 3)
    join_queue(other, "rnd", 3)
    expect(other.get_by_role("status")).to_contain_text("2 waiting")
    other.get_by_role("button", name="Fill with bots now").click()
    page.wait_for_url("**/#/table/*")
    other.wait_for_url("**/#/table/*")
    assert {seat_of(page), seat_of(other)} == {0, 1}
    table = client.table(page.url.rsplit("/", 1)[1])
    assert table.started and table.seats[2].bot_level


# ---------------------------------------------------------------------------------------------------- bad links


def test_a_made_up_table_link_says_so_and_stops(page: Page, web_stack: Stack) -> None:
    calls = watch_calls(page)
    page.goto(f"http://{web_stack.web_address}/#/table/0123456789abcdef")
    expect(page.get_by_role("alert")).to_have_text(
        "No table 0123456789abcdef here: it may have finished and been removed. Back to the lobby"
    )
    assert accessibility_faults(page) == []
    time.sleep(3)
    expect(page.get_by_text("reconnecting")).to_have_count(0)
    expect(page.get_by_text("You play as")).to_have_count(0)
    assert len(calls) <= 1, calls


def test_a_link_too_long_to_be_a_table_says_so(page: Page, web_stack: Stack) -> None:
    calls = watch_calls(page)
    page.goto(f"http://{web_stack.web_address}/#/table/{'x' * 100}")
    expect(page.get_by_role("alert")).to_contain_text("This link names no table")
    time.sleep(2)
    assert len(calls) <= 1, calls


def test_a_replay_link_says_why_there_is_none(page: Page, web_stack: Stack, client: Client) -> None:
    page.goto(f"http://{web_stack.web_address}/#/replay/0123456789abcdef")
    expect(page.get_by_role("alert")).to_have_text(
        "No table 0123456789abcdef here: it may have finished and been removed. Back to the lobby"
    )
    playing = client.create_table("manufactory", 2, player_name="ann").table.table_id
    page.goto(f"http://{web_stack.web_address}/#/replay/{playing}")
    expect(page.get_by_role("alert")).to_have_text("This game is not over yet: its replay comes once it is. Watch it")
    page.get_by_role("link", name="Watch it").click()
    page.wait_for_url(f"**/#/table/{playing}")


def test_a_forged_seat_token_watches_instead(page: Page, web_stack: Stack, client: Client) -> None:
    created = client.create_table("manufactory", 2, bots={1: "random"}, player_name="ann")
    table_id = created.table.table_id
    page.evaluate(f"localStorage.setItem('manaforge.seat.{table_id}', JSON.stringify({{seat: 0, token: 'forged'}}))")
    calls = watch_calls(page)
    page.goto(f"http://{web_stack.web_address}/#/table/{table_id}")
    expect(page.get_by_role("alert")).to_contain_text("This link's seat is not yours: watching instead")
    expect(page.get_by_text("You are watching (the public view).")).to_be_visible()
    page.wait_for_selector(".board")
    time.sleep(2)
    expect(page.get_by_text("You play as")).to_have_count(0)
    expect(page.locator(".actions")).to_have_count(0)
    assert len(calls) == 2, calls  # the refused one, then one as a spectator
    assert page.evaluate(f"localStorage.getItem('manaforge.seat.{table_id}')") is None


# ---------------------------------------------------------------------------------------------------- small faults


def test_a_guest_name_that_is_taken_is_refused_when_chosen(page: Page, client: Client) -> None:
    taken = f"ann{uuid.uuid4().hex[:6]}"
    client.stub.RegisterPlayer(gw.RegisterPlayerRequest(name=taken))
    before = page.locator("#who").inner_text()
    page.get_by_label("Play as a guest named").fill(taken.upper())
    page.get_by_role("button", name="Use this name").click()
    expect(page.get_by_role("alert")).to_contain_text(f"{taken.upper()!r} is a registered player's")
    expect(page.locator("#who")).to_have_text(before)
    page.get_by_label("Play as a guest named").fill("bot")
    page.get_by_role("button", name="Use this name").click()
    expect(page.get_by_role("alert")).to_contain_text("'bot' looks like a bot's name")
    free = f"wisp{uuid.uuid4().hex[:6]}"
    page.get_by_label("Play as a guest named").fill(free)
    page.get_by_role("button", name="Use this name").click()
    expect(page.locator("#who")).to_have_text(f"Guest {free}")
    expect(page.get_by_role("alert")).to_have_count(0)


def test_the_phone_lobby_loads_at_the_top(page: Page) -> None:
    page.wait_for_selector("select[name=game] option", state="attached")
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") == 0
    expect(page.locator(".top")).to_be_in_viewport()


TOFU = """(selector) => {
  // Characters of the buttons' text that the browser draws as the missing-glyph box: each is drawn on a canvas in
  // the button's font and compared with a character no font here has (a private-use code point).
  const canvas = document.createElement("canvas"); canvas.width = 64; canvas.height = 64;
  const g = canvas.getContext("2d", { willReadFrequently: true });
  const draw = (ch, font) => {
    g.clearRect(0, 0, 64, 64); g.font = font; g.fillText(ch, 8, 40);
    return g.getImageData(0, 0, 64, 64).data.join();
  };
  const found = [];
  for (const button of document.querySelectorAll(selector)) {
    const font = getComputedStyle(button).font;
    const missing = draw("\\u{F0000}", font);
    for (const ch of button.innerText.replace(/\\s/g, "")) if (draw(ch, font) === missing) found.push(ch);
  }
  return found;
}"""


def test_the_replay_buttons_show_what_they_do(page: Page, web_stack: Stack) -> None:
    table_id = create_table(page, "manufactory", 2)
    play_to_the_end(page)
    page.goto(f"http://{web_stack.web_address}/#/replay/{table_id}")
    steps = page.get_by_role("navigation", name="Steps").get_by_role("button")
    expect(steps).to_have_count(4)
    assert page.evaluate(TOFU, ".stepper button") == []
    for button in steps.all():  # each shows a mark of its own, not an empty box
        box = button.locator("svg, span").first.bounding_box()
        assert box and box["width"] >= 8 and box["height"] >= 8
    page.get_by_role("button", name="Last move").click()
    expect(page.locator(".result")).to_be_visible()
    assert accessibility_faults(page) == []
    page.get_by_role("button", name="First move").click()
    expect(page.locator("output")).to_contain_text("0 of")


def test_a_closed_tab_leaves_no_traceback_in_the_edge_log(
    context: BrowserContext, web_stack: Stack, client: Client
) -> None:
    log = Path(web_stack.log_dir) / "web.log"
    start = log.stat().st_size if log.exists() else 0
    created = client.create_table("manufactory", 2, bots={1: "random"}, player_name="ann")
    tab = context.new_page()
    tab.goto(f"http://{web_stack.web_address}/#/table/{created.table.table_id}")
    tab.wait_for_selector(".board")  # the Watch stream is open
    tab.close()
    table_id, token = created.table.table_id, created.seat_token
    for _ in range(3):  # updates go out on the cut stream (the first may still fit in the socket's buffer)
        view = client.view(table_id, token)
        if view.legal_actions:
            client.submit(table_id, token, view.legal_actions[0].action, expected_version=view.version)
        time.sleep(0.5)
    written = log.read_bytes()[start:].decode() if log.exists() else ""
    assert "Traceback" not in written and "Error handling request" not in written, written[-2000:]
