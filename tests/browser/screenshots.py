"""Regenerate docs/screenshots: a board of every game in the browser client, a few decisions in, against bots.

    .venv/bin/python -m tests.browser.screenshots     (make screenshots)

Starts its own stack with the web edge (as the browser tests do) and Debian's Chromium, headless.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import ViewportSize, sync_playwright

from deploy.launcher import LOOPBACK_LIMITS, Stack
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, PHONE
from tests.browser.pages import create_table, decide

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
DESK = ViewportSize(width=1100, height=900)
# game: seats, decisions made before the picture (enough for a board with cards on it)
GAMES = {
    "manufactory": (3, 4),
    "blueprints": (2, 4),
    "rnd": (3, 3),
    "manasurge": (3, 3),
    "mana_burn": (2, 4),
    "magicka": (2, 3),
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    settings = {**LOOPBACK_LIMITS, "MANAFORGE_BOT_TIME_CAP": "0.2"}
    with Stack(gateways=1, web_port=0, settings=settings) as stack, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        url = f"http://{stack.web_address}/"
        for game, (seats, decisions) in GAMES.items():
            page = browser.new_context(viewport=DESK).new_page()
            page.goto(url)
            create_table(page, game, seats)
            for _ in range(decisions):
                if not decide(page):
                    break
            page.wait_for_selector(".actions .choices button:enabled, .result")
            page.screenshot(path=OUT / f"{game}.png", full_page=True)
            print(f"{OUT / game}.png")
        phone = browser.new_context(viewport=PHONE).new_page()
        phone.goto(url)
        phone.wait_for_selector("select[name=game] option", state="attached")
        phone.screenshot(path=OUT / "lobby-phone.png", full_page=True)
        create_table(phone, "manufactory", 2)
        decide(phone)
        phone.wait_for_selector(".actions .choices button:enabled")
        phone.screenshot(path=OUT / "manufactory-phone.png", full_page=True)
        browser.close()


if __name__ == "__main__":
    main()
