"""The operator's console page (#/console, docs/operations.md): it lists a live table, ends it after a confirmation,
and the player's page shows the operator's ending; a wrong key gets a clear message. The web edge carries Admin
calls only when started with --console, not through a proxy, and stops an address's tries after five wrong keys."""

from __future__ import annotations

import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from deploy.launcher import Stack, free_port, wait_for_http
from tests.browser.conftest import OPERATOR_KEY, PHONE
from tests.browser.pages import accessibility_faults, create_table
from tests.browser.test_challenges import shoot
from tests.browser.test_web_edge import frame

OVERVIEW = "/manaforge.v1.Admin/GetOverview"


def open_console(page: Page, stack: Stack, key: str) -> None:
    page.goto(f"http://{stack.web_address}/#/console")
    page.get_by_label("Operator key").fill(key)
    page.get_by_label("Your name, for the audit log").fill("console-test")
    page.get_by_role("button", name="Open the console").click()


def test_a_wrong_key_gets_a_clear_message_and_no_console(context: BrowserContext, web_stack: Stack) -> None:
    page = context.new_page()
    open_console(page, web_stack, "not-the-operator-key")
    expect(page.get_by_role("alert")).to_have_text(
        "Wrong operator key: the gateway refused it. Check MANAFORGE_OPERATOR_KEY and try again."
    )
    expect(page.get_by_role("form", name="Open the console")).to_be_visible()
    expect(page.get_by_role("heading", name="Tables")).to_have_count(0)


def test_the_console_ends_a_live_table_and_the_players_page_shows_the_ending(
    browser: Browser, context: BrowserContext, web_stack: Stack
) -> None:
    player = context.new_page()
    player.goto(f"http://{web_stack.web_address}/")
    table_id = create_table(player, "cardbench", 2)  # against a bot: under way at once
    operator = browser.new_context(viewport=PHONE)
    operator.set_default_timeout(20_000)
    ops = operator.new_page()
    open_console(ops, web_stack, OPERATOR_KEY)
    row = ops.get_by_role("list", name="Live tables").locator(f"li[data-table='{table_id}']")
    expect(row).to_contain_text(f"cardbench {table_id}")
    expect(ops.get_by_role("table", name="By game")).to_contain_text("cardbench")
    expect(ops.get_by_text("Workers alive")).to_be_visible()
    row.get_by_role("button", name=f"End table {table_id}").click()
    expect(row.get_by_role("group", name=f"End table {table_id}?")).to_contain_text("aborted by the operator")
    shoot(ops, "console-confirm-phone")
    assert accessibility_faults(ops) == []
    row.get_by_role("button", name="End the table").click()
    expect(ops.get_by_role("status").filter(has_text="Done:")).to_contain_text(f"table {table_id} aborted at version")
    expect(player.locator(".result")).to_contain_text(
        "The operator ended this game: aborted by the operator, no winner, no rating change."
    )
    expect(player.locator(".result")).not_to_contain_text("You lost")
    expect(ops.get_by_role("list", name="Live tables").locator(f"li[data-table='{table_id}']")).to_have_count(0)
    expect(ops.get_by_role("heading", name="Audit log (latest)").locator("..")).to_contain_text(
        f"EndTable: table {table_id} aborted"
    )
    shoot(ops, "console-phone")
    shoot(player, "console-ended-table-phone")
    operator.close()


def post(address: str, path: str, headers: dict[str, str] | None = None) -> dict[str, str]:
    """The trailers of one gRPC-Web call with an empty request."""
    sent = {"Content-Type": "application/grpc-web+proto", **(headers or {})}
    request = urllib.request.Request(f"http://{address}{path}", frame(b""), sent)
    with urllib.request.urlopen(request, timeout=10) as answer:
        data = answer.read()
    while data[0] != 0x80:
        data = data[5 + int.from_bytes(data[1:5], "big") :]
    trailers = dict(line.split(":", 1) for line in data[5:].decode().strip().split("\r\n"))
    return {name: urllib.parse.unquote(value) for name, value in trailers.items()}


@pytest.fixture
def edge(web_stack: Stack, request: pytest.FixtureRequest) -> Iterator[str]:
    """A web edge of its own (its wrong keys counted apart), started with the options `request.param` gives."""
    address = f"127.0.0.1:{free_port()}"
    command = [sys.executable, "-m", "gateway.web_edge", "--address", address, *request.param]
    command += ["--gateway", web_stack.gateway_addresses[0], "--rules", web_stack.rules_address]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_http(address)
        yield address
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.parametrize("edge", [[]], indirect=True)
def test_an_edge_started_without_the_console_carries_no_admin_call(edge: str) -> None:
    said = post(edge, OVERVIEW, {"x-operator-key": OPERATOR_KEY})
    assert said["grpc-status"] == "7" and "the operator console is off on this web edge" in said["grpc-message"]


@pytest.mark.parametrize("edge", [["--console"]], indirect=True)
def test_the_console_is_not_carried_through_a_proxy_and_wrong_keys_are_limited(edge: str) -> None:
    proxied = post(edge, OVERVIEW, {"x-operator-key": OPERATOR_KEY, "X-Forwarded-For": "203.0.113.9"})
    assert proxied["grpc-status"] == "7" and "edge's own machine only" in proxied["grpc-message"]
    assert post(edge, OVERVIEW, {"x-operator-key": OPERATOR_KEY})["grpc-status"] == "0"
    for _ in range(5):
        wrong = post(edge, OVERVIEW, {"x-operator-key": "guess"})
        assert wrong["grpc-status"] == "7" and "wrong key" in wrong["grpc-message"]
    locked = post(edge, OVERVIEW, {"x-operator-key": OPERATOR_KEY})  # the right key too, for the rest of the minute
    assert locked["grpc-status"] == "8" and "5 wrong keys from this address in a minute" in locked["grpc-message"]
    assert post(edge, "/manaforge.v1.Gateway/ListGames")["grpc-status"] == "0"  # players' calls go on
