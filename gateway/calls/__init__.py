"""The Gateway service's calls (proto/manaforge/v1/gateway.proto), one module per concern over what every call
shares (common.py: the table service, the limits, who is calling). gateway/server.py makes them one servicer.

- tables.py: the games, tables and seats (create, list, join, rejoin), a finished game's log
- live.py: a seat's moves and updates (SubmitAction, GetView, Watch, Play) and a player's Events stream
- players.py: players, ratings and matchmaking
- challenges.py: bot accounts and challenges between players
"""
