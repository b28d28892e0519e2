"""The bridge back: a policy trained on the environments plays on the platform as a bot, through the client SDK.

    import manaforge_sdk as mf
    from envs.bridge import policy_bot

    def policy(observation, action_mask):      # numpy float32 vector, int8 mask -> an action index
        return int(action_mask.argmax())

    with mf.connect() as client:
        seat = client.create_table("manasurge", bots={1: "heuristic"})
        print(client.play(seat.table_id, seat.token, policy_bot(policy)))       # or mf.serve(client, policy_bot(...))

The SDK's runner hands a bot the seat's view (the game's state message as the gateway sends it) and its legal
actions; `policy_bot` turns them into the very observation and mask the environments give that seat (one encoder,
`engine_core.spaces`: `ViewEncoder.into` for the observation, `legal_indices` for the mask), asks the policy, and
answers with the legal action at the index it chose (where several share an index, the first the rules list, as
the environments take). The game and its config (seat count, options) are read from the view's header, so one
policy bot serves any table of the game it was trained on; its seat comes from the runner (`for_seat`).

This module needs the engines (`engine_core`) and numpy, not PettingZoo or OpenSpiel, and the SDK does not import it
(the SDK stands alone on the gateway's API: import-linter checks it): run a policy bot from a Manaforge checkout.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
from manaforge.v1.common_pb2 import GameConfig

from engine_core.game import Game
from engine_core.registry import find_game
from engine_core.spaces import Spaces, ViewEncoder, encoder_for, legal_indices

Policy = Callable[[np.ndarray[Any, np.dtype[np.float32]], np.ndarray[Any, np.dtype[np.int8]]], int]
"""(observation vector, action mask) -> the index of a legal action."""


class PolicyError(ValueError):
    """The policy chose an index its mask does not allow."""


@cache
def _encoding(config_bytes: bytes) -> tuple[Game[Any, Any], Spaces, ViewEncoder]:
    config = GameConfig.FromString(config_bytes)
    game = find_game(config.game)
    checked = game.check_config(config)
    return game, game.spaces(checked), encoder_for(game, checked)


def encoded(
    view: Any, seat: int, legal: list[Any]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], dict[int, Any]]:
    """The seat's observation vector, its action mask and its legal actions by index, from its view (the game's
    state message as the seat sees it) and legal actions: what the environments give the seat at that state."""
    _, spaces, encoder = _encoding(game_config(view).SerializeToString(deterministic=True))
    observation = np.zeros(encoder.size, np.float32)
    encoder.into(view, seat, observation)
    by_index = legal_indices(spaces, view, seat, legal)
    mask = np.zeros(spaces.actions.size, np.int8)
    mask[list(by_index)] = 1
    return observation, mask, by_index


def game_config(view: Any) -> GameConfig:
    config: GameConfig = view.header.config
    return config


class PolicyBot:
    """A bot of the SDK's runner made from a policy: `for_seat(seat)` gives the function the runner asks."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def for_seat(self, seat: int) -> Callable[[Any, list[tuple[Any, str]]], Any]:
        def bot(view: Any, legal: list[tuple[Any, str]]) -> Any:
            observation, mask, by_index = encoded(view, seat, [action for action, _ in legal])
            index = int(self.policy(observation, mask))
            action = by_index.get(index)
            if action is None:
                raise PolicyError(f"the policy chose index {index}, which its mask does not allow at this decision")
            return action

        return bot

    def __call__(self, view: Any, legal: list[tuple[Any, str]]) -> Any:
        raise TypeError("a policy bot needs its seat: play it with the SDK's runner (play, serve), which sets it")


def policy_bot(policy: Policy) -> PolicyBot:
    """The policy as a bot for `manaforge_sdk.play` / `serve`."""
    return PolicyBot(policy)
