"""TLS for the terminal clients (`manaforge` and the operator's CLI): the flags `--tls` and `--ca FILE`, the same
variables our processes read (MANAFORGE_TLS_CA, MANAFORGE_TLS_CLIENT_CERT, MANAFORGE_TLS_CLIENT_KEY: docs/settings.md),
and a readable sentence for a connection that TLS refused."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping

import grpc

from services.settings import SYSTEM_STORE
from services.tls import TlsFileError, channel_credentials


def add_tls_flags(parser: argparse.ArgumentParser, default: object = None) -> None:
    """--tls and --ca on `parser` (`default`: argparse.SUPPRESS on a subcommand's copy of the global flags)."""
    parser.add_argument(
        "--tls",
        action="store_true",
        default=default if default is not None else False,
        help="speak TLS to the gateway, trusting the system's CAs (also MANAFORGE_TLS_CA=system)",
    )
    parser.add_argument(
        "--ca",
        default=default,
        metavar="FILE",
        help="speak TLS, trusting this CA's PEM file (also MANAFORGE_TLS_CA=FILE)",
    )


def authority(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> str:
    """The CA the client trusts: --ca, else the system's with --tls, else MANAFORGE_TLS_CA; empty: plaintext."""
    return (
        getattr(args, "ca", None)
        or (SYSTEM_STORE if getattr(args, "tls", False) else "")
        or environ.get("MANAFORGE_TLS_CA", "")
    )


def credentials(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> grpc.ChannelCredentials | None:
    """The channel's TLS credentials from the flags and the environment (None: plaintext). A file that cannot be
    read ends the command with a sentence naming it."""
    ca = authority(args, environ)
    if not ca:
        return None
    try:
        return channel_credentials(
            ca, environ.get("MANAFORGE_TLS_CLIENT_CERT", ""), environ.get("MANAFORGE_TLS_CLIENT_KEY", "")
        )
    except TlsFileError as exc:
        raise SystemExit(f"manaforge: {exc}") from None


def unreachable(address: str, ca: str, details: str) -> str:
    """Why a gateway could not be reached, in a sentence: TLS refusals named, else the usual advice."""
    trusted = "the system's CAs" if ca == SYSTEM_STORE else f"the CA in {ca}"
    if "CERTIFICATE_VERIFY_FAILED" in details:
        return (
            f"the gateway at {address} presented a certificate that {trusted} did not sign: not connecting. "
            "Trust its CA with --ca FILE or MANAFORGE_TLS_CA."
        )
    if "not in peer certificate" in details or "Peer name" in details:
        return f"the gateway's certificate does not name {address.rsplit(':', 1)[0]}: not connecting."
    if ca and ("WRONG_VERSION_NUMBER" in details or "handshake" in details.lower()):
        return f"the TLS handshake with {address} failed (does it serve TLS? without it: drop --tls/--ca): {details}"
    plain = "" if ca else " If it serves TLS: --tls (the system's CAs) or --ca FILE."
    return (
        f"cannot reach a Manaforge gateway at {address}. Is it running (`make run`)? "
        f"Another address: --gateway HOST:PORT or MANAFORGE_GATEWAY.{plain}"
    )
