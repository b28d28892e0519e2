"""The path of one move through the code (deploy/move_path.py): the seat token is hashed once, and the move goes
down through the table service's facade once and comes back once."""

from __future__ import annotations

from typing import Any

from deploy.move_path import collapsed, one_move


def test_a_move_hashes_its_seat_token_once_and_crosses_the_facade_once(direct_tables: Any, portal: Any) -> None:
    trace = portal.run(one_move(direct_tables))
    assert trace.token_hashes == 1
    path = collapsed([name for name in trace.path if not name.startswith("engine_core")])
    assert path.count("services/tables/service.py") == 2  # down, then back up with the answer
    assert path[:3] == ["services/edge.py", "gateway/calls/live.py", "services/tables/service.py"]
