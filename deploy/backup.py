"""Back up the game data of a running stack, and restore it into a new one (docs/operations.md).

    python -m deploy.backup save DIR                 # an RDB snapshot of every primary into DIR (DIR/manifest.json)
    python -m deploy.backup restore DIR              # DIR's snapshot as the append-only file `make run` starts from

`save` asks each primary for a point-in-time RDB snapshot over Redis' own replication protocol (`redis-cli --rdb`:
the server forks, as for BGSAVE, and streams the file): it needs no access to the server's disk, works the same
for one Redis and for each primary of a cluster, and holds every write acknowledged before the snapshot began.
Which Redis: REDIS_URL, or every primary of MANAFORGE_REDIS_CLUSTER (the services' settings), or --redis-url.

`restore` puts a one-Redis backup where `make run`'s Redis keeps its data (MANAFORGE_RUN_DIR/redis, or --into): a
redis-server started there on a free loopback port loads the RDB, writes it out as its append-only file (the stack
runs with `appendonly yes`), and stops. It refuses a directory that already holds data.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import redis

from deploy.launcher import free_port, redis_cli_binary, redis_server_binary, wait_for_redis
from services.settings import Settings, settings_at_start

MANIFEST = "manifest.json"


class BackupError(Exception):
    """A backup or restore cannot be done; the message says why."""


@dataclass(frozen=True)
class Snapshot:
    """One primary's RDB file in a backup."""

    file: str
    address: str  # host:port it was taken from
    slots: list[tuple[int, int]]  # the cluster slot ranges it served (empty: not a cluster)
    keys: int  # DBSIZE when the snapshot was asked for (keys may come and go while it is taken)
    size: int  # bytes


def primaries(settings: Settings) -> list[tuple[str, list[tuple[int, int]]]]:
    """(host:port, slot ranges) of every primary holding the game data."""
    if not settings.redis_cluster:
        url = redis.connection.parse_url(settings.redis())  # type: ignore[no-untyped-call]
        return [(f"{url.get('host', '127.0.0.1')}:{url.get('port', 6379)}", [])]
    host, port = settings.redis_cluster[0].rsplit(":", 1)
    client = redis.Redis(host=host, port=int(port), password=settings.redis_cluster_password or None)
    reply: Any = client.execute_command("CLUSTER SLOTS")  # type: ignore[no-untyped-call]
    owners: dict[str, list[tuple[int, int]]] = {}
    for start, end, primary, *_ in reply:
        owners.setdefault(f"{primary[0].decode()}:{primary[1]}", []).append((int(start), int(end)))
    return sorted(owners.items())


def save(directory: Path, settings: Settings) -> list[Snapshot]:
    """An RDB snapshot of every primary into `directory` (made; it must be empty), and its manifest."""
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.iterdir()):
        raise BackupError(f"{directory} is not empty: save each backup into a directory of its own")
    password = settings.redis_cluster_password
    if not settings.redis_cluster:
        url: dict[str, Any] = redis.connection.parse_url(settings.redis())  # type: ignore[no-untyped-call]
        password = url.get("password") or ""
    snapshots = []
    for i, (address, slots) in enumerate(primaries(settings)):
        host, port = address.rsplit(":", 1)
        keys = int(redis.Redis(host=host, port=int(port), password=password or None).dbsize())
        file = f"primary-{i}.rdb"
        command = [redis_cli_binary(), "-h", host, "-p", port, "--no-auth-warning", "--rdb", str(directory / file)]
        if password:
            command[1:1] = ["-a", password]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0 or not (directory / file).exists():
            raise BackupError(f"redis-cli --rdb from {address} failed: {(done.stderr or done.stdout).strip()[-400:]}")
        snapshots.append(Snapshot(file, address, slots, keys, (directory / file).stat().st_size))
    manifest = {"taken_at": time.time(), "snapshots": [asdict(s) for s in snapshots]}
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return snapshots


def read_manifest(directory: Path) -> list[Snapshot]:
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise BackupError(f"{directory} holds no backup ({MANIFEST}: {exc})") from None
    return [Snapshot(**{**s, "slots": [tuple(r) for r in s["slots"]]}) for s in manifest["snapshots"]]


def restore(directory: Path, target: Path, timeout: float = 600.0) -> int:
    """The one-Redis backup in `directory` as the append-only file of a Redis whose data directory is `target`.
    Returns the number of keys restored."""
    snapshots = read_manifest(directory)
    if len(snapshots) != 1 or snapshots[0].slots:
        raise BackupError(
            f"{directory} is a backup of a {len(snapshots)}-primary cluster: restore each primary's RDB into a new "
            "cluster with the same slot ranges (docs/operations.md); this command restores a one-Redis backup"
        )
    target.mkdir(parents=True, exist_ok=True)
    taken = [p.name for p in target.iterdir() if p.name != "manaforge.lock"]
    if taken:
        raise BackupError(f"{target} already holds data ({', '.join(sorted(taken))}): restore into an empty directory")
    shutil.copyfile(directory / snapshots[0].file, target / "dump.rdb")
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    args = ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(target), "--dbfilename", "dump.rdb"]
    server = subprocess.Popen(
        [redis_server_binary(), *args, "--appendonly", "no", "--save", ""], stdout=subprocess.DEVNULL
    )
    try:
        wait_for_redis(url, timeout)
        client = redis.Redis.from_url(url)
        while client.info("persistence").get("loading"):
            time.sleep(0.05)
        keys = int(client.dbsize())
        client.config_set("appendonly", "yes")  # writes the data out as the append-only file's base
        deadline = time.monotonic() + timeout
        while True:
            info = client.info("persistence")
            if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"] and info["aof_enabled"]:
                break
            if time.monotonic() > deadline:
                raise BackupError("Redis did not finish writing the append-only file")
            time.sleep(0.05)
        if info["aof_last_bgrewrite_status"] != "ok":
            raise BackupError("Redis failed to write the append-only file (see its log)")
        client.shutdown(nosave=True)
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(30)
    (target / "dump.rdb").unlink()
    return keys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["save", "restore"])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--redis-url", default="", help="save: this Redis instead of the settings' game data")
    parser.add_argument(
        "--into", type=Path, help="restore: this Redis data directory (default MANAFORGE_RUN_DIR/redis)"
    )
    args = parser.parse_args()
    settings = settings_at_start()
    if args.redis_url:
        settings = Settings(redis_url=args.redis_url)
    started = time.monotonic()
    try:
        if args.command == "save":
            snapshots = save(args.directory, settings)
            for s in snapshots:
                print(f"{s.address}: {s.keys} keys, {s.size} bytes -> {args.directory / s.file}")
        else:
            target = args.into or Path(settings.run_dir) / "redis"
            keys = restore(args.directory, target)
            print(f"restored {keys} keys into {target}: start the stack on it (`make run`)")
    except (BackupError, redis.RedisError, OSError) as exc:
        print(f"manaforge backup: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(f"done in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
