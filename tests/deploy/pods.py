"""The one-machine deployment (deploy/single-host: docs/deployment.md, "One machine") played by `podman kube play`
as the doc says, killed a container at a time, taken down.

The test plays the documented file itself, changed only where a test on a shared machine must differ (`rendered`
says exactly what, and tests/test_deploy_manifests.py checks that nothing else differs):
- the host ports: free ones instead of 50051 and 8443, published on 127.0.0.1 only;
- the TLS files' directory: the test's own instead of /etc/manaforge/tls (secrets.sh writes it there);
- MANAFORGE_BOT_DELAY 0: bots answer at once, so the games finish in the test's time.
The secrets are made by the documented script (deploy/single-host/secrets.sh), its copies for the operator in the
test's own directory.
"""

from __future__ import annotations

import copy
import json
import os
import ssl
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import yaml

from deploy.launcher import free_port
from services.tls import channel_credentials

ROOT = Path(__file__).resolve().parent.parent.parent
SINGLE_HOST = ROOT / "deploy" / "single-host"
MANIFEST = SINGLE_HOST / "manaforge.yaml"
SECRETS = SINGLE_HOST / "secrets.sh"
SECRET = "manaforge-secrets"
POD = "manaforge"
VOLUME = "manaforge-redis-data"
KINDS = ("redis", "gateway", "rules", "worker", "web")
PUBLISHED = {"gateway": 50051, "web": 8443}  # the container ports the file publishes on the host

Doc = dict[str, Any]


class PodError(Exception):
    """podman refused or a pod did not come up; the message says what."""


def podman(*args: str, check: bool = True, timeout: float = 300) -> str:
    done = subprocess.run(["podman", *args], capture_output=True, text=True, check=False, timeout=timeout)
    if check and done.returncode != 0:
        raise PodError(f"podman {' '.join(args[:4])}: {done.stderr.strip()[-800:]}")
    return done.stdout.strip()


def documented() -> list[Doc]:
    return [d for d in yaml.safe_load_all(MANIFEST.read_text()) if d]


def container_name(kind: str) -> str:
    return f"{POD}-{kind}"  # what podman kube play names a pod's container


def rendered(docs: list[Doc], ports: dict[str, int], tls: Path) -> list[Doc]:
    """The documented documents with the test's host ports (on 127.0.0.1), its TLS directory, and bots that answer
    at once."""
    docs = copy.deepcopy(docs)
    for doc in docs:
        if doc["kind"] == "ConfigMap":
            doc["data"]["MANAFORGE_BOT_DELAY"] = "0"
        if doc["kind"] == "Pod":
            for volume in doc["spec"]["volumes"]:
                if volume["name"] == "tls":
                    volume["hostPath"]["path"] = str(tls)
            for container in doc["spec"]["containers"]:
                for port in container.get("ports", []):
                    if "hostPort" in port:
                        port.update(hostIP="127.0.0.1", hostPort=ports[container["name"]])
    return docs


@dataclass
class Deployment:
    """The deployment the test plays: its 127.0.0.1 ports and the directory of the operator's copies of secrets."""

    directory: Path
    ports: dict[str, int] = field(default_factory=lambda: {kind: free_port() for kind in PUBLISHED})

    @property
    def gateway(self) -> str:
        return f"127.0.0.1:{self.ports['gateway']}"

    @property
    def web(self) -> str:
        return f"127.0.0.1:{self.ports['web']}"

    @property
    def path(self) -> Path:
        return self.directory / "manaforge.yaml"

    @property
    def secrets(self) -> Path:
        return self.directory / "secrets"

    @property
    def ca(self) -> Path:
        return self.secrets / "ca.crt"

    @property
    def redis_url(self) -> str:
        return (self.secrets / "redis-url").read_text().strip()

    @property
    def is_tls(self) -> bool:
        config = next(d for d in documented() if d["kind"] == "ConfigMap")
        return bool(config["data"].get("MANAFORGE_TLS_CERT"))

    def credentials(self) -> grpc.ChannelCredentials:
        """A gRPC client's TLS that verifies the server's certificate with the deployment's CA (secrets.sh's)."""
        return channel_credentials(str(self.ca))

    def https(self) -> ssl.SSLContext:
        """An HTTPS client's context that verifies the edge's certificate with the deployment's CA."""
        return ssl.create_default_context(cafile=str(self.ca))


def play(deployment: Deployment) -> None:
    """The secrets made by the documented script, then the rendering played."""
    env = {**os.environ, "MANAFORGE_SECRETS_DIR": str(deployment.secrets)}
    subprocess.run([str(SECRETS), "--replace", "localhost"], check=True, env=env, timeout=120)
    docs = rendered(documented(), deployment.ports, deployment.secrets / "tls")
    deployment.path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    podman("kube", "play", str(deployment.path))


def down(deployment: Deployment) -> None:
    """The pod, its data volume and the secret gone (also after a failure half-way, or a run before this one)."""
    if deployment.path.exists():
        podman("kube", "down", str(deployment.path), check=False)
    podman("pod", "rm", "--force", POD, check=False)
    podman("volume", "rm", "--force", VOLUME, check=False)
    podman("secret", "rm", SECRET, check=False)


def published() -> list[tuple[str, str]]:
    """Every port the pod publishes on the host: (host address, host port)."""
    bindings = json.loads(podman("pod", "inspect", "--format", "{{json .InfraConfig.PortBindings}}", POD))
    return [(b["HostIp"], b["HostPort"]) for port in (bindings or {}).values() for b in port]


def healthy(kind: str) -> str:
    """Run the container's health check as podman runs it (no systemd here to schedule it): "" or why not."""
    done = subprocess.run(
        ["podman", "healthcheck", "run", container_name(kind)], capture_output=True, text=True, check=False, timeout=90
    )
    return "" if done.returncode == 0 else f"{kind}: exit {done.returncode} {done.stdout.strip()} {done.stderr.strip()}"


@dataclass(frozen=True)
class State:
    running: bool
    pid: int
    restarts: int


def state(kind: str) -> State:
    out = podman("inspect", "--format", "{{.State.Running}} {{.State.Pid}} {{.RestartCount}}", container_name(kind))
    running, pid, restarts = out.split()
    return State(running == "true", int(pid), int(restarts))


def crash(kind: str, timeout: float = 60.0) -> State:
    """SIGKILL the container's main process from the host (a crash: podman did not stop it), then wait until
    podman's restart policy has started it again. Returns the state after the restart."""
    before = state(kind)
    if not before.running or before.pid == 0:
        raise PodError(f"{kind} is not running before the crash: {before}")
    subprocess.run(["kill", "-KILL", str(before.pid)], check=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = state(kind)
        if now.running and now.pid not in (0, before.pid):
            return now
        time.sleep(0.2)
    raise PodError(f"{kind} was not restarted within {timeout:.0f} s: {state(kind)}")


def logs(kind: str, lines: int = 30) -> str:
    done = subprocess.run(
        ["podman", "logs", "--tail", str(lines), container_name(kind)], capture_output=True, text=True, check=False
    )
    return done.stdout + done.stderr
