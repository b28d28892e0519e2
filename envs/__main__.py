"""`python -m envs GAME [--seats N] [--options name=value,...]`: a game's action space (each part: its first index,
its coordinates) and the layout of its observation vector (each field: its place, its size, its encoding)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from envs.core import spec


def describe(name: str, seats: int | None = None, options: dict[str, str] | None = None) -> list[str]:
    found = spec(name, seats, options)
    lines = [f"{name}, {found.seats} seats: {found.actions:,} actions, an observation of {found.observations:,} values"]
    lines.append("actions (part: first index, coordinates):")
    for part, first, dims in found.spaces.actions.parts():
        shape = " x ".join(map(str, dims)) or "one action"
        lines.append(f"  {part:<26} {first:>6}  {shape}")
    if not found.spaces.exact:
        lines.append(f"  not exact: {found.spaces.note}")
    lines.append("observation (field: first index, size, encoding):")
    for region in found.encoder.regions:
        lines.append(f"  {region.path:<34} {region.offset:>6} {region.size:>6}  {region.encoding}")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("--seats", type=int, default=None, help="table size (default: the game's minimum)")
    parser.add_argument("--options", default="", help="game options as name=value,...")
    args = parser.parse_args(argv)
    options = dict(part.split("=", 1) for part in args.options.split(",") if part)
    print("\n".join(describe(args.game, args.seats, options)))


if __name__ == "__main__":
    main()
