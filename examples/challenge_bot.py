"""A bot account that takes challenges (docs/sdk.md): it accepts every challenge of cardbench while it plays fewer
than two games, declines the others, and plays each game with a random legal move, until stopped (Ctrl-C)."""

import random
import sys

import manaforge_sdk as mf


def bot(view: mf.View, legal_actions: mf.LegalActions) -> mf.Action:
    action, _text = random.choice(legal_actions)
    return action


def cardbench_only(challenge: mf.ChallengeMessage) -> bool:
    return challenge.config.game == "cardbench"


client = mf.connect()  # the gateway of `make run` (or MANAFORGE_GATEWAY)
client.register(sys.argv[1] if len(sys.argv) > 1 else "challenge_bot")  # once; then the saved key
if not client.me().bot:
    client.upgrade_to_bot()  # for good: only before any rated game
print(f"bot account {client.me().name} ({client.me().player_id}): waiting for challenges", flush=True)
games = int(sys.argv[2]) if len(sys.argv) > 2 else None  # stop after this many games (default: never)
for result in mf.serve(client, bot, max_games=2, accept=cardbench_only, games=games):
    print(f"table {result.table_id}: {result}", flush=True)
