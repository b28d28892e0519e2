"""deploy/k8s rendered for `podman kube play` on one machine, started, killed a container at a time, taken down.

What the rendering changes, and why (the rest of each Deployment runs as written: image, commands, the ConfigMap's
settings, non-root users, read-only root filesystems, emptyDir volumes, resource limits, restart policy):
- Redis: the Bitnami chart's place is taken by a Deployment of the Redis 7 image (`make image`) under the chart's
  service name, with the Secret's password and the append-only file the chart's values ask for.
- The browser edge (not in the base: a `make run` convenience) is a Deployment made from the gateway's.
- The Secret becomes literal values and `$(VAR)` references are expanded here as the kubelet would expand them.
- podman 4.3 has no Services: a pod reaches another by its pod name (`<deployment>-pod-0`) on a network of the
  test's own with DNS, so the Services' names in the manifests become those pod names.
- Every published port is on 127.0.0.1 and a free host port. podman publishes a containerPort that has no hostPort
  on every address under its own number, so the metrics ports (scraped inside a cluster) are not declared here.
- One replica each (podman plays one pod per Deployment); probes are left out (podman 4.3 has no gRPC probes, and
  an exec probe would run a Celery client every minute on a 2-core machine). Services, HorizontalPodAutoscalers
  and PodDisruptionBudgets are not played: tests/test_deploy_manifests.py validates them offline.
"""

from __future__ import annotations

import copy
import json
import re
import secrets
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from deploy.images import MANAFORGE, REDIS
from deploy.launcher import free_port

ROOT = Path(__file__).resolve().parent.parent.parent
K8S = ROOT / "deploy" / "k8s"
NETWORK = "manaforge-deploy-test"
LABEL = "manaforge-deploy-test"  # on every pod the test plays, to find them all when taking them down
KINDS = ("redis", "gateway", "rules", "worker", "web")

Doc = dict[str, Any]


class PodError(Exception):
    """podman refused or a pod did not come up; the message says what."""


def podman(*args: str, check: bool = True) -> str:
    done = subprocess.run(["podman", *args], capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise PodError(f"podman {' '.join(args[:4])}: {done.stderr.strip()[-800:]}")
    return done.stdout.strip()


def base() -> list[Doc]:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    return [d for name in kustomization["resources"] for d in yaml.safe_load_all((K8S / name).read_text()) if d]


def pod_name(deployment: str) -> str:
    return f"{deployment}-pod-0"  # what podman kube play names a Deployment's pod


def container_name(kind: str) -> str:
    return f"{pod_name(DEPLOYMENTS[kind])}-{kind}"


DEPLOYMENTS = {kind: f"manaforge-{kind}" for kind in KINDS} | {"redis": "manaforge-redis-master"}


@dataclass
class Deployment:
    """The rendered documents and the 127.0.0.1 ports they publish."""

    password: str = field(default_factory=lambda: secrets.token_hex(16))
    gateway_port: int = field(default_factory=free_port)
    rules_port: int = field(default_factory=free_port)
    web_port: int = field(default_factory=free_port)
    redis_port: int = field(default_factory=free_port)

    @property
    def gateway(self) -> str:
        return f"127.0.0.1:{self.gateway_port}"

    @property
    def rules(self) -> str:
        return f"127.0.0.1:{self.rules_port}"

    @property
    def web(self) -> str:
        return f"127.0.0.1:{self.web_port}"

    @property
    def redis_url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.redis_port}/0"

    def documents(self) -> list[Doc]:
        docs = base()
        config = next(d for d in docs if d["kind"] == "ConfigMap")
        config["data"]["MANAFORGE_BOT_DELAY"] = "0"  # bots answer at once: the games finish in the test's time
        settings = dict(config["data"])
        deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
        web = copy.deepcopy(deployments["manaforge-gateway"])
        web["metadata"]["name"] = DEPLOYMENTS["web"]
        for labels in (web["metadata"]["labels"], web["spec"]["selector"]["matchLabels"]):
            labels["app.kubernetes.io/component"] = "web"
        web["spec"]["template"]["metadata"]["labels"] = web["spec"]["selector"]["matchLabels"]
        edge = web["spec"]["template"]["spec"]["containers"][0]
        edge["name"] = "web"
        edge["command"] = ["python", "-m", "gateway.web_edge"]
        edge["args"] = [
            *("--address", "0.0.0.0:8080"),
            *("--gateway", f"{pod_name(DEPLOYMENTS['gateway'])}:$(MANAFORGE_GATEWAY_PORT)"),
            *("--rules", f"{pod_name(DEPLOYMENTS['rules'])}:$(MANAFORGE_RULES_PORT)"),
        ]
        edge["ports"] = [{"name": "http", "containerPort": 8080, "protocol": "TCP"}]
        published = {
            "gateway": ("grpc", self.gateway_port),
            "rules": ("grpc", self.rules_port),
            "web": ("http", self.web_port),
        }
        played: list[Doc] = [config, self.redis()]
        for kind, deployment in [
            *((k, deployments[DEPLOYMENTS[k]]) for k in ("gateway", "rules", "worker")),
            ("web", web),
        ]:
            deployment["spec"]["replicas"] = 1
            spec = deployment["spec"]["template"]["spec"]
            spec.setdefault("restartPolicy", "Always")
            deployment["spec"]["template"]["metadata"]["labels"][LABEL] = "1"
            for container in spec["containers"]:
                container["image"] = MANAFORGE
                for probe in ("readinessProbe", "livenessProbe", "startupProbe", "lifecycle"):
                    container.pop(probe, None)
                env = {e["name"]: e.get("value", "") for e in container.get("env", [])}
                if "REDIS_URL" in env:  # the rules service has none: it is stateless
                    env["REDIS_URL"] = f"redis://:{self.password}@{pod_name(DEPLOYMENTS['redis'])}:6379/0"
                env.pop("REDIS_PASSWORD", None)
                if env:
                    container["env"] = [{"name": k, "value": v} for k, v in env.items()]
                container["args"] = [expand(a, settings) for a in container.get("args", [])]
                ports = [p for p in container.get("ports", []) if p["name"] != "metrics"]
                for port in ports:
                    name, host_port = published[kind]
                    assert port["name"] == name, f"{kind}: an unexpected port {port}"
                    port.update(hostIP="127.0.0.1", hostPort=host_port)
                container["ports"] = ports
            played.append(deployment)
        return played

    def redis(self) -> Doc:
        """Redis 7 in the Bitnami chart's place (deploy/k8s/redis-values.yaml: auth, append-only, every write
        fsynced), published on 127.0.0.1 for the test's own checks."""
        labels = {"app.kubernetes.io/name": "manaforge", "app.kubernetes.io/component": "redis", LABEL: "1"}
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": DEPLOYMENTS["redis"], "labels": dict(labels)},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": dict(labels)},
                "template": {
                    "metadata": {"labels": dict(labels)},
                    "spec": {
                        "restartPolicy": "Always",
                        "containers": [
                            {
                                "name": "redis",
                                "image": REDIS.local,
                                "command": ["redis-server"],
                                "args": [
                                    *("--requirepass", self.password, "--appendonly", "yes"),
                                    *("--appendfsync", "always", "--dir", "/data"),
                                ],
                                "ports": [
                                    {
                                        "name": "redis",
                                        "containerPort": 6379,
                                        "hostIP": "127.0.0.1",
                                        "hostPort": self.redis_port,
                                    }
                                ],
                            }
                        ],
                    },
                },
            },
        }


def expand(value: str, settings: dict[str, str]) -> str:
    """`$(NAME)` as the kubelet expands it in a container's args, from the container's environment."""
    return re.sub(r"\$\((\w+)\)", lambda m: settings.get(m.group(1), m.group(0)), value)


def play(deployment: Deployment, path: Path) -> None:
    """Write the rendering and `podman kube play` it on the test's network."""
    path.write_text(yaml.safe_dump_all(deployment.documents(), sort_keys=False))
    if not network_exists():
        podman("network", "create", NETWORK)
    podman("kube", "play", "--network", NETWORK, str(path))


def network_exists() -> bool:
    return subprocess.run(["podman", "network", "exists", NETWORK], check=False).returncode == 0


def down(path: Path) -> None:
    """Every pod the test played, and its network, gone (also after a failure half-way)."""
    if path.exists():
        podman("kube", "down", str(path), check=False)
    for pod in podman("pod", "ps", "--filter", f"label={LABEL}", "--format", "{{.Name}}", check=False).split():
        podman("pod", "rm", "--force", pod, check=False)
    if network_exists():
        podman("network", "rm", "--force", NETWORK, check=False)


def published() -> list[tuple[str, str, str]]:
    """Every port the test's pods publish on the host: (pod, host address, host port)."""
    found = []
    for pod in podman("pod", "ps", "--filter", f"label={LABEL}", "--format", "{{.Name}}").split():
        bindings = json.loads(podman("pod", "inspect", "--format", "{{json .InfraConfig.PortBindings}}", pod))
        found += [(pod, b["HostIp"], b["HostPort"]) for port in (bindings or {}).values() for b in port]
    return found


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
