"""The web edge's own answers, over plain HTTP: the page, gRPC-Web frames passed through, clear refusals."""

from __future__ import annotations

import struct
import urllib.error
import urllib.request

import pytest
from manaforge.v1 import gateway_pb2, rules_pb2

from deploy.launcher import Stack

GRPC_WEB = "application/grpc-web+proto"


def post(stack: Stack, path: str, body: bytes, content_type: str = GRPC_WEB) -> tuple[list[bytes], dict[str, str]]:
    """The message frames and the trailers of one gRPC-Web call."""
    request = urllib.request.Request(f"http://{stack.web_address}{path}", body, {"Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=10) as answer:
        data = answer.read()
    messages, trailers = [], {}
    while data:
        flag, length = struct.unpack(">BI", data[:5])
        payload, data = data[5 : 5 + length], data[5 + length :]
        if flag & 0x80:
            lines = payload.decode().strip().split("\r\n")
            trailers = dict(line.split(":", 1) for line in lines)
        else:
            messages.append(payload)
    return messages, trailers


def frame(message: bytes) -> bytes:
    return struct.pack(">BI", 0, len(message)) + message


def test_the_page_is_served(web_stack: Stack) -> None:
    with urllib.request.urlopen(f"http://{web_stack.web_address}/", timeout=10) as answer:
        page = answer.read().decode()
    assert '<main id="app"' in page and "/assets/" in page


def test_a_unary_call_passes_through(web_stack: Stack) -> None:
    messages, trailers = post(web_stack, "/manaforge.v1.Gateway/ListGames", frame(b""))
    games = rules_pb2.ListGamesResponse.FromString(messages[0]).games
    assert trailers["grpc-status"] == "0" and "manufactory" in {g.name for g in games}


def test_a_refusal_keeps_the_gateways_code_and_message(web_stack: Stack) -> None:
    request = gateway_pb2.GetTableRequest(table_id="no-such-table").SerializeToString()
    messages, trailers = post(web_stack, "/manaforge.v1.Gateway/GetTable", frame(request))
    assert not messages and trailers["grpc-status"] == "5" and "no-such-table" in trailers["grpc-message"]


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        ("/manaforge.v1.Gateway/Play", frame(b""), "12", "client stream"),
        ("/manaforge.v1.Gateway/Nothing", frame(b""), "12", "no method Nothing"),
        ("/manaforge.v1.Gateway/ListGames", b"\x00\x00", "3", "not a gRPC-Web frame"),
        ("/manaforge.v1.Gateway/ListGames", frame(b"") + frame(b""), "3", "exactly one"),
    ],
)
def test_what_a_page_cannot_do_is_refused_clearly(
    web_stack: Stack, path: str, body: bytes, status: str, words: str
) -> None:
    messages, trailers = post(web_stack, path, body)
    assert not messages and trailers["grpc-status"] == status and words in trailers["grpc-message"]


def test_other_encodings_are_refused(web_stack: Stack) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        post(web_stack, "/manaforge.v1.Gateway/ListGames", b"AAAAAAA=", "application/grpc-web-text")
    assert refused.value.code == 415
