"""engine_core imports only what its allow-list names (pyproject.toml, the contract of type "allowed"): read from the
sources, and seen at run time in a fresh interpreter that imports every game and bot and plays each a few moves.

The static check reads every engine_core source, compiled or not (a compiled module is built from the source beside
it, and tests/engine/test_compiled.py names a stale build). The run-time check records each import made by engine_core
code: through `__import__` for Python modules (the importer's module name), and for a module not loaded yet, by the
nearest Python frame of the import. A compiled module has no frame of its own, so what it imports is charged to the
engine_core module that imported it: still engine_core's. mypyc's runtime imports only what is already loaded, or the
group's shared library inside engine_core (engine_core.compiled__mypyc).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CONTRACT_TYPE = "allowed"
# What mypyc's runtime imports in every compiled module, whatever its source says (lib-rt's locks.c and misc_ops.c,
# and the generated code's builtins): excused for a module that ran compiled, never for a source.
MYPYC_RUNTIME = frozenset({"builtins", "importlib._bootstrap", "importlib.machinery", "os.path"})


def contract() -> dict[str, Any]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (found,) = [c for c in config["contracts"] if c["type"] == CONTRACT_TYPE and c["source_modules"] == ["engine_core"]]
    terms: dict[str, Any] = found
    return terms


def breaches(imports: list[tuple[str, str]], compiled: frozenset[str] = frozenset()) -> list[str]:
    """The (importer, imported) pairs the contract does not allow, as "importer -> imported" (`compiled`: the modules
    that ran compiled, whose runtime's own imports are excused)."""
    terms = contract()
    allowed = set(terms["allowed_modules"])
    ignored = {tuple(part.strip() for part in line.split("->")) for line in terms.get("ignore_imports", [])}
    found = {
        f"{importer} -> {imported}"
        for importer, imported in imports
        if (importer == "engine_core" or importer.startswith("engine_core."))
        and imported.split(".")[0] not in {"engine_core", *allowed}
        and (importer, imported) not in ignored
        and not (importer in compiled and imported in MYPYC_RUNTIME)
    }
    return sorted(found)


def module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_imports() -> list[tuple[str, str]]:
    """Every absolute import statement of every engine_core source (also those inside functions and TYPE_CHECKING)."""
    found: list[tuple[str, str]] = []
    for path in sorted((ROOT / "engine_core").rglob("*.py")):
        importer = module_of(path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found += [(importer, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.append((importer, node.module))
    return found


# Run in a fresh interpreter: records (importer, imported) for every import while every game and bot is imported
# and played, then prints them as JSON with the modules that ran compiled.
RECORDER = r"""
import builtins, importlib.abc, importlib.machinery, json, sys

records = set()
executing = []  # the modules whose code runs now, innermost last: (name, compiled)
real_import = builtins.__import__


def importer(name):
    # A compiled module's imports reach `__import__` from the import system's own code (no frame of the module's):
    # they are the compiled module's that is executing.
    if name.startswith(("importlib", "_frozen_importlib")) and executing and executing[-1][1]:
        return executing[-1][0]
    return name


def recording_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and globals is not None:
        records.add((importer(globals.get("__name__") or ""), name))
    return real_import(name, globals, locals, fromlist, level)


class Executing:
    # A loader that notes which module's code runs while the real loader creates and executes it.
    def __init__(self, loader, name):
        self.loader, self.name = loader, (name, isinstance(loader, importlib.machinery.ExtensionFileLoader))

    def __getattr__(self, attribute):
        return getattr(self.loader, attribute)

    def create_module(self, spec):
        executing.append(self.name)
        try:
            return self.loader.create_module(spec)
        finally:
            executing.pop()

    def exec_module(self, module):
        executing.append(self.name)
        try:
            self.loader.exec_module(module)
        finally:
            executing.pop()


class Recorder(importlib.abc.MetaPathFinder):
    # A module not loaded yet: charged to the module executing, else to the nearest Python frame's module.
    def find_spec(self, fullname, path, target=None):
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith(("importlib", "_frozen_importlib")):
            frame = frame.f_back
        records.add((executing[-1][0] if executing else frame.f_globals.get("__name__", "") if frame else "", fullname))
        for finder in sys.meta_path:
            spec = None if finder is self else finder.find_spec(fullname, path, target)
            if spec is not None:
                loader = spec.loader
                if loader is not None and hasattr(loader, "exec_module") and hasattr(loader, "create_module"):
                    spec.loader = Executing(loader, fullname)
                return spec
        return None


builtins.__import__ = recording_import
sys.meta_path.insert(0, Recorder())

import random
import pkgutil
import engine_core
from manaforge.v1.common_pb2 import GameConfig

for info in pkgutil.walk_packages(engine_core.__path__, "engine_core."):
    __import__(info.name)
from engine_core.registry import GAMES
from engine_core.bots import choose_action, levels_for

rand = random.Random(1)
for game in GAMES:
    state = game.new_game(GameConfig(game=game.info.name, seats=game.info.min_seats), 1)
    for step in range(20):
        if game.is_terminal(state):
            break
        seat = rand.choice(game.pending_seats(state))
        for level in levels_for(game) if step < 3 else []:
            choose_action(game, state, seat, level, seed=step, stop=lambda: True)
        state, _ = game.apply(state, seat, rand.choice(game.legal_actions(state, seat)))
    game.render(game.view(state, 0), 0)

builtins.__import__ = real_import
compiled = sorted(
    name for name, module in sys.modules.items()
    if name.startswith("engine_core") and (getattr(module, "__file__", "") or "").endswith(".so")
)
print(json.dumps({"imports": sorted(records), "compiled": compiled}))
"""


def test_engine_core_sources_import_only_the_allowed_modules() -> None:
    imports = source_imports()
    assert len({importer for importer, _ in imports}) > 50  # every module was read
    assert not breaches(imports), (
        f"engine_core imports modules off its allow-list (pyproject.toml): {breaches(imports)}"
    )


def test_every_game_and_bot_imports_only_the_allowed_modules_when_run() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RECORDER], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    imports = [(importer, imported) for importer, imported in seen["imports"]]
    by_engine = {imported for importer, imported in imports if importer.startswith("engine_core")}
    assert {"manaforge.v1.common_pb2", "dataclasses"} <= by_engine  # the recorder sees engine_core's imports
    compiled = frozenset(seen["compiled"])
    found = breaches(imports, compiled)
    assert not found, (
        f"engine_core imported modules off its allow-list (pyproject.toml) at run time: {found}; "
        f"{len(compiled)} modules ran compiled"
    )
