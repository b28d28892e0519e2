"""Bots written with the client SDK (manaforge_sdk): run one with `.venv/bin/python examples/first_bot.py`."""
