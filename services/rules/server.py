"""The stateless rules service: engine_core over gRPC (grpc.aio, like the gateway). Every call carries the whole
state; nothing is kept. It stands on engine_core and the edge (services/edge.py) alone, and registers the card sets
of its settings (MANAFORGE_CARD_SETS) at start as the gateways and workers do.

python -m services.rules.server --address 127.0.0.1:50061
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import socket
from typing import Any

import grpc
from google.protobuf.any_pb2 import Any as AnyMessage
from manaforge.v1 import rules_pb2, rules_pb2_grpc
from manaforge.v1.common_pb2 import Catalogue, Outcome

from engine_core import GAMES, find_game
from engine_core.errors import MalformedActionError
from engine_core.moves import move
from engine_core.registry import AnyGame
from services import observability
from services.cardsets import load_card_sets
from services.edge import aio_health_and_reflection, aio_unary, catalogue, game_info, pack
from services.observability import stop_at_once
from services.rules.checks import check_state
from services.settings import Settings, settings_at_start
from services.tls import listen, server_credentials

STOP_GRACE = 2.0  # seconds calls in flight may take to finish when the service stops


def _game_of(state: AnyMessage) -> AnyGame:
    """The registered game whose state message type `state` holds."""
    for game in GAMES:
        if state.TypeName() == game.state_type.DESCRIPTOR.full_name:
            return game
    raise MalformedActionError("state type", f"{state.TypeName() or 'an empty state'} is no registered game's state")


def _checked(packed: AnyMessage) -> tuple[AnyGame, Any]:
    """The game and the state a client sent, once the state passed the checks of services/rules/checks.py."""
    game = _game_of(packed)
    state = game.state_from_any(packed)
    check_state(game, state)
    return game, state


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    """Each call runs the engine on the event loop: the work is CPU alone (no await inside), as under the GIL a
    thread pool ran one call at a time anyway; more rules processes give more cores (MANAFORGE_RULES_ADDRESSES)."""

    SERVICE_NAME = "rules"  # in logs and metrics

    @aio_unary
    async def ListGames(self, request: rules_pb2.ListGamesRequest, context: Any) -> rules_pb2.ListGamesResponse:
        return rules_pb2.ListGamesResponse(games=[game_info(g) for g in GAMES])

    @aio_unary
    async def NewGame(self, request: rules_pb2.NewGameRequest, context: Any) -> rules_pb2.NewGameResponse:
        game = find_game(request.config.game)
        return rules_pb2.NewGameResponse(state=pack(game.new_game(request.config, request.seed)))

    @aio_unary
    async def Apply(self, request: rules_pb2.ApplyRequest, context: Any) -> rules_pb2.ApplyResponse:
        game, state = _checked(request.state)
        new_state, events = game.apply(state, request.seat, game.action_from_any(request.action))
        return rules_pb2.ApplyResponse(state=pack(new_state), events=events)

    @aio_unary
    async def LegalActions(
        self, request: rules_pb2.LegalActionsRequest, context: Any
    ) -> rules_pb2.LegalActionsResponse:
        game, state = _checked(request.state)
        return rules_pb2.LegalActionsResponse(
            actions=[
                rules_pb2.LegalAction(action=pack(a), text=game.describe(state, a))
                for a in game.legal_actions(state, request.seat)
            ]
        )

    @aio_unary
    async def View(self, request: rules_pb2.ViewRequest, context: Any) -> rules_pb2.ViewResponse:
        game, state = _checked(request.state)
        seat = request.seat if request.HasField("seat") else None
        view = game.view(state, seat)
        return rules_pb2.ViewResponse(view=pack(view), text=game.render(view, seat))

    @aio_unary
    async def Move(self, request: rules_pb2.MoveRequest, context: Any) -> rules_pb2.MoveResponse:
        game = _game_of(request.state)
        state = game.state_from_any(request.state)
        check_state(game, state, exercise=False)
        moved = move(game, state, request.seat, game.action_from_any(request.action))
        return rules_pb2.MoveResponse(
            state=moved.data, events=moved.events, text=moved.text, state_digest=moved.digest, finished=moved.finished
        )

    @aio_unary
    async def GetCatalogue(self, request: rules_pb2.GetCatalogueRequest, context: Any) -> Catalogue:
        return Catalogue.FromString(catalogue(request.config))

    @aio_unary
    async def GetOutcome(self, request: rules_pb2.GetOutcomeRequest, context: Any) -> Outcome:
        game, state = _checked(request.state)
        return game.outcome(state)


async def serve(address: str, credentials: grpc.ServerCredentials | None = None) -> tuple[grpc.aio.Server, int]:
    """Start the rules service on `address` ("127.0.0.1:0" picks a free port); TLS with `credentials`
    (services/tls.py; with a client CA, mutual)."""
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    rules_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(), server)
    await aio_health_and_reflection(server, rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name)
    port = listen(server, address, credentials)
    await server.start()
    return server, port


async def run(address: str, settings: Settings) -> None:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    load_card_sets(settings.card_sets)  # a game of these sets plays here as on the gateways
    server, port = await serve(address, server_credentials(settings))
    observability.name("rules", settings, f"{socket.gethostname()}:{port}")
    print(f"rules service on port {port}{' (TLS)' if settings.is_tls else ''}", flush=True)
    await stopping.wait()
    await server.stop(STOP_GRACE)


def main() -> None:
    parser = argparse.ArgumentParser(description="Manaforge rules service")
    parser.add_argument("--address", default="127.0.0.1:50061")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, stop_at_once)  # until the event loop takes SIGTERM over (a container's PID 1)
    settings = settings_at_start()
    observability.configure("rules", settings)
    if settings.uvloop:
        import uvloop

        uvloop.run(run(args.address, settings))
    else:
        asyncio.run(run(args.address, settings))


if __name__ == "__main__":
    main()
