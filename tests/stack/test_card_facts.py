"""What the games say about their cards, through the real gateway and rules service (issue 32): GetCatalogue, the
seat's card notes in its view (never in the public view), and each game's how-to-play page in ListGames."""

from __future__ import annotations

import grpc
import pytest
from manaforge.v1 import rules_pb2
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.games.magicka_pb2 import MagickaState
from manaforge.v1.rules_pb2_grpc import RulesServiceStub

from deploy.launcher import Stack
from engine_core import find_game
from gateway.client import Client
from tests.stack.helpers import rpc_error

one_layout = pytest.mark.parametrize("stack", ["redis"], indirect=True)


@one_layout
def test_catalogue_and_how_to_play_through_the_gateway_and_the_rules_service(stack: Stack, client: Client) -> None:
    facts = client.catalogue(GameConfig(game="magicka"))
    assert len(facts) == 136 and facts[0].name == "Fire" and facts[0].kind == "Element"
    fireball = next(f for f in facts if f.name == "Fireball")
    assert fireball.cost == "Fire, Fire and Earth" and fireball.effect.startswith("Deals 4 damage")
    twelve = client.catalogue(GameConfig(game="manasurge", options={"numbers": "1-12"}))
    assert twelve[11].name == "Flying Dagger 12"
    refused = rpc_error(client.catalogue, GameConfig(game="chess"))
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and "chess" in refused.details()
    bad_option = rpc_error(client.catalogue, GameConfig(game="manasurge", options={"numbers": "1-99"}))
    assert bad_option.code() == grpc.StatusCode.INVALID_ARGUMENT and "numbers" in bad_option.details()
    pages = {game.name: game.how_to_play for game in client.games()}
    assert pages["rnd"].startswith("# How to play Look at Us, We're R&D") and "cooperative" in pages["rnd"]
    with grpc.insecure_channel(stack.rules_address) as channel:
        rules = RulesServiceStub(channel)
        answer = rules.GetCatalogue(rules_pb2.GetCatalogueRequest(config=GameConfig(game="mana_burn")))
        assert len(answer.cards) == 100 and answer.cards[99].name == "Incinerate"
        assert len(answer.squares) == 42 and answer.squares[0].name == "Library"  # the board, for the clients


@one_layout
def test_a_seat_view_carries_notes_on_its_own_cards_only(client: Client) -> None:
    made = client.create_table("magicka", 2, bots={1: "random"}, player_name="Ann")
    table_id, token = made.table.table_id, made.seat_token
    view = client.view(table_id, token)
    state = MagickaState()
    view.view.Unpack(state)
    notes = {note.card: note.note for note in view.card_notes}
    assert notes == find_game("magicka").card_notes(state, 0)  # the engine's notes, computed from the seat's view
    assert set(notes) <= set(state.wizards[0].spells)
    assert all(note.startswith(("needs ", "not your turn", "nothing", "draw", "only")) for note in notes.values())
    assert not client.view(table_id, "").card_notes  # a spectator gets none
