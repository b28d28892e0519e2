"""The game messages inside a view or an action (`google.protobuf.Any`), unpacked into their own classes: every
game's generated module is imported once, so that each type named by a gateway is known."""

from __future__ import annotations

import importlib
import pkgutil

import manaforge.v1.games
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.any_pb2 import Any as AnyMessage
from google.protobuf.message import Message
from manaforge.v1.gateway_pb2 import Challenge, DeclineReason

for _module in pkgutil.iter_modules(manaforge.v1.games.__path__):
    if _module.name.endswith("_pb2"):
        importlib.import_module(f"manaforge.v1.games.{_module.name}")


def unpack(packed: AnyMessage) -> Message:
    """The message inside `packed`, as an instance of its own class (e.g. a CardbenchState)."""
    name = packed.TypeName()
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(name)
    except KeyError:
        raise ValueError(f"unknown message type {name!r}: is this SDK older than the gateway's games?") from None
    message = message_factory.GetMessageClass(descriptor)()
    packed.Unpack(message)
    return message


def pack(message: Message) -> AnyMessage:
    """`message` in an Any (an Any is returned as it is)."""
    if isinstance(message, AnyMessage):
        return message
    packed = AnyMessage()
    packed.Pack(message)
    return packed


def decline_reason(challenge: Challenge) -> str:
    """Why a challenge was declined, by name: "busy", "later", "game", "time_control", "no_bots", "generic" (the
    words `decline()` takes); "" for a challenge that was not declined."""
    if not challenge.reason:
        return ""
    return str(DeclineReason.Name(challenge.reason)).removeprefix("DECLINE_REASON_").lower()
