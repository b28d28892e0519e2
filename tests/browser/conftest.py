"""The browser tests: the real stack with its web edge (deploy.launcher.Stack, as `make run` starts it) and Debian's
Chromium, headless, driven by Playwright. `make test` installs Chromium when /usr/bin/chromium is missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, sync_playwright

from deploy.launcher import LOOPBACK_LIMITS, Stack
from gateway.client import Client

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags Chromium dials out at start, and this closed network refuses it.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = ViewportSize(width=390, height=844)
OPERATOR_KEY = "browser-tests-operator-key"  # the Admin calls of test_operator.py


@pytest.fixture(scope="session")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Each process's output in <log_dir>/<name>.log (the web edge's: web.log)."""
    settings = {
        **LOOPBACK_LIMITS,
        "MANAFORGE_BOT_TIME_CAP": "0.2",
        "MANAFORGE_OPERATOR_KEY": OPERATOR_KEY,
        "MANAFORGE_WEB_CONSOLE": "1",
    }
    logs = str(tmp_path_factory.mktemp("stack-logs"))
    with Stack(gateways=1, response_timeout=1.0, web_port=0, settings=settings, log_dir=logs) as running:
        yield running


@pytest.fixture(scope="module")  # not longer: Playwright's sync API holds an event loop running on this thread
def browser() -> Iterator[Browser]:  # while it is open, and other modules' tests call asyncio.run()
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` installs Debian's chromium package")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """Fresh storage (Playwright launches Chromium on a new temporary profile; each context is its own) on a
    phone-sized screen."""
    made = browser.new_context(viewport=PHONE)
    made.set_default_timeout(20_000)
    yield made
    made.close()


@pytest.fixture
def client(web_stack: Stack) -> Iterator[Client]:
    """The gateway's own client, for what the tests set up and check behind the page."""
    with Client(web_stack.gateway_addresses[0]) as made:
        yield made


@pytest.fixture
def page(context: BrowserContext, web_stack: Stack) -> Page:
    opened = context.new_page()
    opened.goto(f"http://{web_stack.web_address}/")
    return opened
