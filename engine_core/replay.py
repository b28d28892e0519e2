"""Replay validation: re-run a game from its seed and action log and find the first action that diverges."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from manaforge.v1.common_pb2 import GameConfig

from engine_core.errors import RulesError
from engine_core.game import Game


def state_digest(state: Message) -> str:
    """sha256 of the deterministic serialization: what the log records after every action."""
    return hashlib.sha256(state.SerializeToString(deterministic=True)).hexdigest()


@dataclass(frozen=True)
class LoggedStep:
    seat: int
    action: bytes  # the serialized action message
    digest: str  # state_digest after the action, as recorded when it was accepted


@dataclass(frozen=True)
class Verdict:
    ok: bool
    actions: int  # actions re-applied
    diverged_at: int | None = None  # 1-based index of the first diverging action
    detail: str = ""

    def __str__(self) -> str:
        if self.ok:
            return f"valid: {self.actions} actions re-applied from the seed, {self.detail or 'final state identical'}"
        return f"invalid: action #{self.diverged_at} diverges: {self.detail}"


def replay(
    game: Game[Any, Any], config: GameConfig, seed: int, log: Iterable[LoggedStep], final: bytes | None
) -> Verdict:
    """Re-apply `log` from `seed`; compare every step's digest and the final state with what was stored (`final`
    None: a game ended by the operator, whose stored state is not one the rules reached)."""
    state = game.new_game(config, seed)
    count = 0
    for count, step in enumerate(log, start=1):
        try:
            action = game.action_from_bytes(step.action)
            described = f"seat {step.seat}: {game.describe(state, action)}"
            state, _ = game.apply(state, step.seat, action)
        except RulesError as exc:
            return Verdict(False, count - 1, count, f"refused on replay ({exc})")
        if state_digest(state) != step.digest:
            return Verdict(False, count - 1, count, f"{described} gives a different state than recorded")
    if final is not None and state.SerializeToString(deterministic=True) != final:
        return Verdict(False, count, count + 1, "the stored final state is not the replayed one")
    return Verdict(True, count)
