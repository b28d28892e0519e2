"""The path of one move through the code: a SubmitAction handled by the gateway's servicer, the table service and
the store over a real redis-server (the engine in-process, the caches warm: the common case), followed with
`sys.setprofile`.

It lists the project files (gateway/, services/, engine_core/; libraries and generated protos left out) in the
order execution moves between them: a call enters the callee's file, a return comes back to the caller's, and a
coroutine suspended at an await and resumed stays where it was. It counts the files crossed, the moves between files
and the returns to a file already left, for the whole path and for gateway/ and services/ alone, and how often a
seat token is hashed.

    python -m deploy.move_path
"""

from __future__ import annotations

import asyncio
import dis
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import redis.asyncio as aioredis
from manaforge.v1.common_pb2 import GameConfig
from manaforge.v1.gateway_pb2 import SubmitActionRequest

from deploy.launcher import free_port, wait_for_redis
from gateway.server import GatewayServicer
from services.tables.multiplex import Multiplexed
from services.tables.service import Tables
from services.tables.store import RedisStore

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("gateway", "services", "engine_core")
YIELD = dis.opmap["YIELD_VALUE"]
TOKEN_HASHES = ("token_digest", "hash_seat_token")  # the seat token's hash, by its name before and after issue 33


def project_file(filename: str) -> str | None:
    try:
        relative = Path(filename).resolve().relative_to(ROOT)
    except ValueError:
        return None
    return str(relative) if relative.parts[0] in LAYERS else None


class Context:
    """What the servicer reads of a gRPC call's context."""

    def invocation_metadata(self) -> tuple[()]:
        return ()

    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"

    async def abort(self, code: Any, details: str) -> None:
        raise RuntimeError(f"{code}: {details}")


class Trace:
    """The files one coroutine's calls move through (`root`: the code of the coroutine that makes the call)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.path: list[str] = []
        self.calls: Counter[str] = Counter()
        self._seen: set[int] = set()
        self._frames: list[FrameType] = []  # kept alive, so that no frame id is reused while tracing

    @property
    def token_hashes(self) -> int:
        """How often the seat token was hashed."""
        return sum(self.calls[name] for name in TOKEN_HASHES)

    def _in_move(self, frame: FrameType | None) -> bool:
        while frame is not None:
            if frame.f_code is self.root:
                return True
            frame = frame.f_back
        return False

    def _nearest(self, frame: FrameType | None) -> str | None:
        while frame is not None and frame.f_code is not self.root:
            name = project_file(frame.f_code.co_filename)
            if name:
                return name
            frame = frame.f_back
        return None

    def _note(self, name: str | None) -> None:
        if name and (not self.path or self.path[-1] != name):
            self.path.append(name)

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event not in ("call", "return") or frame.f_code is self.root or not self._in_move(frame):
            return
        name = project_file(frame.f_code.co_filename)
        if event == "call":
            if id(frame) in self._seen:
                return  # a coroutine resumed: execution is where it was
            self._seen.add(id(frame))
            self._frames.append(frame)
            if name:
                self.calls[frame.f_code.co_name] += 1
            self._note(name)
        elif name:
            code = frame.f_code.co_code
            if 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == YIELD:
                return  # suspended at an await: it resumes here
            self._note(self._nearest(frame.f_back))


def collapsed(files: list[str]) -> list[str]:
    """The files in the order execution moved between them (a file once per stay)."""
    return [name for i, name in enumerate(files) if i == 0 or files[i - 1] != name]


def returns(path: list[str]) -> int:
    """The moves back into a file already left."""
    return sum(1 for i, name in enumerate(path) if name in path[:i])


def summary(title: str, files: list[str]) -> list[str]:
    path = collapsed(files)
    entered = Counter(path)
    return [
        f"{title}: {len(entered)} files crossed, {len(path) - 1} moves between files, "
        f"{returns(path)} returns to a file already left",
        "  " + " -> ".join(path),
        "  entered: " + ", ".join(f"{name} {count}" for name, count in entered.most_common()),
    ]


def report(trace: Trace) -> list[str]:
    return [
        "one SubmitAction (cardbench, 2 seats, warm caches, rules in-process): "
        f"the seat token hashed {trace.token_hashes} time(s)",
        *summary("whole path", trace.path),
        *summary("gateway/ and services/", [p for p in trace.path if not p.startswith("engine_core")]),
    ]


async def one_move(tables: Tables) -> Trace:
    """Two moves at a new table of two guests; the second one traced."""
    servicer = GatewayServicer(tables)
    context = Context()
    made, _, first = await tables.create_table(GameConfig(game="cardbench", seats=2), [], player_name="first guest")
    _, _, second = await tables.join_table(made.table_id, "second guest")
    seat_tokens = {0: first, 1: second}

    async def request() -> SubmitActionRequest:
        seat = (await tables.table(made.table_id)).pending.seats[0]
        view = await tables.view(made.table_id, seat_tokens[seat])
        return SubmitActionRequest(
            table_id=made.table_id,
            seat_token=seat_tokens[seat],
            action=view.legal_actions[0].action,
            client_action_id=f"move-{time.monotonic_ns()}",
        )

    await servicer.SubmitAction(await request(), context)  # the first move: this process learns the table
    traced = await request()

    async def move() -> Any:
        return await servicer.SubmitAction(traced, context)

    trace = Trace(move.__code__)
    sys.setprofile(trace.profile)
    try:
        answer = await move()
    finally:
        sys.setprofile(None)
    assert answer.version > 0 and not answer.duplicate
    return trace


async def main() -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", directory]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        try:
            url = f"redis://127.0.0.1:{port}/0"
            wait_for_redis(url)
            tables = Tables(RedisStore(aioredis.Redis.from_url(url), Multiplexed(url)))
            try:
                print("\n".join(report(await one_move(tables))))
            finally:
                await tables.close()
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    asyncio.run(main())
