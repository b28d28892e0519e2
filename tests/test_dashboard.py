"""The Grafana dashboard only charts metrics the services export (it would show empty panels otherwise)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import REGISTRY

import gateway.metrics
import services.observability
import services.tables.metrics

DASHBOARD = Path(__file__).resolve().parent.parent / "deploy" / "grafana" / "manaforge.json"


def exported() -> set[str]:
    assert gateway.metrics and services.observability and services.tables.metrics  # registered on import
    names = set()
    for collector in list(REGISTRY._collector_to_names):  # every sample name each collector exports
        names.update(REGISTRY._collector_to_names[collector])
    return names


def test_every_panel_charts_exported_metrics() -> None:
    panels = json.loads(DASHBOARD.read_text())["panels"]
    assert len(panels) >= 10
    names = exported()
    for panel in panels:
        for target in panel["targets"]:
            used = set(re.findall(r"manaforge_[a-z_]+", target["expr"]))
            assert used, panel["title"]
            assert used <= names, f"{panel['title']}: {used - names} not exported"
