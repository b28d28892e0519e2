"""The table service and its adapters: below both the gRPC gateway and the Celery workers, knowing neither.

- service.py: Tables, what players do (create, join, submit, view, watch) and the scheduled work (bots, timers)
- commit.py: the commit path (one compare-and-set per move, guesses confirmed by the script)
- fanout.py: the hub (one pub/sub connection per process, shared by every watcher)
- matchmaking.py: queues
- store.py + lua/: the Redis adapter; portal.py serves threaded callers (services/bootstrap.py wires it all)
"""
