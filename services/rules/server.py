"""The stateless rules service: engine_core over gRPC. Every call carries the whole state; nothing is kept.

python -m services.rules.server --address 127.0.0.1:50061
"""

from __future__ import annotations

import argparse
import signal
from concurrent import futures
from typing import Any

import grpc
from google.protobuf.any_pb2 import Any as AnyMessage
from manaforge.v1 import rules_pb2, rules_pb2_grpc
from manaforge.v1.common_pb2 import Catalogue, Outcome

from engine_core import GAMES, find_game
from engine_core.errors import MalformedActionError
from engine_core.registry import AnyGame
from services import observability
from services.cardsets import load_card_sets
from services.grpc_status import add_health_and_reflection, unary
from services.rules.checks import check_state
from services.settings import settings_at_start
from services.tables.rules import move
from services.tables.views import catalogue, game_info, pack


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
    @unary
    def ListGames(self, request: rules_pb2.ListGamesRequest, context: Any) -> rules_pb2.ListGamesResponse:
        return rules_pb2.ListGamesResponse(games=[game_info(g) for g in GAMES])

    @unary
    def NewGame(self, request: rules_pb2.NewGameRequest, context: Any) -> rules_pb2.NewGameResponse:
        game = find_game(request.config.game)
        return rules_pb2.NewGameResponse(state=pack(game.new_game(request.config, request.seed)))

    @unary
    def Apply(self, request: rules_pb2.ApplyRequest, context: Any) -> rules_pb2.ApplyResponse:
        game, state = _checked(request.state)
        new_state, events = game.apply(state, request.seat, game.action_from_any(request.action))
        return rules_pb2.ApplyResponse(state=pack(new_state), events=events)

    @unary
    def LegalActions(self, request: rules_pb2.LegalActionsRequest, context: Any) -> rules_pb2.LegalActionsResponse:
        game, state = _checked(request.state)
        return rules_pb2.LegalActionsResponse(
            actions=[
                rules_pb2.LegalAction(action=pack(a), text=game.describe(state, a))
                for a in game.legal_actions(state, request.seat)
            ]
        )

    @unary
    def View(self, request: rules_pb2.ViewRequest, context: Any) -> rules_pb2.ViewResponse:
        game, state = _checked(request.state)
        seat = request.seat if request.HasField("seat") else None
        view = game.view(state, seat)
        return rules_pb2.ViewResponse(view=pack(view), text=game.render(view, seat))

    @unary
    def Move(self, request: rules_pb2.MoveRequest, context: Any) -> rules_pb2.MoveResponse:
        game = _game_of(request.state)
        state = game.state_from_any(request.state)
        check_state(game, state, exercise=False)
        moved = move(game, state, request.seat, game.action_from_any(request.action))
        return rules_pb2.MoveResponse(
            state=moved.data, events=moved.events, text=moved.text, state_digest=moved.digest, finished=moved.finished
        )

    @unary
    def GetCatalogue(self, request: rules_pb2.GetCatalogueRequest, context: Any) -> Catalogue:
        return Catalogue.FromString(catalogue(request.config))

    @unary
    def GetOutcome(self, request: rules_pb2.GetOutcomeRequest, context: Any) -> Outcome:
        game, state = _checked(request.state)
        return game.outcome(state)


def serve(address: str, max_workers: int = 16) -> tuple[grpc.Server, int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers), options=[("grpc.so_reuseport", 0)])
    rules_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(), server)
    add_health_and_reflection(server, rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name)
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    server.start()
    return server, port


def main() -> None:
    parser = argparse.ArgumentParser(description="Manaforge rules service")
    parser.add_argument("--address", default="127.0.0.1:50061")
    args = parser.parse_args()
    settings = settings_at_start()
    observability.configure("rules", settings)
    load_card_sets(settings.card_sets)  # a game of these sets plays here as on the gateways
    server, port = serve(args.address)
    print(f"rules service on port {port}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(2))
    server.wait_for_termination()


if __name__ == "__main__":
    main()
