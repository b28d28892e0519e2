"""The alert rules (deploy/prometheus/alerts.yml): every metric they name is one our processes export, and, where
promtool is installed (Debian's prometheus package: `make promtool`), they load and each fires on its cases in
alerts.test.yml and not before."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client import REGISTRY

import gateway.metrics
import services.observability
import services.tables.metrics
import services.workers.dispatcher

RULES = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"
EXPORTERS = (gateway.metrics, services.observability, services.tables.metrics, services.workers.dispatcher)  # by import
SUFFIXES = ("", "_total", "_bucket", "_count", "_sum", "_created")


def exported() -> set[str]:
    return {family.name + suffix for family in REGISTRY.collect() for suffix in SUFFIXES}


def named_metrics(expr: str) -> set[str]:
    return set(re.findall(r"\bmanaforge_[a-z_]+\b", expr))


def test_every_alert_names_metrics_we_export_and_the_conditions_are_covered() -> None:
    rules = [rule for group in yaml.safe_load((RULES / "alerts.yml").read_text())["groups"] for rule in group["rules"]]
    assert {rule["alert"] for rule in rules} == {
        "ManaforgeOutboxLagging",
        "ManaforgeCommitErrors",
        "ManaforgeRedisUnreachable",
        "ManaforgeStreamsNearLimit",
        "ManaforgeLongGcPause",
        "ManaforgeProcessDown",
        "ManaforgeNoWorker",
    }
    known = exported()
    for rule in rules:
        names = named_metrics(rule["expr"])
        scraped = re.search(r"\bup\{job=", rule["expr"])  # Prometheus's own `up` of our scrape jobs
        assert names or scraped, f"{rule['alert']} names no metric"
        assert names <= known, f"{rule['alert']}: {sorted(names - known)} are not exported"
        assert rule["labels"]["severity"] in ("page", "warn") and rule["annotations"]["summary"]


@pytest.mark.skipif(not shutil.which("promtool"), reason="promtool is not installed (make promtool)")
def test_promtool_loads_the_rules_and_each_alert_fires_on_its_cases() -> None:
    for command in (["check", "rules", "alerts.yml"], ["test", "rules", "alerts.test.yml"]):
        done = subprocess.run(["promtool", *command], cwd=RULES, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
