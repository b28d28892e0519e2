"""Small helpers for tests against the real stack."""

from __future__ import annotations

import urllib.request
from typing import Any

import grpc
from google.protobuf.any_pb2 import Any as AnyMessage
from manaforge.v1.games.cardbench_pb2 import CardbenchAction, CardbenchState
from prometheus_client.parser import text_string_to_metric_families

from deploy.launcher import Stack
from gateway.client import Client


class Refusal:
    """A refused call: its gRPC status and message."""

    def __init__(self, exc: grpc.RpcError) -> None:
        self._code: grpc.StatusCode = exc.code()
        self._details: str = exc.details() or ""

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


def rpc_error(call: Any, *args: Any, **kwargs: Any) -> Refusal:
    try:
        call(*args, **kwargs)
    except grpc.RpcError as exc:
        return Refusal(exc)
    raise AssertionError("the call succeeded but should have been refused")


def hand(client: Client, table_id: str, token: str) -> list[int]:
    view = CardbenchState()
    client.view(table_id, token).view.Unpack(view)
    seat = client.view(table_id, token).seat
    return list(view.hands[seat].cards)


def play(card: int) -> AnyMessage:
    packed = AnyMessage()
    packed.Pack(CardbenchAction(card=card))
    return packed


def cardbench_table(client: Client) -> tuple[str, str, str]:
    """A 2-seat cardbench table with two humans: (table id, token of seat 0, token of seat 1)."""
    created = client.create_table("cardbench", 2, player_name="ann")
    joined = client.join(created.table.table_id, "bob")
    assert (created.seat, joined.seat) == (0, 1)
    return created.table.table_id, created.seat_token, joined.seat_token


def first_legal(client: Client, table_id: str, token: str) -> AnyMessage:
    return client.view(table_id, token).legal_actions[0].action


def scrape(stack: Stack, name: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{stack.metrics_ports[name]}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls))
