"""A card set given to the stack (MANAFORGE_CARD_SETS) is playable through the rules service, as through the
gateway: the rules service registers the settings' card sets at start."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
from manaforge.v1 import rules_pb2
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.rules_pb2_grpc import RulesServiceStub

from deploy.launcher import Stack


def tiny_set(code: str) -> dict[str, object]:
    """An MTGJSON set file of three red instants in two-card draft boosters."""
    cards = [
        {"uuid": f"u{i}", "name": f"Tiny Card {i}", "number": str(i), "rarity": "common", "colors": ["R"],
         "manaValue": 1.0, "manaCost": "{R}", "type": "Instant", "types": ["Instant"], "text": "Deal damage."}
        for i in range(3)
    ]  # fmt: skip
    sheet = {"cards": {"u0": 1, "u1": 1, "u2": 2}, "foil": False}
    booster = {"boosters": [{"contents": {"common": 2}, "weight": 1}], "sheets": {"common": sheet}}
    return {"data": {"code": code, "name": "Tiny", "cards": cards, "booster": {"draft": booster}}}


def test_a_card_set_given_to_the_stack_plays_through_the_rules_service(tmp_path: Path) -> None:
    (tmp_path / "TNY.json").write_text(json.dumps(tiny_set("TNY")))
    with (
        Stack(settings={"MANAFORGE_CARD_SETS": str(tmp_path)}) as stack,
        grpc.insecure_channel(stack.rules_address) as channel,
    ):
        rules = RulesServiceStub(channel)
        games = {g.name: g for g in rules.ListGames(rules_pb2.ListGamesRequest(), timeout=10).games}
        config = GameConfig(game="manufactory", seats=games["manufactory"].min_seats, options={"card_set": "TNY"})
        state = rules.NewGame(rules_pb2.NewGameRequest(config=config, seed=7), timeout=10).state
        texts = []
        for _ in range(50):
            outcome = rules.GetOutcome(rules_pb2.GetOutcomeRequest(state=state), timeout=10)
            if outcome.finished:
                break
            view = rules.View(rules_pb2.ViewRequest(state=state, seat=0), timeout=10)
            texts.append(view.text)
            seat = next(s for s in range(config.seats) if rules.LegalActions(
                rules_pb2.LegalActionsRequest(state=state, seat=s), timeout=10).actions)  # fmt: skip
            action = rules.LegalActions(rules_pb2.LegalActionsRequest(state=state, seat=seat), timeout=10).actions[0]
            state = rules.Apply(rules_pb2.ApplyRequest(state=state, seat=seat, action=action.action), timeout=10).state
        assert outcome.finished
        assert any("Tiny Card" in text for text in texts)  # the set's own cards were dealt
