"""What a person in the browser sees of the operator's console (docs/operations.md): the maintenance notice in the
lobby, and the replay of a game the operator ended."""

from __future__ import annotations

import grpc
from manaforge.v1 import admin_pb2
from manaforge.v1.admin_pb2_grpc import AdminStub
from playwright.sync_api import BrowserContext, Page, expect

from deploy.launcher import Stack
from gateway.client import Client
from tests.browser.conftest import OPERATOR_KEY
from tests.stack.helpers import cardbench_table, first_legal

OPERATOR = (("x-operator-key", OPERATOR_KEY),)


def test_the_lobby_shows_the_maintenance_notice(context: BrowserContext, web_stack: Stack) -> None:
    text = "Maintenance at 02:00 UTC: games pause for five minutes"
    with grpc.insecure_channel(web_stack.gateway_addresses[0]) as channel:
        admin = AdminStub(channel)
        admin.SetNotice(admin_pb2.SetNoticeRequest(text=text), metadata=OPERATOR)
        try:
            page = context.new_page()
            page.goto(f"http://{web_stack.web_address}/")
            expect(page.locator(".maintenance")).to_have_text(text)
        finally:
            admin.SetNotice(admin_pb2.SetNoticeRequest(text=""), metadata=OPERATOR)
    page.reload()
    expect(page.get_by_role("heading", name="Play", exact=True)).to_be_visible()
    expect(page.locator(".maintenance")).to_have_count(0)


def test_the_replay_of_a_game_the_operator_ended_shows_every_move_and_the_end(
    page: Page, web_stack: Stack, client: Client
) -> None:
    table_id, token_0, token_1 = cardbench_table(client)
    for token in (token_0, token_1):
        client.submit(table_id, token, first_legal(client, table_id, token))
    with grpc.insecure_channel(web_stack.gateway_addresses[0]) as channel:
        AdminStub(channel).EndTable(admin_pb2.EndTableRequest(table_id=table_id), metadata=OPERATOR)
    client.wait_finished(table_id, 30)
    page.goto(f"http://{web_stack.web_address}/#/replay/{table_id}")
    expect(page.locator("output")).to_have_text("0 of 3")
    page.get_by_role("button", name="Last move").click()
    expect(page.locator(".current")).to_contain_text("The operator — aborted by the operator")
    expect(page.locator(".result")).to_contain_text("then aborted by the operator")
    expect(page.locator(".error")).to_have_count(0)
