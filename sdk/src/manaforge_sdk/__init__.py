"""manaforge-sdk: a Python client of a Manaforge gateway, and a bot runner where a bot is one function.

    import manaforge_sdk as mf

    def bot(view, legal_actions):          # the seat's view, [(action, text), ...]
        return legal_actions[0][0]

    with mf.connect() as client:           # 127.0.0.1:50051, as `make run` serves
        client.register("my_bot")          # once; later runs load the saved key
        seat = client.create_table("cardbench", bots={1: "heuristic"})
        print(client.play(seat.table_id, seat.token, bot))

The tutorial and the reference: docs/sdk.md in the Manaforge repository."""

from manaforge_sdk.client import Client, EventStream, Seat, connect, default_address
from manaforge_sdk.credentials import Credentials, credentials_path
from manaforge_sdk.errors import (
    CredentialsRefused,
    GatewayLost,
    IllegalAction,
    ManaforgeError,
    SeatTokenRefused,
    TableNotFound,
)
from manaforge_sdk.messages import decline_reason, pack, unpack
from manaforge_sdk.runner import (
    Accept,
    Action,
    Bot,
    ChallengeMessage,
    LegalActions,
    Result,
    View,
    legal_actions,
    play,
    serve,
)

__all__ = [
    "Accept",
    "Action",
    "Bot",
    "ChallengeMessage",
    "Client",
    "Credentials",
    "CredentialsRefused",
    "EventStream",
    "GatewayLost",
    "IllegalAction",
    "LegalActions",
    "ManaforgeError",
    "Result",
    "Seat",
    "SeatTokenRefused",
    "TableNotFound",
    "View",
    "connect",
    "credentials_path",
    "decline_reason",
    "default_address",
    "legal_actions",
    "pack",
    "play",
    "serve",
    "unpack",
]
