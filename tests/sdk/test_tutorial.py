"""docs/sdk.md's tutorial shows examples/first_bot.py as it is (the stack tests run the file itself)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_tutorial_shows_the_first_bot_as_it_is_and_it_is_20_lines() -> None:
    example = (ROOT / "examples" / "first_bot.py").read_text()
    tutorial = (ROOT / "docs" / "sdk.md").read_text()
    assert f"```python\n{example}```" in tutorial
    assert len(example.splitlines()) == 20
