"""TLS for our listeners and our clients, from the PEM files the settings name (services/settings.py; how to run it:
docs/deployment.md#tls).

A server serves TLS only when it has a certificate and its key, and asks for a client certificate when it has a
client CA (mutual TLS). A client speaks TLS when it has a CA to verify the server with: a PEM file, or `system` (the
system's trusted CAs), and presents its own certificate to a server that asks. Nothing here reads the environment:
the settings (servers) and the terminal clients' flags (gateway/cli) hand the files in.
"""

from __future__ import annotations

import ssl
from pathlib import Path

import grpc

from services.settings import SYSTEM_STORE, Settings


class TlsFileError(ValueError):
    """A certificate or key file that cannot be read; the message names it."""


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise TlsFileError(f"cannot read the TLS file {path}: {exc.strerror}") from None


def system_authorities() -> bytes | None:
    """The system's trusted CAs as PEM (None: gRPC's own bundle, where the system has no CA file)."""
    cafile = ssl.get_default_verify_paths().cafile
    return _read(cafile) if cafile and Path(cafile).is_file() else None


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """The credentials of a TLS listener (None: plaintext); with a client CA, clients must present a certificate
    it signed."""
    if not settings.is_tls:
        return None
    client_ca = _read(settings.tls_client_ca) if settings.tls_client_ca else None
    return grpc.ssl_server_credentials(
        [(_read(settings.tls_key), _read(settings.tls_cert))],
        root_certificates=client_ca,
        require_client_auth=client_ca is not None,
    )


def channel_credentials(ca: str, cert: str = "", key: str = "") -> grpc.ChannelCredentials:
    """A TLS client's credentials: it trusts `ca` (a PEM file, or "system") and presents `cert` and `key` (PEM
    files) to a server that asks for a client certificate."""
    roots = system_authorities() if ca == SYSTEM_STORE else _read(ca)
    return grpc.ssl_channel_credentials(roots, _read(key) if key else None, _read(cert) if cert else None)


def client_credentials(settings: Settings) -> grpc.ChannelCredentials | None:
    """Our processes' credentials as clients of each other (None: plaintext)."""
    if not settings.is_tls_client:
        return None
    return channel_credentials(settings.tls_ca, settings.tls_client_cert, settings.tls_client_key)


def listen(server: grpc.aio.Server, address: str, credentials: grpc.ServerCredentials | None) -> int:
    """Add the listener of `address` to `server`, TLS with `credentials`: its port (OSError when it cannot)."""
    port = server.add_secure_port(address, credentials) if credentials else server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    return port


def server_context(settings: Settings) -> ssl.SSLContext | None:
    """An HTTPS listener's context (the web edge), from the same certificate and key (None: plain HTTP)."""
    if not settings.is_tls:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(settings.tls_cert, settings.tls_key)
    except (OSError, ssl.SSLError) as exc:
        raise TlsFileError(f"cannot use {settings.tls_cert} with {settings.tls_key}: {exc}") from None
    return context
