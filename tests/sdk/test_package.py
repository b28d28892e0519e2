"""The SDK package's own files, held to the project's: its pins are requirements.lock's, and docs/sdk.md's tutorial
shows examples/first_bot.py as it is (the stack tests run the file itself)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def locked() -> dict[str, str]:
    pins = (line.split("==") for line in (ROOT / "requirements.lock").read_text().split() if "==" in line)
    return {name.lower(): version for name, version in pins}


def test_the_sdk_pins_the_versions_the_project_locks() -> None:
    sdk = tomllib.loads((ROOT / "sdk" / "pyproject.toml").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    lock = locked()
    runtime = dict(pin.split("==") for pin in sdk["project"]["dependencies"])
    build = dict(pin.split("==") for pin in sdk["build-system"]["requires"])
    assert set(runtime) == {"grpcio", "protobuf"} and set(build) == {"setuptools", "grpcio-tools", "mypy-protobuf"}
    for name, version in {**runtime, **build}.items():
        expected = lock.get(name) or dict(pin.split("==") for pin in project["build-system"]["requires"])[name]
        assert version == expected, f"sdk/pyproject.toml pins {name}=={version}, the project {expected}"


def test_the_tutorial_shows_the_first_bot_as_it_is_and_it_is_20_lines() -> None:
    example = (ROOT / "examples" / "first_bot.py").read_text()
    tutorial = (ROOT / "docs" / "sdk.md").read_text()
    assert f"```python\n{example}```" in tutorial
    assert len(example.splitlines()) == 20
