"""Prometheus metrics of the gateway (served on MANAFORGE_METRICS_PORT when set)."""

from prometheus_client import Counter, Gauge, Histogram

ACTIONS = Counter("manaforge_actions_total", "Actions submitted to the gateway, by result", ["result"])
SUBMIT_SECONDS = Histogram(
    "manaforge_submit_seconds",
    "Time to answer SubmitAction",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1.0),
)
WATCHERS = Gauge("manaforge_watchers", "Watch streams open on this gateway")
