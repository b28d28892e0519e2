"""Options of the whole suite."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--deploy",
        action="store_true",
        help="run the deployment test (tests/deploy): the images of `make image` started by podman kube play",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "deploy: the deployment test, run only with --deploy")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--deploy"):
        return
    skip = pytest.mark.skip(reason="the deployment test runs with --deploy (make deploy-test)")
    for item in items:
        if item.get_closest_marker("deploy"):
            item.add_marker(skip)
