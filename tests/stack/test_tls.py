"""TLS on every listener, with a CA made here (trustme): the stack's gateway, rules service, web edge and metrics
serve TLS only and ask for client certificates (mutual TLS); the gateway and worker reach the rules service, and the
web edge the gateway, over it. A client that verifies the gateway's certificate plays; a plaintext client, a client
without a certificate and a client trusting another CA are refused, the terminal clients with a sentence."""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import trustme
from grpc_health.v1 import health_pb2, health_pb2_grpc

from deploy.launcher import LOOPBACK_LIMITS, ROOT, Stack
from gateway.client import Client
from services.settings import Settings, SettingsError
from services.tls import channel_credentials
from tests.stack.helpers import cardbench_table, first_legal

OPERATOR_KEY = "tls-test-operator-key"


class Files:
    """The PEM files of one CA: the servers' certificate (127.0.0.1, localhost) and a client certificate."""

    def __init__(self, directory: Path, ca: trustme.CA) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.ca = str(directory / "ca.pem")
        ca.cert_pem.write_to_path(self.ca)
        server = ca.issue_cert("127.0.0.1", "localhost")
        self.cert, self.key = str(directory / "cert.pem"), str(directory / "key.pem")
        server.cert_chain_pems[0].write_to_path(self.cert)
        server.private_key_pem.write_to_path(self.key)
        client = ca.issue_cert("manaforge-client")
        self.client_cert, self.client_key = str(directory / "client.pem"), str(directory / "client-key.pem")
        client.cert_chain_pems[0].write_to_path(self.client_cert)
        client.private_key_pem.write_to_path(self.client_key)

    def credentials(self, client_certificate: bool = True) -> grpc.ChannelCredentials:
        if client_certificate:
            return channel_credentials(self.ca, self.client_cert, self.client_key)
        return channel_credentials(self.ca)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Files:
    return Files(tmp_path_factory.mktemp("tls"), trustme.CA())


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory) -> Files:
    """Another CA's files: its certificates are nobody's in the stack."""
    return Files(tmp_path_factory.mktemp("stranger"), trustme.CA())


@pytest.fixture(scope="module")
def secure(pki: Files) -> Iterator[Stack]:
    settings = {
        **LOOPBACK_LIMITS,
        "MANAFORGE_TLS_CERT": pki.cert,
        "MANAFORGE_TLS_KEY": pki.key,
        "MANAFORGE_TLS_CLIENT_CA": pki.ca,
        "MANAFORGE_TLS_CA": pki.ca,
        "MANAFORGE_TLS_CLIENT_CERT": pki.client_cert,
        "MANAFORGE_TLS_CLIENT_KEY": pki.client_key,
        "MANAFORGE_OPERATOR_KEY": OPERATOR_KEY,
    }
    with Stack(gateways=1, rules_on_move_path=True, web_port=0, metrics=True, settings=settings) as running:
        yield running


def tls_env(pki: Files) -> dict[str, str]:
    return {"MANAFORGE_TLS_CLIENT_CERT": pki.client_cert, "MANAFORGE_TLS_CLIENT_KEY": pki.client_key}


def terminal(args: list[str], env: dict[str, str], module: str = "gateway.cli") -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "MANAFORGE_HOME": str(ROOT / "build" / "tls-test-home"), **env}
    environment.pop("MANAFORGE_TLS_CA", None)
    command = (
        [str(Path(sys.executable).parent / "manaforge")] if module == "gateway.cli" else [sys.executable, "-m", module]
    )
    return subprocess.run(
        [*command, *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_verifying_client_plays_a_game_through_a_tls_stack(secure: Stack, pki: Files) -> None:
    """Moves go gateway -> rules service over mutual TLS (rules on the move path), bots' moves worker -> rules."""
    with Client(secure.gateway_addresses[0], credentials=pki.credentials()) as client:
        table_id, ann, bob = cardbench_table(client)
        tokens = [ann, bob]
        for move in range(6):
            token = tokens[move % 2]
            assert client.submit(table_id, token, first_legal(client, table_id, token)).version == move + 1
        bots = client.create_table("cardbench", 2, bots={0: "random", 1: "random"})
        assert client.wait_finished(bots.table.table_id, 120).replay_verdict.startswith("valid")


def test_a_plaintext_client_is_refused(secure: Stack) -> None:
    with Client(secure.gateway_addresses[0]) as plain, pytest.raises(grpc.RpcError) as refused:
        plain.games()
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE


def test_mutual_tls_refuses_a_client_without_a_certificate(secure: Stack, pki: Files) -> None:
    anonymous = Client(secure.gateway_addresses[0], credentials=pki.credentials(client_certificate=False))
    with anonymous, pytest.raises(grpc.RpcError) as refused:
        anonymous.games()
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    channel = grpc.secure_channel(secure.rules_address, pki.credentials(client_certificate=False))
    with channel, pytest.raises(grpc.RpcError):
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)


def test_the_terminal_client_plays_over_tls_and_says_why_a_wrong_ca_fails(
    secure: Stack, pki: Files, stranger: Files
) -> None:
    gateway = ["--gateway", secure.gateway_addresses[0]]
    games = terminal([*gateway, "--ca", pki.ca, "games"], tls_env(pki))
    assert games.returncode == 0, games.stderr
    assert "cardbench" in games.stdout
    wrong = terminal([*gateway, "--ca", stranger.ca, "games"], tls_env(pki))
    assert wrong.returncode != 0
    assert "Traceback" not in wrong.stderr
    assert "presented a certificate that the CA in" in wrong.stderr and stranger.ca in wrong.stderr, wrong.stderr
    plain = terminal([*gateway, "games"], {})
    assert plain.returncode != 0 and "Traceback" not in plain.stderr
    assert "If it serves TLS: --tls (the system's CAs) or --ca FILE" in plain.stderr, plain.stderr


def test_the_operator_cli_speaks_tls_and_says_why_a_wrong_ca_fails(secure: Stack, pki: Files, stranger: Files) -> None:
    env = {**tls_env(pki), "MANAFORGE_OPERATOR_KEY": OPERATOR_KEY}
    gateway = ["--gateway", secure.gateway_addresses[0]]
    overview = terminal([*gateway, "--ca", pki.ca, "overview"], env, module="gateway.cli.operator")
    assert overview.returncode == 0, overview.stderr
    assert "streams online" in overview.stdout
    wrong = terminal([*gateway, "--ca", stranger.ca, "overview"], env, module="gateway.cli.operator")
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert "presented a certificate that the CA in" in wrong.stderr, wrong.stderr


def test_the_web_edge_serves_https_only_and_reaches_the_gateway_over_tls(secure: Stack, pki: Files) -> None:
    context = ssl.create_default_context(cafile=pki.ca)
    with urllib.request.urlopen(f"https://{secure.web_address}/", context=context, timeout=10) as page:
        assert page.status == 200
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        urllib.request.urlopen(f"http://{secure.web_address}/", timeout=5)
    # a gRPC-Web call, carried to the gateway over mutual TLS
    request = urllib.request.Request(
        f"https://{secure.web_address}/manaforge.v1.Gateway/ListGames",
        data=b"\x00\x00\x00\x00\x00",
        headers={"Content-Type": "application/grpc-web+proto"},
    )
    with urllib.request.urlopen(request, context=context, timeout=10) as answer:
        body = answer.read()
    assert b"grpc-status:0" in body and b"cardbench" in body


def test_metrics_are_served_over_https(secure: Stack, pki: Files) -> None:
    context = ssl.create_default_context(cafile=pki.ca)
    url = f"https://127.0.0.1:{secure.metrics_ports['gateway-0']}/metrics"
    with urllib.request.urlopen(url, context=context, timeout=10) as answer:
        assert b"manaforge_build_info" in answer.read()


def test_tls_settings_come_in_pairs(pki: Files) -> None:
    with pytest.raises(SettingsError, match="MANAFORGE_TLS_CERT and MANAFORGE_TLS_KEY: set both"):
        Settings.from_env({"MANAFORGE_TLS_CERT": pki.cert})
    with pytest.raises(SettingsError, match=r"MANAFORGE_TLS_CLIENT_CA \(mutual TLS\) needs MANAFORGE_TLS_CERT"):
        Settings.from_env({"MANAFORGE_TLS_CLIENT_CA": pki.ca})
    with pytest.raises(SettingsError, match=r"MANAFORGE_TLS_CA='/nowhere\.pem': expected empty, system"):
        Settings.from_env({"MANAFORGE_TLS_CA": "/nowhere.pem"})
    assert Settings.from_env({"MANAFORGE_TLS_CA": "System"}).tls_ca == "system"


def test_the_sdk_speaks_tls_with_a_ca_and_a_client_certificate(secure: Stack, pki: Files, stranger: Files) -> None:
    from manaforge_sdk.client import Client as SdkClient
    from manaforge_sdk.errors import ManaforgeError

    address = secure.gateway_addresses[0]
    with SdkClient(address, ca=pki.ca, client_cert=pki.client_cert, client_key=pki.client_key) as bot:
        assert "cardbench" in {game.name for game in bot.games()}
    with (
        SdkClient(address, ca=stranger.ca, client_cert=pki.client_cert, client_key=pki.client_key, patience=1) as lost,
        pytest.raises((ManaforgeError, grpc.RpcError)),
    ):
        lost.games()
