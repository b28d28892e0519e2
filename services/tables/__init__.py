"""The table service and its adapters: below both the gRPC gateway and the Celery workers, knowing neither.

- service.py: Tables, the one object callers hold, wired from one module per job (its docstring lists them) over
  lookup.py (what this process knows of each table)
- commit.py: the commit path (one compare-and-set per move, guesses confirmed by the script)
- fanout.py: the hub (one pub/sub connection per process, or per primary: shared by every watcher)
- subscriptions.py: the hub's pub/sub connections
- matchmaking.py: queues; players.py: players and ratings
- store/ + lua/: the Redis adapter, one module per aggregate; portal.py serves threaded callers
  (services/bootstrap.py wires it all)
"""
