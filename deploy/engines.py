"""Compiled engines: the rules modules built into C extensions with mypyc (`make engines`).

The Python sources stay the engines' one definition; mypyc compiles the same type-annotated code, and the extension
module (`<module>.cpython-311-<platform>.so`, beside its source) is what `import` finds first. A build records the
SHA-256 of every engine_core source it read in `build/engines.json`, so a stale build can be named (`--check`,
tests/engine/test_compiled.py) instead of silently running yesterday's rules.

    python -m deploy.engines            # build when a module is missing or stale (`make engines`); --force: always
    python -m deploy.engines --check    # exit 1, naming the modules, when a build is missing or stale
    python -m deploy.engines --clean    # remove the extensions: the engines run as plain Python again

What is compiled is `compiled()`: `MODULES` and every game folder whose game class is marked
`@mypyc_attr(native_class=False)` (`MARK`), which a compiled game class needs anyway, so that its class
attributes (`state_type`, `info`, ...) stay Python class attributes. A compiled game class cannot be subclassed in
Python (its methods check `self`'s exact class): cardbench, the peers' workload, stays Python for that
(tests/engine/test_bots.py derives a weak cardbench from it; it is 2.7x UNO's speed as Python). mypyc 2.4.1 stops
with an internal error on a lambda inside a method of a class that is not native: write a comprehension or an
`operator.attrgetter` instead (R&D's heuristic does). docs/engine-speed.md has the figures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = Path("build", "engines.json")  # relative to the project root
MODULES = ("engine_core/rng.py", "engine_core/cards/booster.py")  # compiled beside the games, relative to the root
GAMES = Path("engine_core", "games")
MARK = "@mypyc_attr(native_class=False)"  # on a game's class: its folder is compiled (see the module's docstring)


def compiled(root: Path = ROOT) -> tuple[str, ...]:
    """What is compiled, relative to the project root: `MODULES` and every game folder (each module in it) whose
    `__init__.py` marks its game class with `MARK`, so a new game is compiled by marking it, with no line here."""
    folders = sorted(path.parent for path in (root / GAMES).glob("*/__init__.py") if MARK in path.read_text())
    return (*MODULES, *(folder.relative_to(root).as_posix() for folder in folders))


GROUP = "engine_core.compiled"  # the library the modules share: engine_core/compiled__mypyc.<suffix>, in the package
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def sources(root: Path = ROOT) -> list[Path]:
    """The Python files compiled, relative to `root`, in a stable order."""
    found: list[Path] = []
    for entry in compiled(root):
        path = root / entry
        found += sorted(path.glob("*.py")) if path.is_dir() else [path]
    return [path.relative_to(root) for path in found]


def module_name(source: Path) -> str:
    parts = source.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def extension(source: Path) -> Path:
    """Where the extension of a source lands: beside it, as `import` looks for it."""
    return source.with_name(source.stem + SUFFIX)


def source_of(built: Path) -> Path:
    """The source of an extension: `rules.cpython-311-x86_64-linux-gnu.so` -> `rules.py`, beside it."""
    return built.with_name(built.name.split(".")[0] + ".py")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def inputs(root: Path = ROOT) -> list[Path]:
    """What a build depends on: every Python file of engine_core. mypyc reads the types (and may fold the `Final`
    constants) of the modules the compiled ones import, compiled or not, so a change to any of them rebuilds."""
    return sorted(path.relative_to(root) for path in (root / "engine_core").rglob("*.py"))


def stale(root: Path = ROOT) -> list[str]:
    """What a build would change, by module: a compiled module whose extension is missing, any engine_core module
    whose source differs from what the last build read, and any extension under engine_core that `compiled()` no
    longer names (import would load it)."""
    try:
        built = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        built = {}
    files = sources(root)
    missing = [source for source in files if not (root / extension(source)).exists()]
    changed = [source for source in inputs(root) if built.get(str(source)) != digest(root / source)]
    changed += [Path(name) for name in built if not (root / name).exists()]  # a module removed since
    expected = {root / extension(source) for source in files}
    *package, name = GROUP.split(".")
    shared = root.joinpath(*package, f"{name}__mypyc{SUFFIX}")
    strays = [
        source_of(path.relative_to(root))
        for path in (root / "engine_core").rglob(f"*{SUFFIX}")
        if path not in expected and path != shared
    ]
    return sorted({module_name(source) for source in (*missing, *changed, *strays)})


def clean(root: Path = ROOT) -> None:
    for built in (root / "engine_core").rglob(f"*{SUFFIX}"):  # also those of modules no longer compiled
        built.unlink()
    for shared in root.glob(f"*__mypyc{SUFFIX}"):  # a build's shared library from before it lived in engine_core
        shared.unlink()
    (root / MANIFEST).unlink(missing_ok=True)


def build(root: Path = ROOT) -> None:
    """Compile `compiled()` in place (a C compiler and the Python headers are needed), then record its inputs."""
    from mypyc.build import mypycify  # a dev dependency: imported only to build
    from setuptools import setup  # type: ignore[import-untyped]

    files = sources(root)
    digests = {str(source): digest(root / source) for source in inputs(root)}  # read before compiling
    clean(root)
    here = Path.cwd()
    os.chdir(root)
    try:
        setup(
            name="manaforge-engines",
            ext_modules=mypycify([str(source) for source in files], opt_level="3", group_name=GROUP),
            script_args=["--quiet", "build_ext", "--inplace", "--build-temp", "build/engines"],
        )
    finally:
        os.chdir(here)
    (root / MANIFEST).parent.mkdir(parents=True, exist_ok=True)
    (root / MANIFEST).write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="exit 1 when a compiled module is missing or stale")
    group.add_argument("--clean", action="store_true", help="remove the compiled modules")
    group.add_argument("--force", action="store_true", help="build even when every module is up to date")
    args = parser.parse_args(argv)
    if args.check:
        missing = stale()
        if missing:
            sys.exit(f"compiled engines out of date for these modules (run `make engines`): {', '.join(missing)}")
        print(f"compiled engines up to date: {len(sources())} modules")
    elif args.clean:
        clean()
    elif args.force or stale():
        build()
        print(f"compiled {len(sources())} engine modules with mypyc")
    else:
        print(f"compiled engines up to date: {len(sources())} modules")


if __name__ == "__main__":
    main()
