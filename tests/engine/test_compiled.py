"""The compiled engines (deploy/engines.py, built by `make engines`): built from the sources as they are now, loaded
in place of the sources, and playing exactly the games the sources play."""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import re
import subprocess
import sys
from pathlib import Path

from deploy import engines

GAMES = sorted({engines.module_name(source).split(".")[2] for source in engines.sources() if "games" in source.parts})


def test_the_compiled_engines_are_built_from_the_sources_as_they_are() -> None:
    assert engines.stale() == [], "the compiled engines are out of date: run `make engines`"
    for source in engines.sources():
        module = importlib.import_module(engines.module_name(source))
        assert isinstance(module.__loader__, importlib.machinery.ExtensionFileLoader), module.__name__


def test_the_compiled_engines_load_outside_the_project_folder(tmp_path: Path) -> None:
    """A worker or a gateway started elsewhere finds the library the modules share: it lives in engine_core."""
    done = subprocess.run(
        [sys.executable, "-c", "import engine_core.games.magicka as m; print(type(m.__loader__).__name__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip() == "ExtensionFileLoader"


def test_the_compiled_modules_constants_are_final() -> None:
    """Compiled code reads a `Final` module name from a C variable and any other from the module's dictionary, at
    every use (docs/adding-a-game.md): every name in capitals bound at a compiled module's top level is `Final`."""
    plain = []
    for source in engines.sources():
        for node in ast.parse((engines.ROOT / source).read_text()).body:
            if isinstance(node, ast.Assign):
                targets = [n for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and "Final" not in ast.unparse(node.annotation):
                targets = [node.target] if isinstance(node.target, ast.Name) else []
            else:
                continue
            value = node.value
            if isinstance(value, ast.Call) and ast.unparse(value.func) in ("TypeVar", "NewType"):
                continue
            plain += [f"{source}:{node.lineno} {t.id}" for t in targets if re.fullmatch(r"_?[A-Z][A-Z0-9_]*", t.id)]
    assert plain == []


def playouts(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.engine.playouts", "--games", "6", *args, *GAMES],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return done.stdout.splitlines()


def test_compiled_and_python_engines_play_the_same_games() -> None:
    assert GAMES == ["blueprints", "magicka", "mana_burn", "manasurge", "manufactory", "rnd"]
    *compiled, compiled_modules = playouts()
    *source, source_modules = playouts("--source")
    assert compiled == source
    assert len(compiled) == len(GAMES)
    assert source_modules == "compiled: none"
    expected = {engines.module_name(path) for path in engines.sources()} | {f"{engines.GROUP}__mypyc"}
    assert set(compiled_modules.split()[1:]) == expected


def test_a_game_folder_is_compiled_when_its_game_class_is_marked(tmp_path: Path) -> None:
    """A new game is compiled by marking its class, with no line in deploy/engines.py; an unmarked one (cardbench)
    stays Python."""
    games = tmp_path / engines.GAMES
    for name, marked in (("pebbles", True), ("plain", False)):
        (games / name).mkdir(parents=True)
        mark = f"{engines.MARK}\n" if marked else ""
        (games / name / "__init__.py").write_text(f"{mark}class Game:\n    pass\n")
        (games / name / "rules.py").write_text("")
    assert engines.compiled(tmp_path) == (*engines.MODULES, "engine_core/games/pebbles")
    assert "engine_core/games/cardbench" not in engines.compiled()
    assert {"engine_core/games/magicka", "engine_core/games/rnd"} <= set(engines.compiled())
