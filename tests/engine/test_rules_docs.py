"""Every game's rules document exists, and every test it cites as covering a rule exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from engine_core import GAMES, Game

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTED = [g for g in GAMES if g.info.name != "cardbench"]  # cardbench is a benchmark, not a rulebook game


def _test_names() -> set[str]:
    names = {path.stem for path in (ROOT / "tests").rglob("test_*.py")}
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.add(node.name)
    return names


@pytest.mark.parametrize("game", DOCUMENTED, ids=[g.info.name for g in DOCUMENTED])
def test_rules_document_cites_only_tests_that_exist(game: Game[Any, Any]) -> None:
    document = ROOT / "engine_core" / "games" / game.info.name / "RULES.md"
    assert document.exists(), f"{game.info.title} has no rules document"
    cited = set(re.findall(r"`(?:[\w/.]+::)?(test_\w+)(?:\.py)?`", document.read_text()))
    cited |= set(re.findall(r"::(test_\w+)", document.read_text()))
    assert len(cited) >= 10, f"{document} cites only {len(cited)} tests"
    names = _test_names()
    # a citation ending in "_" (`test_barrier_blocks_…`) names the group of tests that start with it
    missing = sorted(
        c for c in cited if c not in names and not (c.endswith("_") and any(n.startswith(c) for n in names))
    )
    assert not missing, f"{document} cites tests that do not exist: {missing}"
