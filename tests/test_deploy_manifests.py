"""The deployment files, checked offline: deploy/k8s/ (rendered from its kustomization.yaml in Python, then validated
against the Kubernetes JSON schemas bundled in kubernetes-validate, strict: an unknown field fails), the one-machine
pod (deploy/single-host) and deploy/Dockerfile, and all of them against the code: every setting they set is one a
process reads, every value parses as the process parses it, the commands are the launcher's, the ports agree
everywhere.

Where kubectl is installed, `kubectl kustomize` must render the same documents as the Python rendering.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
import shutil
import subprocess
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml
from redis import ConnectionPool

from deploy.images import MANAFORGE, REDIS
from gateway.limits import Limits
from services.settings import SETTINGS, Settings

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
SINGLE_HOST = ROOT / "deploy" / "single-host" / "manaforge.yaml"
SECRETS_SCRIPT = ROOT / "deploy" / "single-host" / "secrets.sh"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
LAUNCHER = ROOT / "deploy" / "launcher.py"
# The oldest Kubernetes the manifests are meant for (gRPC probes are GA from 1.27) and the newest the validator knows.
KUBERNETES_VERSIONS = ("1.30", "1.37")
# The Redis the Deployments use: the service of the Bitnami chart installed as release "manaforge-redis".
REDIS_RELEASE = "manaforge-redis"
REDIS_SERVICE = "manaforge-redis-master"
NODE_CORES = 2.0  # the nodes the resources are sized for


@dataclasses.dataclass(frozen=True)
class Role:
    module: str  # what deploy/launcher.py runs with `python -m`
    port: int | None  # its gRPC port (the launcher's default)
    port_setting: str | None  # the setting that names the port
    redis: bool  # whether it uses Redis (the rules service is stateless)


ROLES = {
    "gateway": Role("gateway", 50051, "MANAFORGE_GATEWAY_PORT", redis=True),
    "rules": Role("services.rules.server", 50061, "MANAFORGE_RULES_PORT", redis=False),
    "worker": Role("celery", None, None, redis=True),
}
WORKER_APP = "services.workers.app"
# What the launcher runs besides ROLES: the browser's web edge (deployed too: web.yaml, checked on its own).
NOT_DEPLOYED = {"gateway.web_edge"}

Doc = dict[str, Any]


# ---------------------------------------------------------------------------------------------------------- reading


@functools.cache
def kustomization() -> Doc:
    doc = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert isinstance(doc, dict)
    return doc


@functools.cache
def rendered() -> tuple[Doc, ...]:
    """The base as `kubectl kustomize` renders it: the documents of every file in `resources:`, in order. The base
    uses nothing else of kustomize (test_kustomization_uses_only_resources), so this is the whole rendering."""
    docs: list[Doc] = []
    for name in kustomization()["resources"]:
        for doc in yaml.safe_load_all((K8S / name).read_text()):
            if doc is not None:
                assert isinstance(doc, dict), f"{name}: a document that is not a mapping"
                docs.append(doc)
    return tuple(docs)


def of_kind(kind: str) -> dict[str, Doc]:
    return {doc["metadata"]["name"]: doc for doc in rendered() if doc["kind"] == kind}


def deployment(role: str) -> Doc:
    return of_kind("Deployment")[f"manaforge-{role}"]


def container(role: str) -> Doc:
    containers = deployment(role)["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1, f"{role}: one container per pod"
    result: Doc = containers[0]
    return result


def configmap() -> dict[str, str]:
    data: dict[str, str] = of_kind("ConfigMap")["manaforge-config"]["data"]
    return data


def secret_data(name: str) -> dict[str, str]:
    secret = of_kind("Secret")[name]
    return {**secret.get("data", {}), **secret.get("stringData", {})}


def python_sources() -> list[Path]:
    return [*sorted((ROOT / "gateway").rglob("*.py")), *sorted((ROOT / "services").rglob("*.py")), LAUNCHER]


@functools.cache
def settings_read_by_code() -> frozenset[str]:
    """Every environment variable the processes read: each string constant that is a whole REDIS_URL or MANAFORGE_*
    name in gateway/, services/ and deploy/launcher.py (comments and docstrings do not count), and the
    MANAFORGE_LIMIT_<FIELD> names gateway/limits.py builds from its Limits fields."""
    names: set[str] = set()
    pattern = re.compile(r"REDIS_URL|MANAFORGE_[A-Z0-9_]*[A-Z0-9]")
    for path in python_sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.fullmatch(node.value):
                names.add(node.value)
    names |= {f"MANAFORGE_LIMIT_{field.name.upper()}" for field in dataclasses.fields(Limits)}
    return frozenset(names)


@functools.cache
def launcher_commands() -> dict[str, tuple[str | None, ...]]:
    """What deploy/launcher.py runs, by module: each list it spawns with `-m MODULE`, after the interpreter, its
    string constants in place and None where it computes a value (an address, a count)."""
    found: dict[str, tuple[str | None, ...]] = {}
    for node in ast.walk(ast.parse(LAUNCHER.read_text())):
        if not isinstance(node, ast.List):
            continue
        items = tuple(e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None for e in node.elts)
        if len(items) > 2 and items[1] == "-m" and isinstance(items[2], str):
            module = items[2]
            assert found.setdefault(module, items[1:]) == items[1:], f"the launcher runs {module} in two ways"
    return found


@functools.cache
def launcher_defaults() -> dict[str, str]:
    """The defaults the launcher's settings take (services/settings.py, read by deploy/launcher.py)."""
    return {setting.variable: setting.default for setting in SETTINGS}


def expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' $(NAME) expansion in command, args and env values ($$ stands for $); an undefined name stays as
    written, which is what a typo would silently do, so callers check that none is left."""
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m[1], m[0]) if m[1] else "$", text)


def container_env(role: str) -> dict[str, str]:
    """The environment of a role's container as the kubelet builds it: envFrom, then env in order, each value
    expanded with what came before it."""
    c = container(role)
    env: dict[str, str] = {}
    for source in c.get("envFrom", []):
        name = source["configMapRef"]["name"]
        env.update(of_kind("ConfigMap")[name]["data"])
    for var in c.get("env", []):
        if "value" in var:
            env[var["name"]] = expand(var["value"], env)
        else:
            ref = var["valueFrom"]["secretKeyRef"]
            env[var["name"]] = secret_data(ref["name"])[ref["key"]]
    return env


def argv(command: list[str]) -> list[str]:
    """A container's command as the launcher writes it: after the interpreter (`celery` is `python -m celery`)."""
    if command[0] == "celery":
        return ["-m", "celery", *command[1:]]
    assert command[0] in ("python", "python3"), f"{command}: run with the image's python"
    return command[1:]


def check_command(role: str, command: list[str]) -> None:
    """The same program, module, flags and constant values as deploy/launcher.py runs for the role."""
    want = launcher_commands()[ROLES[role].module]
    have = argv(command)
    assert len(have) == len(want), f"{role}: {have} is not the launcher's {want}"
    for mine, theirs in zip(have, want, strict=True):
        if theirs is None:
            assert not mine.startswith("-"), f"{role}: a flag {mine} where the launcher gives a value"
        else:
            assert mine == theirs, f"{role}: {have} is not the launcher's {want}"
    if role == "worker":
        assert have[have.index("-A") + 1] == WORKER_APP and "worker" in have
        assert int(have[have.index("--concurrency") + 1]) > 0


def address_port(role: str, command: list[str]) -> int:
    """The port a server binds, which must be on every interface of its container (a loopback address would make
    the server unreachable from outside the container)."""
    address = command[command.index("--address") + 1]
    host, _, port = address.rpartition(":")
    assert host in ("0.0.0.0", "[::]"), f"{role}: binds {address}, not every interface"
    return int(port)


def redis_address(url: str) -> dict[str, Any]:
    """What redis-py takes from a URL (host, port, password, db), as the processes' clients take it; no connection."""
    kwargs: dict[str, Any] = ConnectionPool.from_url(url).connection_kwargs
    return kwargs


def cpu(quantity: str | int | float) -> float:
    text = str(quantity)
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def memory(quantity: str | int) -> int:
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "K": 10**3, "M": 10**6, "G": 10**9}
    text = str(quantity)
    for unit, factor in units.items():
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


# -------------------------------------------------------------------------------------------------- kubernetes base


def test_kustomization_uses_only_resources_and_lists_every_manifest() -> None:
    assert set(kustomization()) <= {"apiVersion", "kind", "resources"}, (
        "the base may only list resources: the Python rendering here does nothing else (put the rest in overlays)"
    )
    assert kustomization()["kind"] == "Kustomization"
    resources = kustomization()["resources"]
    assert len(resources) == len(set(resources))
    for name in resources:
        assert "/" not in name and (K8S / name).is_file(), f"{name}: not a file beside kustomization.yaml"
    not_resources = {"kustomization.yaml", "redis-values.yaml"}  # the Bitnami chart's values, for helm
    assert sorted(p.name for p in K8S.glob("*.yaml") if p.name not in not_resources) == sorted(resources)
    keys = [(doc["kind"], doc["metadata"]["name"]) for doc in rendered()]
    assert len(keys) == len(set(keys)), "two documents of one kind and name"


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_manifest_validates_against_the_kubernetes_schema(version: str) -> None:
    failures = []
    for doc in rendered():
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            path = ".".join(str(p) for p in error.path)
            failures.append(f"{doc['kind']}/{doc['metadata']['name']}: {path}: {error.message}")
        except kubernetes_validate.SchemaNotFoundError as error:
            failures.append(error.message)
    assert not failures, "\n".join(failures)


def test_the_validator_refuses_broken_manifests() -> None:
    """The check above can fail: an unknown field, a wrong type and a wrong kind version are each refused."""
    gateway = deployment("gateway")
    broken_probe = yaml.safe_load(yaml.safe_dump(gateway))
    broken_probe["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["exec"]["command"] = "healthcheck"
    typo = yaml.safe_load(yaml.safe_dump(gateway))
    typo["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {"grpc": {"port": 50051}}
    for doc in (broken_probe, typo):
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(doc, KUBERNETES_VERSIONS[0], strict=True)
    with pytest.raises(kubernetes_validate.SchemaNotFoundError):
        kubernetes_validate.validate({**gateway, "apiVersion": "apps/v1beta9"}, KUBERNETES_VERSIONS[0], strict=True)


def test_kubectl_kustomize_renders_the_same_documents() -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: the Python rendering stands alone")
    out = subprocess.run([kubectl, "kustomize", str(K8S)], capture_output=True, text=True, timeout=60, check=True)
    theirs = [doc for doc in yaml.safe_load_all(out.stdout) if doc is not None]

    def key(doc: Doc) -> tuple[str, str]:
        return doc["kind"], doc["metadata"]["name"]

    assert sorted(theirs, key=key) == sorted(rendered(), key=key)


def test_the_base_has_each_part_for_each_role() -> None:
    assert set(of_kind("Deployment")) == {f"manaforge-{role}" for role in [*ROLES, "web"]}
    assert set(of_kind("Service")) == {"manaforge-gateway", "manaforge-rules", "manaforge-web"}  # no worker's
    assert set(of_kind("HorizontalPodAutoscaler")) == set(of_kind("Deployment"))
    assert set(of_kind("PodDisruptionBudget")) == set(of_kind("Deployment"))
    assert set(of_kind("ConfigMap")) == {"manaforge-config"}
    assert set(of_kind("Secret")) == {"manaforge-redis-auth", "manaforge-operator"}
    kinds = {doc["kind"] for doc in rendered()}
    assert "StatefulSet" not in kinds and not any(
        "redis" in doc["metadata"]["name"] for doc in rendered() if doc["kind"] != "Secret"
    ), "Redis comes from its chart, not from manifests of ours"


def test_the_configmap_sets_only_settings_the_processes_read() -> None:
    unknown = set(configmap()) - settings_read_by_code()
    assert not unknown, f"the ConfigMap sets {sorted(unknown)}, which no process reads"
    assert "REDIS_URL" not in configmap(), "REDIS_URL carries the password: each Deployment composes it"


def test_the_settings_parse_as_the_processes_parse_them(monkeypatch: pytest.MonkeyPatch) -> None:
    for role in ROLES:
        env = container_env(role)
        for name in settings_read_by_code():
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            if not name.startswith("MANAFORGE_TLS_"):  # files that exist only in the pod (test_tls_... checks them)
                monkeypatch.setenv(name, value)
        settings = Settings.from_env()
        assert settings.response_timeout > 0 and settings.bot_time_cap > 0 and settings.bot_delay >= 0
        limits = Limits.from_settings(settings)
        kinds = {setting.variable: setting.kind for setting in SETTINGS}
        for field in dataclasses.fields(Limits):
            name = f"MANAFORGE_LIMIT_{field.name.upper()}"
            if name in env:
                assert getattr(limits, field.name) == kinds[name].parse(env[name])
        for name in ("MANAFORGE_GATEWAY_PORT", "MANAFORGE_RULES_PORT", "MANAFORGE_METRICS_PORT"):
            if name in env:
                assert 0 < int(env[name]) < 65536
        if not ROLES[role].redis:
            assert "REDIS_URL" not in env
            continue
        url = redis_address(settings.redis_url)
        assert (url["host"], url.get("port", 6379)) == (REDIS_SERVICE, 6379), f"{role}: {settings.redis_url}"
        password = secret_data("manaforge-redis-auth")["redis-password"]
        assert url.get("password") == password and re.fullmatch(r"[A-Za-z0-9_.~-]+", password), (
            "the Redis password goes into REDIS_URL as it is: letters, digits and -._~ only"
        )


def test_every_container_variable_is_read_or_used_and_every_reference_resolves() -> None:
    for role in ROLES:
        c = container(role)
        env = container_env(role)
        used = [var.get("value", "") for var in c.get("env", [])] + c["command"] + c.get("args", [])
        referenced = {m for text in used for m in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", text)}
        for var in c.get("env", []):
            name = var["name"]
            assert name in settings_read_by_code() or name in referenced, f"{role}: {name} is neither read nor used"
        for text in c["command"] + c.get("args", []) + list(env.values()):
            assert not re.search(r"\$\([A-Za-z_]", expand(text, env)), f"{role}: an undefined reference in {text}"


def test_the_containers_run_what_the_launcher_runs() -> None:
    assert set(launcher_commands()) - NOT_DEPLOYED == {role.module for role in ROLES.values()}, (
        "the launcher runs other modules than the deployment files: add the new role to deploy/ or this test"
    )
    for role in ROLES:
        check_command(role, [*container(role)["command"], *container(role).get("args", [])])
    for module in ("gateway.__main__", "services.rules.server", WORKER_APP):
        assert find_spec(module) is not None, module


def test_the_ports_agree_everywhere() -> None:
    for role, spec in ROLES.items():
        c = container(role)
        env = container_env(role)
        ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
        metrics = int(configmap()["MANAFORGE_METRICS_PORT"])
        assert ports.get("metrics") == metrics, f"{role}: the metrics port is not declared"
        annotations = deployment(role)["spec"]["template"]["metadata"].get("annotations", {})
        assert annotations.get("prometheus.io/port") == str(metrics)
        if spec.port is None:
            assert set(ports) == {"metrics"}
            continue
        assert spec.port_setting is not None
        assert launcher_defaults()[spec.port_setting] == str(spec.port) == configmap()[spec.port_setting]
        command = [expand(part, env) for part in [*c["command"], *c.get("args", [])]]
        assert address_port(role, command) == spec.port == ports["grpc"]
        for probe in ("readinessProbe", "livenessProbe"):
            # the kubelet's gRPC probes speak plaintext only: an exec probe checks grpc.health.v1 over TLS
            assert c[probe]["exec"]["command"] == ["manaforge-healthcheck", "grpc", f"127.0.0.1:{spec.port}"], (
                f"{role}: {probe} is not a health check of the overall service on {spec.port}"
            )
        (port,) = of_kind("Service")[f"manaforge-{role}"]["spec"]["ports"]
        assert port["port"] == spec.port and ports[port["targetPort"]] == spec.port
    assert of_kind("Service")["manaforge-rules"]["spec"]["type"] == "ClusterIP"


def test_services_autoscalers_and_budgets_select_their_deployments() -> None:
    for name, dep in of_kind("Deployment").items():
        pod_labels = dep["spec"]["template"]["metadata"]["labels"]
        assert dep["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
        others = [d for n, d in of_kind("Deployment").items() if n != name]
        for kind in ("Service", "PodDisruptionBudget"):
            doc = of_kind(kind).get(name)
            if doc is None:
                continue
            selector = doc["spec"]["selector"]
            selector = selector.get("matchLabels", selector)
            assert selector.items() <= pod_labels.items(), f"{kind} {name} selects no pod of its Deployment"
            for other in others:
                other_labels = other["spec"]["template"]["metadata"]["labels"]
                assert not selector.items() <= other_labels.items(), f"{kind} {name} also selects another role"
        hpa = of_kind("HorizontalPodAutoscaler")[name]["spec"]
        assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}
        assert 1 <= hpa["minReplicas"] <= hpa["maxReplicas"]
        assert [m["resource"]["name"] for m in hpa["metrics"] if m["type"] == "Resource"] == ["cpu"]
        pdb = of_kind("PodDisruptionBudget")[name]["spec"]
        if "minAvailable" in pdb:
            assert isinstance(pdb["minAvailable"], int) and pdb["minAvailable"] < hpa["minReplicas"], (
                f"{name}: the budget would block every node drain at the fewest replicas"
            )
        else:
            unavailable = str(pdb["maxUnavailable"])
            assert int(unavailable.rstrip("%")) > 0, f"{name}: a budget of no unavailable pod blocks every drain"


def test_resources_fit_a_two_core_node() -> None:
    one_of_each = 0.0
    for role in ROLES:
        resources = container(role)["resources"]
        for kind in ("requests", "limits"):
            assert {"cpu", "memory"} <= set(resources[kind]), f"{role}: {kind} of cpu and memory"
        assert cpu(resources["requests"]["cpu"]) <= cpu(resources["limits"]["cpu"]) <= NODE_CORES
        assert memory(resources["requests"]["memory"]) <= memory(resources["limits"]["memory"]) <= 4 * 2**30
        one_of_each += cpu(resources["requests"]["cpu"])
    assert one_of_each <= NODE_CORES / 2, "one pod of each role should leave a 2-core node room for Redis and more"


def test_pods_run_unprivileged_and_drain_gracefully() -> None:
    images = set()
    for role in ROLES:
        pod = deployment(role)["spec"]["template"]["spec"]
        c = container(role)
        images.add(c["image"])
        assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
        assert c["securityContext"]["readOnlyRootFilesystem"] is True
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
        assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
        assert pod.get("automountServiceAccountToken") is False
        pause = c.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", ["sleep", "0"])
        assert pod["terminationGracePeriodSeconds"] >= int(pause[-1]) + 10, f"{role}: no time left to drain"
    assert deployment("gateway")["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 30
    assert len(images) == 1, "one image for every role"
    (image,) = images
    assert re.fullmatch(r"[a-z0-9./-]+:[0-9][\w.-]*", image), f"{image}: a versioned tag, never latest"


def test_the_worker_probe_pings_its_own_celery_node_without_a_shell() -> None:
    c = container("worker")
    assert "readinessProbe" not in c, "no Service sends the worker traffic"
    assert c["livenessProbe"]["exec"]["command"][:2] == ["manaforge-healthcheck", "worker"]
    assert find_spec("deploy.healthcheck") is not None


def test_only_the_gateway_and_the_web_edge_are_reachable_from_outside() -> None:
    policies = of_kind("NetworkPolicy")
    deny = policies["manaforge-deny-ingress"]["spec"]
    assert deny["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "manaforge"} and "ingress" not in deny
    from_anywhere = {}
    for name, policy in policies.items():
        for rule in policy["spec"].get("ingress", []):
            if "from" not in rule:  # no `from`: every source, also outside the cluster
                from_anywhere[name] = [p["port"] for p in rule["ports"]]
            else:
                assert all("ipBlock" not in peer for peer in rule["from"]), f"{name}: an address range"
    assert from_anywhere == {"manaforge-gateway": ["grpc"], "manaforge-web": ["https"]}
    rules_from = policies["manaforge-rules"]["spec"]["ingress"][0]["from"][0]["podSelector"]["matchExpressions"]
    assert {
        "key": "app.kubernetes.io/component",
        "operator": "In",
        "values": ["gateway", "worker", "web"],
    } in rules_from
    for name, policy in policies.items():  # every named port is one the selected pods declare
        selected = policy["spec"]["podSelector"]["matchLabels"]
        for dep in of_kind("Deployment").values():
            if selected.items() <= dep["spec"]["template"]["metadata"]["labels"].items():
                declared = {p["name"] for c in dep["spec"]["template"]["spec"]["containers"] for p in c["ports"]}
                for rule in policy["spec"].get("ingress", []):
                    assert {p["port"] for p in rule["ports"]} <= declared, f"{name}: a port {dep} lacks"
    exposed = {n: svc["spec"]["type"] for n, svc in of_kind("Service").items() if svc["spec"]["type"] != "ClusterIP"}
    assert exposed == {"manaforge-gateway": "LoadBalancer", "manaforge-web": "LoadBalancer"}
    redis = yaml.safe_load((K8S / "redis-values.yaml").read_text())["networkPolicy"]
    assert redis == {"enabled": True, "allowExternal": False}
    for role in ("gateway", "worker"):  # the chart lets in only pods labelled <release>-client
        labels = deployment(role)["spec"]["template"]["metadata"]["labels"]
        assert labels[f"{REDIS_RELEASE}-client"] == "true", role


def test_the_web_edge_the_operator_key_tls_and_the_rules_service_by_name() -> None:
    web = of_kind("Deployment")["manaforge-web"]["spec"]["template"]["spec"]["containers"][0]
    env = {**configmap()}
    args = [expand(a, env) for a in web["args"]]
    assert web["command"] == ["python", "-m", "gateway.web_edge"]
    assert args[args.index("--gateway") + 1] == f"manaforge-gateway:{ROLES['gateway'].port}"
    assert args[args.index("--rules") + 1] == f"manaforge-rules:{ROLES['rules'].port}"
    assert configmap()["MANAFORGE_RULES_ADDRESSES"] == f"manaforge-rules:{ROLES['rules'].port}"
    (operator,) = [v for v in container("gateway")["env"] if v["name"] == "MANAFORGE_OPERATOR_KEY"]
    assert operator["valueFrom"]["secretKeyRef"] == {"name": "manaforge-operator", "key": "operator-key"}
    assert "operator-key" in secret_data("manaforge-operator")
    for name, dep in of_kind("Deployment").items():  # TLS: the Secret mounted where the ConfigMap says
        spec = dep["spec"]["template"]["spec"]
        (volume,) = [v for v in spec["volumes"] if v["name"] == "tls"]
        assert volume["secret"]["secretName"] == "manaforge-tls", name
        (c,) = spec["containers"]
        (mount,) = [m for m in c["volumeMounts"] if m["name"] == "tls"]
        assert mount["readOnly"] is True
        for setting in ("MANAFORGE_TLS_CERT", "MANAFORGE_TLS_KEY", "MANAFORGE_TLS_CA"):
            assert configmap()[setting].startswith(mount["mountPath"] + "/"), f"{name}: {setting}"
    readme = (K8S / "README.md").read_text()
    assert "kubectl create secret generic manaforge-tls" in readme


def test_redis_comes_from_the_bitnami_chart_with_our_secret() -> None:
    values = yaml.safe_load((K8S / "redis-values.yaml").read_text())
    auth = values["auth"]
    assert auth["enabled"] is True
    assert auth["existingSecretPasswordKey"] in secret_data(auth["existingSecret"])
    config = values["commonConfiguration"].split("\n")
    assert "appendonly yes" in config and "appendfsync always" in config
    readme = (K8S / "README.md").read_text()
    assert f"helm install {REDIS_RELEASE} " in readme and "redis-values.yaml" in readme
    assert f"{REDIS_RELEASE}-master" == REDIS_SERVICE  # what the chart names the primary's service


# ------------------------------------------------------------------------------------------------ one machine (podman)


def single_host() -> list[Doc]:
    return [d for d in yaml.safe_load_all(SINGLE_HOST.read_text()) if d]


def single_host_pod() -> Doc:
    (pod,) = [d for d in single_host() if d["kind"] == "Pod"]
    return pod


def pod_containers() -> dict[str, Doc]:
    return {c["name"]: c for c in single_host_pod()["spec"]["containers"]}


def pod_env(c: Doc, secrets: dict[str, str]) -> dict[str, str]:
    """A container's environment as podman builds it: the ConfigMap's, then env, secrets from `secrets`."""
    (config,) = [d for d in single_host() if d["kind"] == "ConfigMap"]
    env: dict[str, str] = {}
    for source in c.get("envFrom", []):
        assert source["configMapRef"]["name"] == config["metadata"]["name"]
        env.update(config["data"])
    for var in c.get("env", []):
        env[var["name"]] = var["value"] if "value" in var else secrets[var["valueFrom"]["secretKeyRef"]["key"]]
    return env


def secrets_made() -> dict[str, str]:
    """The keys of the podman secret secrets.sh makes (its JSON object), with values of their kind."""
    script = SECRETS_SCRIPT.read_text()
    keys = re.findall(r'"([a-z-]+)": "%s"', script)
    assert keys, "secrets.sh makes no secret keys"
    values = {
        "redis-password": "0123abcd",
        "redis-url": "redis://default:0123abcd@127.0.0.1:6379/0",
        "operator-key": "k",
    }
    assert set(keys) == set(values)
    return values


def test_the_single_host_pod_runs_redis_each_role_and_the_edge() -> None:
    containers = pod_containers()
    assert set(containers) == {"redis", *ROLES, "web"}
    assert single_host_pod()["spec"]["restartPolicy"] == "Always", "a process that dies is started again"
    redis = containers["redis"]
    server = " ".join([*redis["command"], *redis["args"]])
    for flag in ("--requirepass", "--appendonly yes", "--appendfsync always", "--dir /data", "--bind 127.0.0.1"):
        assert flag in server, f"Redis runs without {flag}"
    assert {"name": "redis-data", "mountPath": "/data"} in redis["volumeMounts"]
    volumes = {v["name"]: v for v in single_host_pod()["spec"]["volumes"]}
    assert "persistentVolumeClaim" in volumes["redis-data"], "the append-only file on a volume"
    assert volumes["tls"]["hostPath"]["path"] == "/etc/manaforge/tls", "where secrets.sh writes the TLS files"
    assert "${MANAFORGE_SECRETS_DIR:-/etc/manaforge}" in SECRETS_SCRIPT.read_text()
    for name, c in containers.items():
        # podman runs a probe as `sh -c` of its words joined by spaces and sets no HOSTNAME: plain words only
        words = c["livenessProbe"]["exec"]["command"]
        assert all(re.fullmatch(r"[\w./:@-]+", word) for word in words), f"{name}: a probe word podman would split"
        assert c["securityContext"]["readOnlyRootFilesystem"] is True, name
        assert c["securityContext"]["capabilities"]["drop"] == ["ALL"], name
        assert c["imagePullPolicy"] == "Never", f"{name}: images are built here (make image), never pulled"
        if name != "redis":
            assert c["image"] == MANAFORGE and c["securityContext"]["runAsUser"] == 10001, name
    assert containers["redis"]["image"] == REDIS.local
    published = {c["name"]: p for c in containers.values() for p in c.get("ports", []) if "hostPort" in p}
    assert {n: (p["containerPort"], p["hostPort"]) for n, p in published.items()} == {
        "gateway": (50051, 50051),
        "web": (8443, 8443),
    }, "only the gateway and the page are published"


def test_the_single_host_pod_runs_what_the_launcher_runs_with_settings_it_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    containers = pod_containers()
    secrets = secrets_made()
    metrics = set()
    for name, c in containers.items():
        if name == "redis":
            assert set(pod_env(c, secrets)) == {"REDIS_PASSWORD", "REDISCLI_AUTH"}
            continue
        command = c["command"]
        if name in ROLES:
            check_command(name, command)
        env = pod_env(c, secrets)
        unknown = set(env) - settings_read_by_code()
        assert not unknown, f"{name}: sets {sorted(unknown)}, which no process reads"
        assert env["MANAFORGE_TLS_CERT"] and env["MANAFORGE_TLS_KEY"] and env["MANAFORGE_TLS_CA"], f"{name}: TLS"
        tls_dir = next(m["mountPath"] for m in c["volumeMounts"] if m["name"] == "tls")
        assert all(env[f"MANAFORGE_TLS_{k}"].startswith(tls_dir + "/") for k in ("CERT", "KEY", "CA"))
        metrics.add(env["MANAFORGE_METRICS_PORT"])
        assert ("REDIS_URL" in env) == (name in ROLES and ROLES[name].redis), f"{name}: Redis or not"
        for variable in settings_read_by_code():
            monkeypatch.delenv(variable, raising=False)
        for variable, value in env.items():
            if not variable.startswith("MANAFORGE_TLS_"):  # files that exist only in the container
                monkeypatch.setenv(variable, value)
        settings = Settings.from_env()
        Limits.from_settings(settings)
        if "REDIS_URL" in env:
            url = redis_address(settings.redis_url)
            assert (url["host"], url["port"], url["password"]) == ("127.0.0.1", 6379, secrets["redis-password"])
    assert len(metrics) == len(containers) - 1, "one network namespace: each process its own metrics port"
    assert "--address 0.0.0.0:50051" in " ".join(containers["gateway"]["command"])
    assert "--address 127.0.0.1:50061" in " ".join(containers["rules"]["command"]), "the rules service is internal"
    edge = containers["web"]["command"]
    assert edge[edge.index("--gateway") + 1] == "127.0.0.1:50051"
    assert containers["gateway"]["env"][2]["name"] == "MANAFORGE_OPERATOR_KEY"


def test_the_deployment_test_changes_only_the_ports_the_tls_directory_and_the_bots_delay() -> None:
    from tests.deploy import pods

    def leaves(doc: Any, path: str = "") -> dict[str, Any]:
        if isinstance(doc, dict):
            return {k: v for key, value in doc.items() for k, v in leaves(value, f"{path}/{key}").items()}
        if isinstance(doc, list):
            return {k: v for i, value in enumerate(doc) for k, v in leaves(value, f"{path}/{i}").items()}
        return {path: doc}

    documented = single_host()
    assert pods.documented() == documented
    played = pods.rendered(documented, {"gateway": 40001, "web": 40002}, Path("/tmp/test/tls"))
    before, after = leaves(documented), leaves(played)
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    assert changed == {
        "/0/data/MANAFORGE_BOT_DELAY",
        "/1/spec/containers/2/ports/0/hostPort",
        "/1/spec/containers/2/ports/0/hostIP",
        "/1/spec/containers/4/ports/0/hostPort",
        "/1/spec/containers/4/ports/0/hostIP",
        "/1/spec/volumes/1/hostPath/path",
    }, sorted(changed)
    assert {after[p] for p in changed if p.endswith("hostIP")} == {"127.0.0.1"}


def test_the_deployment_doc_gives_the_commands_the_test_runs() -> None:
    doc = (ROOT / "docs" / "deployment.md").read_text()
    for command in (
        "make image",
        "deploy/single-host/secrets.sh",
        "podman kube play deploy/single-host/manaforge.yaml",
        "podman kube down deploy/single-host/manaforge.yaml",
    ):
        assert command in doc, f"docs/deployment.md does not say `{command}`"
    assert not (ROOT / "deploy" / "compose.yaml").exists(), "one documented single-host file, the one tested"


# -------------------------------------------------------------------------------------------------------- Dockerfile


def test_the_dockerfile_is_pinned_unprivileged_and_builds_the_generated_code() -> None:
    lines = [line.strip() for line in DOCKERFILE.read_text().splitlines() if line.strip() and not line.startswith("#")]
    args = dict(line.split(None, 1)[1].split("=", 1) for line in lines if line.startswith("ARG ") and "=" in line)
    froms = [line.split()[1] for line in lines if line.startswith("FROM ")]
    assert len(froms) >= 2, "multi-stage: a build stage and a runtime stage"
    images = [args.get(base.strip("${}"), base) if base.startswith("$") else base for base in froms]
    for image in images:  # the build stage has a compiler (the full image), the runtime stage is the slim one
        assert re.fullmatch(r"python:3\.11\.\d+(-slim)?-bookworm", image), f"{image}: not an exact Python 3.11 release"
    assert images[-1].endswith("-slim-bookworm"), "the runtime stage is the slim image"
    final = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    users = [line.split()[1] for line in lines[final:] if line.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("0", "root"), "the runtime stage runs as a non-root user"
    build_stage = "\n".join(lines[:final])
    assert "-m deploy.protogen proto" in build_stage, "the generated protobuf code is built in the build stage"
    assert "-c requirements.lock" in build_stage or "-r requirements.lock" in build_stage
    exposed = {int(p) for line in lines if line.startswith("EXPOSE ") for p in line.split()[1:]}
    assert {spec.port for spec in ROLES.values() if spec.port} <= exposed
    for line in lines:
        if line.startswith("COPY ") and "--from" not in line:
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), f"COPY {source}: no such path in the repository"
    # what a machine builds for itself stays out of the context: a compiled engine built here (another Python build)
    # would otherwise be copied over engine_core's sources and loaded in their place
    ignored = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines() if line.strip()}
    assert {"**/*.so", "**/__pycache__", ".venv", "gateway/web/*"} <= ignored  # of the web client, only its dist
