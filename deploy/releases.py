"""Manaforge's releases as the repository records them (deploy/releases.txt), not as git tags: a clone has no tags.

    python -m deploy.releases             # every release, and the one this checkout upgrades from
    python -m deploy.releases --previous  # the previous release's commit only (what `make upgrade-test` checks out)
    python -m deploy.releases --image-tags  # the tags `make image` gives this checkout's image (with `current`)

The previous release of a checkout is the newest recorded release whose commit is an ancestor of HEAD other than HEAD
itself: at a release's own commit, the one before it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "deploy" / "releases.txt"


class ReleaseError(Exception):
    """The record is malformed, or this checkout lacks a commit it names; the message says which."""


@dataclass(frozen=True)
class Release:
    version: str
    commit: str
    date: str

    @property
    def key(self) -> tuple[int, ...]:
        return tuple(int(part) for part in self.version.split("."))


def releases(record: Path = RECORD) -> list[Release]:
    """Every recorded release, oldest first."""
    found = []
    for number, line in enumerate(record.read_text().splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 3 or len(words[1]) != 40 or not all(c in "0123456789abcdef" for c in words[1]):
            raise ReleaseError(f"{record.name}:{number}: expected 'VERSION FULL-COMMIT-HASH DATE', got {line!r}")
        found.append(Release(*words))
    if [r.key for r in found] != sorted({r.key for r in found}):
        raise ReleaseError(f"{record.name}: versions must be unique and in increasing order")
    return found


def git(*args: str, root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)


def head(root: Path = ROOT) -> str:
    done = git("rev-parse", "HEAD", root=root)
    if done.returncode:
        raise ReleaseError(f"not a git checkout: {done.stderr.strip()}")
    return done.stdout.strip()


def is_ancestor(commit: str, of: str, root: Path = ROOT) -> bool:
    done = git("merge-base", "--is-ancestor", commit, of, root=root)
    if done.returncode > 1:  # 1: not an ancestor; 128: the commit is not in this clone
        raise ReleaseError(f"commit {commit} is not in this clone (a shallow clone? `git fetch --unshallow`)")
    return done.returncode == 0


def previous(root: Path = ROOT) -> Release:
    """The release this checkout upgrades from."""
    now = head(root)
    for release in reversed(releases()):
        if release.commit != now and is_ancestor(release.commit, now, root):
            return release
    raise ReleaseError(f"no release recorded in {RECORD.name} comes before {now}")


def version(root: Path = ROOT) -> str:
    """The version this checkout's pyproject.toml gives."""
    with (root / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def is_release(root: Path = ROOT) -> bool:
    """Whether this checkout is the recorded commit of its own version (with no local changes is not checked)."""
    now, mine = head(root), version(root)
    return any(r.version == mine and r.commit == now for r in releases())


def image_tags(root: Path = ROOT) -> list[str]:
    """The image's tags: its version and commit (`0.3.0.dev0-d9b7c8ccf0ff`), and for a recorded release's own commit
    also the bare version (`0.2.0`), which no later build is given."""
    short, mine = head(root)[:12], version(root)
    return [mine, f"{mine}-{short}"] if is_release(root) else [f"{mine}-{short}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--previous", action="store_true", help="print the previous release's commit only")
    parser.add_argument("--image-tags", action="store_true", help="print the image tags of this checkout")
    args = parser.parse_args()
    try:
        if args.previous:
            print(previous().commit)
        elif args.image_tags:
            print("\n".join(image_tags()))
        else:
            for release in releases():
                print(f"{release.version:8} {release.commit} {release.date}")
            before = previous()
            print(f"this checkout ({version()} at {head()[:12]}) upgrades from {before.version} ({before.commit[:12]})")
    except ReleaseError as error:
        sys.exit(str(error))


if __name__ == "__main__":
    main()
