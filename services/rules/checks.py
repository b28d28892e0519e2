"""What the rules service checks of a state a client sends before any rule runs on it: the state must be one the
game itself could have reached. Refusals are INVALID_ARGUMENT and name what is wrong.

- its config is one the game accepts (game, seat count, options);
- card conservation: the multiset of card ids in it equals that of the game's first deal, which its own
  generator's seed recreates (every action conserves cards: the conformance suite checks it), so no card is
  missing, doubled (one card in two hands) or unknown (an id out of range);
- its pending decision names distinct seats of the table, none once the game is over;
- the game can read it: listing each pending seat's actions and each seat's view raises nothing but rules errors.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any

from engine_core.errors import MalformedActionError, RulesError
from engine_core.registry import AnyGame

_FIRST_DEALS: OrderedDict[bytes, Counter[int]] = OrderedDict()  # (config, seed) -> card ids of the first deal
_REMEMBERED = 1024


def check_state(game: AnyGame, state: Any, exercise: bool = True) -> None:
    """Refuse a state the game could not have reached. `exercise`: also list every pending seat's actions and render
    every view (the Move path of a gateway skips it: the move itself exercises the state)."""
    header = game.header(state)
    config = header.config
    try:
        checked = game.check_config(config)
    except RulesError as exc:
        raise MalformedActionError("state config", str(exc)) from None
    seats = checked.seats
    _check_cards(game, state, header)
    pending = list(header.pending.seats)
    if len(set(pending)) != len(pending) or any(not 0 <= s < seats for s in pending):
        raise MalformedActionError("state pending", f"pending seats {pending[:8]} are not distinct seats of {seats}")
    if header.outcome.finished and pending:
        raise MalformedActionError("state pending", "a finished game waits for no one")
    if not exercise:
        return
    try:
        for seat in pending:
            game.legal_actions(state, seat)
        for seat in [*range(seats), None]:
            game.view(state, seat)
    except RulesError:
        raise
    except Exception as exc:  # the engine could not read it: a state no game reaches
        raise MalformedActionError("state", f"the game cannot read this state ({type(exc).__name__})") from None


def _check_cards(game: AnyGame, state: Any, header: Any) -> None:
    key = header.config.SerializeToString(deterministic=True) + header.rng.seed.to_bytes(8, "big")
    first = _FIRST_DEALS.get(key)
    if first is None:
        first = Counter(game.cards(game.new_game(header.config, header.rng.seed)))
        _FIRST_DEALS[key] = first
        if len(_FIRST_DEALS) > _REMEMBERED:
            _FIRST_DEALS.popitem(last=False)
    now = Counter(game.cards(state))
    if now != first:
        doubled = sorted(c for c in now if now[c] > first.get(c, 0))
        missing = sorted(c for c in first if first[c] > now.get(c, 0))
        raise MalformedActionError(
            "card conservation",
            f"cards {doubled[:5]} appear more often than the game has them, cards {missing[:5]} are missing",
        )
