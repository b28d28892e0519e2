"""What a person does on the browser client's pages, in Playwright calls: the tests and the screenshot script share
them."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

# A choice is there, or the result: what a player waits for.
CHOICE = ".actions .choices button:enabled, .actions form textarea"
DECISION = f".result, {CHOICE}"
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
    make_decision(page)
    return True


def offered(page: Page) -> bool:
    """A decision is offered to this page now."""
    return bool(page.locator(CHOICE).count()) and not page.locator(".result").count()


def make_decision(page: Page) -> None:
    """The decision offered (as `decide`), then the board moved on."""
    before = version(page)
    choose(page)
    page.wait_for_function(
        "v => document.querySelector('.result') || document.querySelector('.board')?.dataset.version !== v",
        arg=before,
        timeout=30_000,
    )


def choose(page: Page, timeout: float | None = None) -> None:
    """Click the decision offered (the first choice; in two steps, the first of the first group; a free text
    written and sent), without waiting for its answer."""
    form = page.locator(".actions form")
    if not form.count():
        pick_first(page, timeout)
    if form.count():
        name = form.locator("textarea[data-field=name]")
        if name.count():
            name.fill(WRITTEN_NAME, timeout=timeout)
        form.get_by_role("button", name="Send").click(timeout=timeout)


def pick_first(page: Page, timeout: float | None = None) -> None:
    """Click the first choice (in two steps, the first of the first group)."""
    page.locator(".actions .choices button").first.click(timeout=timeout)
    if page.get_by_text("which one?").count():
        page.locator(".actions .choices button").first.click(timeout=timeout)


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


AXE = Path(__file__).resolve().parents[2] / "gateway" / "web" / "node_modules" / "axe-core" / "axe.min.js"
AUDIT = """async () => {
  const found = await axe.run(document);
  return found.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(", ")}`);
}"""


def accessibility_faults(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is drawn now (axe-core from the web client's
    devDependencies, injected into the page)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    faults: list[str] = page.evaluate(AUDIT)
    return faults
