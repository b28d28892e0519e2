"""Options of the whole suite."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--deploy",
        action="store_true",
        help="run the deployment test (tests/deploy): the images of `make image` started by podman kube play",
    )
    parser.addoption(
        "--upgrade",
        action="store_true",
        help="run the upgrade test (tests/upgrade): the previous release replaced by this one, process by process",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "deploy: the deployment test, run only with --deploy")
    config.addinivalue_line("markers", "upgrade: the upgrade test, run only with --upgrade")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for option, marker, target in (("--deploy", "deploy", "deploy-test"), ("--upgrade", "upgrade", "upgrade-test")):
        if config.getoption(option):
            continue
        skip = pytest.mark.skip(reason=f"the {marker} test runs with {option} (make {target})")
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(skip)
