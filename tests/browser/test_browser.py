"""The browser client in a real browser (headless Chromium): whole games against bots, a spectator following a
game, a rejoin after a reload, the lobby's queue and open tables, and a board for every game."""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from deploy.launcher import Stack
from gateway.client import Client
from tests.browser.pages import (
    DECISION,
    WRITTEN_NAME,
    accessibility_faults,
    create_table,
    decide,
    pick_first,
    play_to_the_end,
    version,
)
from tests.browser.words import log_line


@pytest.fixture
def client(web_stack: Stack) -> Client:
    return Client(web_stack.gateway_addresses[0])


@pytest.mark.parametrize(("game", "seats"), [("manufactory", 2), ("rnd", 3)])
def test_a_whole_game_against_bots(page: Page, client: Client, game: str, seats: int) -> None:
    table_id = create_table(page, game, seats)
    expect(page.locator("[data-seat='0']")).to_contain_text("You play as")
    assert page.locator(".card").count() > 0, "the board draws its cards"
    made = play_to_the_end(page)
    table = client.table(table_id)
    assert table.outcome.finished and made == sum(1 for a in client.log(table_id).actions if a.seat == 0)
    verdict = "You won" if 0 in table.outcome.winners else "You lost"
    if len(table.outcome.winners) > 1 and 0 in table.outcome.winners:
        verdict = "You tied"
    if game == "rnd":  # a cooperative game: everyone wins together (games/rnd.ts)
        verdict = "A cooperative game: every player is a winner"
    expect(page.locator(".result h2")).to_contain_text(verdict)
    if game == "rnd":  # the writer's words are on the designed card
        expect(page.locator(".design").filter(has_text=WRITTEN_NAME)).to_have_count(1)
    # the replay, step by step, says what the log says
    page.get_by_role("link", name="Replay this game step by step").click()
    log = client.log(table_id)
    expect(page.locator("output")).to_have_text(f"0 of {len(log.actions)}")
    expect(page.locator(".board")).to_have_attribute("data-version", "0")  # the board as dealt
    page.get_by_role("button", name="Next move").click()
    expect(page.locator(".current")).to_contain_text(log.actions[0].text)
    expect(page.locator(".board")).to_have_attribute("data-version", "1")
    page.get_by_role("button", name="Last move").click()
    expect(page.locator(".result h2")).to_contain_text(re.compile("winner"))
    expect(page.locator(".board")).to_have_attribute("data-version", str(len(log.actions)))
    expect(page.locator(".result")).to_contain_text("Replay check: valid")


def test_a_spectator_follows_a_game(context: BrowserContext, web_stack: Stack, client: Client) -> None:
    created = client.create_table("manufactory", 2, bots={1: "random"}, player_name="ann")
    table_id, token = created.table.table_id, created.seat_token
    watcher = context.new_page()
    watcher.goto(f"http://{web_stack.web_address}/#/table/{table_id}")
    expect(watcher.get_by_text("You are watching (the public view).")).to_be_visible()
    expect(watcher.locator(".actions")).to_have_count(0)
    while not (view := client.view(table_id, token)).outcome.finished:
        if 0 in view.pending.seats:
            done = client.submit(table_id, token, view.legal_actions[0].action, expected_version=view.version)
            # the page follows live: the board shows the version this move made, or a later one
            watcher.wait_for_function(
                "v => Number(document.querySelector('.board')?.dataset.version) >= v", arg=done.version
            )
        else:
            time.sleep(0.05)  # a bot's move
    expect(watcher.locator(".result h2")).to_contain_text("Game over")
    winners = ", ".join("ann" if w == 0 else client.table(table_id).seats[w].name for w in view.outcome.winners)
    expect(watcher.locator(".result h2")).to_contain_text(winners)


def test_a_player_takes_the_seat_again_after_a_reload(page: Page, client: Client) -> None:
    name = f"web{uuid.uuid4().hex[:8]}"
    page.get_by_label("or register a name (for ratings)").fill(name)
    page.get_by_role("button", name="Register").click()
    expect(page.locator("#who")).to_contain_text(f"Signed in as {name}")
    table_id = create_table(page, "manufactory", 2)
    assert decide(page)
    expect(page.locator(".error")).to_have_count(0)
    page.reload()  # the seat token kept by this browser
    expect(page.locator("[data-seat='0']")).to_contain_text("You play as")
    assert decide(page)
    expect(page.locator(".error")).to_have_count(0)
    # without the token (another browser of the same player): RejoinTable gives the seat again
    page.evaluate(f"localStorage.removeItem('manaforge.seat.{table_id}')")
    page.reload()
    expect(page.locator("[data-seat='0']")).to_contain_text("You play as")
    assert decide(page)
    expect(page.locator(".error")).to_have_count(0)  # each of the three moves was taken
    table = client.table(table_id)
    assert table.seats[0].name == name and table.seats[0].player_id


def test_the_lobby_queues_and_joins_open_tables(page: Page, client: Client) -> None:
    form = page.get_by_role("form", name="Queue for a game")
    page.select_option("select[name=game]", "manufactory")
    form.get_by_label("Seats", exact=True).fill("2")
    form.get_by_role("button", name="Join the queue").click()
    expect(page.get_by_role("status")).to_contain_text("waiting for Mishra's Manufactory")
    page.get_by_role("button", name="Fill with bots now").click()
    page.wait_for_url("**/#/table/*")
    expect(page.locator("[data-seat='0']")).to_contain_text("You play as")
    page.wait_for_selector(".actions .choices button")
    # a table someone opened, joined from the list
    opened = client.create_table("blueprints", 2, player_name="bob")
    page.goto(page.url.split("#")[0] + "#/")
    waiting = page.locator(".tables li").filter(has_text="bob")
    waiting.get_by_role("button", name="Join").first.click()
    page.wait_for_url(f"**/#/table/{opened.table.table_id}")
    expect(page.locator("[data-seat='1']")).to_contain_text("You play as")
    assert client.table(opened.table.table_id).started


GAMES = ["manufactory", "blueprints", "rnd", "manasurge", "mana_burn", "magicka"]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_board_of_cards(page: Page, game: str) -> None:
    create_table(page, game, 3 if game == "rnd" else 2)
    page.wait_for_selector(".card")
    names = page.locator(".card .card-name").all_inner_texts()
    assert names and not [n for n in names if re.fullmatch(r"card \d+", n)], names
    assert decide(page)  # and its actions are things to click
    page.wait_for_selector(".actions .choices button:enabled, .actions form textarea")
    assert accessibility_faults(page) == []  # the table as its player sees it, choices and all


def test_a_long_list_of_actions_comes_in_two_steps(page: Page) -> None:
    create_table(page, "magicka", 2)  # the first wizard's first turn: every exchange of its hand
    group = page.locator(".actions .choices button").filter(has_text="ways)").first
    expect(group).to_be_visible()
    ways = int(re.findall(r"\((\d+) ways\)", group.inner_text())[0])
    group.click()
    expect(page.get_by_text("which one?")).to_be_visible()
    expect(page.locator(".actions .choices button")).to_have_count(ways)
    before = version(page)
    page.locator(".actions .choices button").last.click()
    page.wait_for_function("v => document.querySelector('.board').dataset.version !== v", arg=before)
    expect(page.locator(".error")).to_have_count(0)


def test_a_game_goes_on_through_a_gateway_restart(page: Page, web_stack: Stack, client: Client) -> None:
    table_id = create_table(page, "manufactory", 2)
    assert decide(page)
    page.wait_for_selector(".actions .choices button:enabled")  # this seat's turn: the page waits on its Watch
    before = version(page)
    stopping = web_stack.processes["gateway-0"]
    stopping.terminate()  # SIGTERM: the gateway drains, ending the page's Watch with where to resume
    stopping.wait(10)
    connection = page.locator(".connection")
    expect(connection).to_have_text("The gateway is restarting: reconnecting…")
    pick_first(page)  # a move made while it is away is sent once it is back
    expect(connection).to_have_text("The gateway is restarting: reconnecting…")
    web_stack.restart("gateway-0")  # started again on the same port
    expect(connection).to_have_text("The gateway restarted: reconnected, nothing missed.")
    page.wait_for_function("v => document.querySelector('.board').dataset.version !== v", arg=before)
    expect(page.locator(".error")).to_have_count(0)
    # What happened: every event this seat may see, once and in order (the server's own list, from the start)
    page.wait_for_selector(DECISION)
    held = json.loads(page.evaluate(f"localStorage.getItem('manaforge.seat.{table_id}')"))
    everything = next(client.watch(table_id, held["token"]))
    assert str(everything.view.version) == version(page)
    names = [seat.name for seat in client.table(table_id).seats]
    expect(page.locator(".log li")).to_have_text([log_line(e.text, names, 0) for e in everything.events][-12:])
    play_to_the_end(page)
    assert client.table(table_id).outcome.finished
    assert client.log(table_id).actions[int(before)].seat == 0  # the move made while away landed, once
