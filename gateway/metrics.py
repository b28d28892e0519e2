"""Prometheus metrics of the gateway (served on MANAFORGE_METRICS_PORT when set)."""

from prometheus_client import Counter, Gauge, Histogram

ACTIONS = Counter("manaforge_actions_total", "Actions submitted to the gateway, by result", ["result"])
SUBMIT_SECONDS = Histogram(
    "manaforge_submit_seconds",
    "Time to answer SubmitAction",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1.0),
)
WATCHERS = Gauge("manaforge_watchers", "Watch streams open on this gateway")
# Kept by each gateway's heartbeat (gateway/admin.py), for the alert rules (deploy/prometheus/alerts.yml).
REDIS_UP = Gauge("manaforge_redis_up", "1 while this gateway's latest heartbeat reached Redis, else 0")
OUTBOX_ITEMS = Gauge("manaforge_outbox_items", "Follow-up items waiting in the outbox (every shard)")
OUTBOX_LAG = Gauge("manaforge_outbox_lag_seconds", "Seconds the most overdue outbox item has been due (0: none)")
STREAMS_BUSIEST = Gauge("manaforge_streams_busiest_address", "Streams open from this gateway's busiest client address")
STREAMS_LIMIT = Gauge("manaforge_streams_limit", "Streams one client address may open (MANAFORGE_LIMIT_STREAMS)")
