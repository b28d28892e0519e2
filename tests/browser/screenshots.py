"""Regenerate docs/screenshots: every game's table in the browser client, a few decisions in, against bots, on a desk
and (the four games with the most on their table) on a phone; a card's facts open; R&D's revealed vote; the
how-to-play page; the lobby. docs/screenshots/before/ keeps the pages as they were before issue 32.

    .venv/bin/python -m tests.browser.screenshots     (make screenshots)

Starts its own stack with the web edge (as the browser tests do) and Debian's Chromium, headless.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

from deploy.launcher import LOOPBACK_LIMITS, Stack
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE
from tests.browser.pages import create_table, decide, play_to_the_end

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DESK = ViewportSize(width=1100, height=900)
# game: seats, decisions made before the picture (enough for a board with cards on it)
GAMES = {
    "manufactory": (3, 4),
    "blueprints": (2, 4),
    "rnd": (3, 3),
    "manasurge": (3, 3),
    "mana_burn": (3, 4),
    "magicka": (2, 3),
}
ON_A_PHONE = ["mana_burn", "magicka", "manasurge", "rnd"]
READY = ".actions .choices button:enabled, .result"


def table(browser: Browser, url: str, game: str, viewport: ViewportSize) -> Page:
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(url)
    seats, decisions = GAMES[game]
    create_table(page, game, seats)
    for _ in range(decisions):
        if not decide(page):
            break
    page.wait_for_selector(READY)
    return page


def shoot(page: Page, name: str) -> None:
    page.screenshot(path=OUT / f"{name}.png", full_page=True)
    print(OUT / f"{name}.png")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_BOT_TIME_CAP": "0.2"}
    with Stack(gateways=1, web_port=0, settings=settings) as stack, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        url = f"http://{stack.web_address}/"
        for game in GAMES:
            shoot(table(browser, url, game, DESK), game)
        for game in ON_A_PHONE:
            page = table(browser, url, game, PHONE)
            if game == "magicka":  # a card's facts, open as a tap opens them: a spell the hand cannot cast yet first
                held = page.locator(".wizard.mine .card.unusable, .wizard.mine .card")
                held.first.focus()
            shoot(page, f"{game}-phone")
        page = browser.new_context(viewport=DESK).new_page()
        page.goto(url)
        create_table(page, "rnd", 3)
        play_to_the_end(page)
        shoot(page, "rnd-results")
        phone = browser.new_context(viewport=PHONE).new_page()
        phone.goto(url)
        phone.wait_for_selector("select[name=game] option", state="attached")
        shoot(phone, "lobby-phone")
        phone.goto(url + "#/rules/mana_burn")
        phone.wait_for_selector(".howto h1")
        shoot(phone, "howto-phone")
        phone.goto(url)
        create_table(phone, "manufactory", 2)
        decide(phone)
        phone.wait_for_selector(".actions .choices button:enabled")
        shoot(phone, "manufactory-phone")
        browser.close()


if __name__ == "__main__":
    main()
