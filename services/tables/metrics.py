"""Prometheus metrics of the table service (in whichever process runs it: gateways and workers)."""

from prometheus_client import Counter, Histogram

COMMITS = Counter("manaforge_commits_total", "Compare-and-set answers, by game and result", ["game", "result"])
FANOUT_SECONDS = Histogram(
    "manaforge_fanout_seconds",
    "From a commit reaching this process's hub to a watcher's update leaving it",
    buckets=(0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5),
)
BOT_SECONDS = Histogram(
    "manaforge_bot_decision_seconds",
    "Time a bot took to choose, by game and level",
    ["game", "level"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0),
)
VERDICTS = Counter("manaforge_replay_verdicts_total", "Replay validations, by game and verdict", ["game", "verdict"])
QUEUE_WAIT_SECONDS = Histogram(
    "manaforge_queue_wait_seconds",
    "Time a matchmaking ticket waited until its table was made",
    ["game"],
    buckets=(0.1, 1, 5, 10, 30, 60, 120, 300, 600),
)
FOLLOW_UPS = Counter(
    "manaforge_follow_ups_total", "Follow-up items run, by kind and whether they acted", ["kind", "acted"]
)
DISPATCHED = Counter("manaforge_dispatched_total", "Follow-up items claimed from the outbox and sent to a worker")
SWEPT = Counter("manaforge_swept_total", "Follow-up items the sweeper armed because the outbox lacked them")
