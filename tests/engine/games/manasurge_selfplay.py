"""ManaSurge balance check: heuristic self-play, reporting how often the player of each Magic card (and each role,
with roles on) wins. The figures are recorded in engine_core/games/manasurge/RULES.md.

    .venv/bin/python -m tests.engine.games.manasurge_selfplay [games] [seats] [roles on|off]
"""

from __future__ import annotations

import sys
from collections import Counter

from manaforge.v1.common_pb2 import GameConfig

from engine_core.games.manasurge import GAME
from engine_core.games.manasurge.actions import Move
from engine_core.games.manasurge.cards import MAGIC_NAMES, ROLE_NAMES, Magic, Role, is_magic, magic_of
from engine_core.rng import new_rng


def play_game(seed: int, seats: int, roles: str) -> tuple[list[int], dict[int, set[int]], list[int], int]:
    """One heuristic game: (winners, Magic kind -> seats that played it, each seat's role, rounds)."""
    state = GAME.new_game(GameConfig(game="manasurge", seats=seats, options={"roles": roles}), seed)
    bot_rng = new_rng(seed * 7919 + 1)
    played: dict[int, set[int]] = {}
    while not GAME.is_terminal(state):
        seat = state.header.pending.seats[0]
        action = GAME.heuristic_action(GAME.view(state, seat), seat, GAME.legal_actions(state, seat), bot_rng)
        if action.move == Move.MANASURGE_MOVE_PLAY and is_magic(action.card):
            played.setdefault(magic_of(action.card), set()).add(seat)
        state, _ = GAME.apply(state, seat, action)
    return list(state.header.outcome.winners), played, [p.role for p in state.players], state.round


def main(games: int, seats: int, roles: str) -> None:
    plays: Counter[int] = Counter()
    wins: Counter[int] = Counter()
    role_games: Counter[int] = Counter()
    role_wins: Counter[int] = Counter()
    rounds = 0
    for seed in range(games):
        winners, played, seat_roles, game_rounds = play_game(seed, seats, roles)
        rounds += game_rounds
        for kind, by in played.items():
            for seat in by:
                plays[kind] += 1
                wins[kind] += seat in winners
        for seat, role in enumerate(seat_roles):
            if role:
                role_games[role] += 1
                role_wins[role] += seat in winners
    print(
        f"{games} heuristic games, {seats} seats, roles {roles}: {rounds / games:.1f} rounds a game; "
        f"a seat wins {100 / seats:.0f}% by chance"
    )
    print("Magic card        games played  player won")
    for kind in Magic:
        rate = 100 * wins[kind] / plays[kind] if plays[kind] else 0.0
        print(f"{MAGIC_NAMES[kind]:<16} {plays[kind]:>13}  {rate:>9.1f}%")
    if roles == "on":
        print("Role              games  holder won")
        for role in Role:
            rate = 100 * role_wins[role] / role_games[role] if role_games[role] else 0.0
            print(f"{ROLE_NAMES[role]:<16} {role_games[role]:>6}  {rate:>9.1f}%")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 400, int(args[1]) if len(args) > 1 else 4, args[2] if len(args) > 2 else "off")
