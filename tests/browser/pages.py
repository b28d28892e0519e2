"""What a person does on the browser client's pages, in Playwright calls: the tests and the screenshot script share
them."""

from __future__ import annotations

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

# A choice is there, or the result: what a player waits for.
DECISION = ".result, .actions .choices button:enabled, .actions form textarea"
WRITTEN_NAME = "Chromium Wisp"


def create_table(page: Page, game: str, seats: int, others: str = "random") -> str:
    """In the lobby: a table of `game` with this page at seat 0 and the other seats `others` (a bot level, or
    "open"). Returns the table id once its page shows."""
    page.wait_for_selector(f"select[name=game] option[value={game}]", state="attached")
    page.select_option("select[name=game]", game)
    form = page.get_by_role("form", name="Create a table")
    form.get_by_label("Seats", exact=True).fill(str(seats))
    form.get_by_label("The other seats").select_option(others)
    form.get_by_role("button", name="Create and sit down").click()
    try:
        page.wait_for_url("**/#/table/*")
    except PlaywrightError:
        page.screenshot(path=f"/tmp/manaforge-create-{game}.png", full_page=True)
        raise AssertionError(f"no table page; the lobby says: {page.locator('main').inner_text()[:600]}") from None
    page.wait_for_selector(".board")
    return page.url.rsplit("/", 1)[1]


def version(page: Page) -> str:
    return page.locator(".board").get_attribute("data-version") or ""


def decide(page: Page) -> bool:
    """Make this seat's next decision (the first choice; in two steps, the first of the first group; a free text
    written), and wait until the board has moved on. False once the game is over."""
    page.wait_for_selector(DECISION, timeout=30_000)
    if page.locator(".result").count():
        return False
    before = version(page)
    form = page.locator(".actions form")
    if not form.count():
        pick_first(page)
    if form.count():
        name = form.locator("textarea[data-field=name]")
        if name.count():
            name.fill(WRITTEN_NAME)
        form.get_by_role("button", name="Send").click()
    page.wait_for_function(
        "v => document.querySelector('.result') || document.querySelector('.board')?.dataset.version !== v",
        arg=before,
        timeout=30_000,
    )
    return True


def pick_first(page: Page) -> None:
    """Click the first choice (in two steps, the first of the first group)."""
    page.locator(".actions .choices button").first.click()
    if page.get_by_text("which one?").count():
        page.locator(".actions .choices button").first.click()


def play_to_the_end(page: Page, limit: int = 400) -> int:
    """Decide until the result shows; returns how many decisions this page made."""
    for made in range(limit):
        if not decide(page):
            return made
    raise AssertionError(f"no result after {limit} decisions")


def join_queue(page: Page, game: str, seats: int) -> None:
    """In the lobby: queue for `game` at a table of `seats`."""
    page.wait_for_selector(f"select[name=game] option[value={game}]", state="attached")
    page.select_option("select[name=game]", game)
    form = page.get_by_role("form", name="Queue for a game")
    form.get_by_label("Seats", exact=True).fill(str(seats))
    form.get_by_role("button", name="Join the queue").click()


def watch_calls(page: Page) -> list[str]:
    """The Watch calls this page makes from now on (their URLs, as they are sent)."""
    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url) if request.url.endswith("/Watch") else None)
    return calls
