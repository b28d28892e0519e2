"""Challenges in the browser (docs/browser.md): two registered players on two pages; one challenges the other by
name, the other sees it come live (their Events stream through the web edge), accepts, and both are taken to the
table, where a move shows on both pages; a declined challenge's reason is read by the challenger."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from deploy.launcher import Stack
from tests.browser.conftest import PHONE
from tests.browser.pages import accessibility_faults, make_decision, offered, version

SHOTS = Path(os.environ.get("MANAFORGE_SHOTS", "/tmp/manaforge-shots"))


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{name}.png", full_page=True)


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


def register(page: Page, prefix: str) -> str:
    name = f"{prefix}{uuid.uuid4().hex[:6]}"
    page.get_by_label("or register a name (for ratings)").fill(name)
    page.get_by_role("button", name="Register").click()
    expect(page.get_by_text(f"Registered as {name}.")).to_be_visible()
    return name


def challenge(page: Page, name: str, game: str = "cardbench", options: dict[str, str] | None = None) -> None:
    page.wait_for_selector(f"select[name=game] option[value={game}]", state="attached")
    page.select_option("select[name=game]", game)
    form = page.get_by_role("form", name="Challenge a player")
    form.get_by_label("Player's name").fill(name)
    if options:
        form.locator("summary").click()
        for label, value in options.items():
            form.get_by_label(label).select_option(value)
    form.get_by_role("button", name="Challenge").click()


def test_one_player_challenges_another_who_accepts_and_both_play_at_the_table(two: tuple[Page, Page]) -> None:
    ann, bob = two
    ann_name, bob_name = register(ann, "ann"), register(bob, "bob")
    challenge(ann, bob_name)
    waiting = ann.get_by_role("list", name="Your challenges")
    expect(waiting).to_contain_text(f"You challenged {bob_name}: cardbench, 2 seats")
    incoming = bob.get_by_role("list", name="Challenges to you")
    expect(incoming).to_contain_text(f"{ann_name} challenges you: cardbench, 2 seats")
    shoot(bob, "challenge-received-phone")
    assert accessibility_faults(bob) == []
    incoming.get_by_role("button", name="Accept").click()
    for page in (ann, bob):
        page.wait_for_url("**/#/table/*")
        page.wait_for_selector(".board")
    assert ann.url.rsplit("/", 1)[1] == bob.url.rsplit("/", 1)[1]
    expect(bob.locator("p[data-seat]")).to_have_attribute("data-seat", "1")
    expect(ann.locator("p[data-seat]")).to_have_attribute("data-seat", "0")
    expect(ann.get_by_role("status").filter(has_text="accepted your challenge")).to_be_visible()
    ann.wait_for_selector(".actions .choices button:enabled")  # seat 0 (the challenger) moves first
    assert not offered(bob)
    before = version(bob)
    make_decision(ann)
    bob.wait_for_function("v => document.querySelector('.board')?.dataset.version !== v", arg=before)
    assert version(bob) == version(ann) != before
    expect(bob.locator(".actions .choices button:enabled").first).to_be_visible()  # and now it is bob's turn
    shoot(ann, "challenge-table-phone")


def test_a_declined_challenge_tells_the_challenger_why(two: tuple[Page, Page]) -> None:
    ann, bob = two
    ann_name, bob_name = register(ann, "ann"), register(bob, "bob")
    challenge(ann, "nobody_here")
    expect(ann.get_by_role("alert")).to_contain_text("no registered player is called 'nobody_here'")
    challenge(ann, bob_name, "mana_burn", {"turn limit": "15"})
    incoming = bob.get_by_role("list", name="Challenges to you")
    expect(incoming).to_contain_text(f"{ann_name} challenges you: MANA BURN, 2 seats, turn limit 15, 120 s a decision")
    incoming.get_by_role("button", name="Decline…").click()
    form = bob.get_by_role("form", name=f"Decline {ann_name}'s challenge")
    form.get_by_label("Reason").select_option(label="Not now")
    form.get_by_label("Your words").fill("after dinner?")
    shoot(bob, "challenge-decline-phone")
    assert accessibility_faults(bob) == []
    form.get_by_role("button", name="Decline", exact=True).click()
    expect(bob.get_by_role("status").filter(has_text="You declined")).to_be_visible()
    expect(ann.get_by_role("status").filter(has_text="declined your challenge")).to_have_text(
        f"{bob_name} declined your challenge (MANA BURN, 2 seats, turn limit 15, 120 s a decision): not now"
        " — “after dinner?”. OK"
    )
    expect(ann.get_by_role("list", name="Your challenges")).to_have_count(0)
    shoot(ann, "challenge-declined-phone")
