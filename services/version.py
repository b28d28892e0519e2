"""Which Manaforge a process is: the package's version (pyproject.toml, the one source, read from the installed
package's metadata) and the source commit (MANAFORGE_COMMIT, which images set at build; else git's HEAD when run
from a checkout). Every process shows them: a metric (manaforge_build_info), its health answer's metadata, its first
log line, and `manaforge --version` (docs/observability.md#version)."""

from __future__ import annotations

import functools
import importlib.metadata
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNKNOWN = "unknown"


@functools.cache
def version() -> str:
    try:
        return importlib.metadata.version("manaforge")
    except importlib.metadata.PackageNotFoundError:
        return UNKNOWN


@functools.cache
def _checkout_commit() -> str:
    if not (ROOT / ".git").exists():
        return UNKNOWN
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return UNKNOWN
    return done.stdout.strip() if done.returncode == 0 else UNKNOWN


def commit(configured: str = "") -> str:
    """The commit this process runs: `configured` (MANAFORGE_COMMIT) when set, else git's HEAD, else unknown."""
    return configured.strip() or _checkout_commit()


def describe(configured: str = "") -> str:
    """e.g. "0.3.0.dev0 (commit d9b7c8ccf0ff)"."""
    return f"{version()} (commit {commit(configured)[:12]})"
