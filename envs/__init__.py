"""Research environments for every registered game: PettingZoo (`envs.aec`) and OpenSpiel (`envs.spiel`).

Both play the engines of engine_core through the fixed spaces each game declares (engine_core.spaces): a numbered
action space per game and seat count, and an observation built from one seat's view alone. docs/envs.md has the
encodings, the figures and the test commands. This package imports engine_core and the research libraries only;
nothing in engine_core, services or gateway imports it (import-linter checks both).
"""
