"""The web edge: serves the browser client and carries its gRPC-Web calls to the platform's gRPC servers.

    python -m gateway.web_edge --address 127.0.0.1:8080 --gateway 127.0.0.1:50051 --rules 127.0.0.1:50061

The page (gateway/web, built by `make web` into gateway/web/dist) calls the Gateway service itself with gRPC-Web
(connect-web's transport), and the stateless RulesService to show a finished game's board at each step of its
replay; this process only reframes: each call is passed on unchanged, as bytes, with grpcio's generic calls, so the
platform's API is the one API. Unary and server-streaming methods (Watch) work; a browser cannot open a client
stream, so Play is refused (a page plays with Watch and SubmitAction).

The operator's console (#/console) calls the gateway's Admin service through the edge only when it is started with
`--console` (MANAFORGE_WEB_CONSOLE=1), and only for a browser on this machine (a loopback peer, with no proxy's
forwarding header): an operator elsewhere comes through an SSH tunnel. The gateway checks the operator key of each
call; the edge refuses an address's Admin calls for a minute after FAILED_KEYS wrong keys in one (docs/operations.md).

gRPC-Web framing (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md): the body is frames of one flag
byte and a 4-byte big-endian length; flag 0 carries a message, flag 0x80 the trailers (`grpc-status`, ...).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import signal
import struct
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from urllib.parse import quote

import grpc
from aiohttp import web
from manaforge.v1 import admin_pb2, gateway_pb2, rules_pb2

from services import observability
from services.settings import Settings, settings_at_start
from services.tls import client_credentials, server_context

DIST = Path(__file__).resolve().parent / "web" / "dist"
CONTENT_TYPE = "application/grpc-web+proto"
FORWARDED_METADATA = ("x-player-id", "x-player-key")  # what a page sends as call metadata
GATEWAY = gateway_pb2.DESCRIPTOR.services_by_name["Gateway"]
RULES = rules_pb2.DESCRIPTOR.services_by_name["RulesService"]
ADMIN = admin_pb2.DESCRIPTOR.services_by_name["Admin"]
OPERATOR_METADATA = ("x-operator-key", "x-operator-name")  # forwarded on Admin calls only
FAILED_KEYS = 5  # wrong operator keys from one address in KEY_WINDOW seconds, before its Admin calls are refused
KEY_WINDOW = 60.0
KEY_ADDRESSES = 1024  # addresses whose failures are remembered (the oldest forgotten first)
PROXY_HEADERS = ("X-Forwarded-For", "Forwarded", "X-Real-IP")
CHANNELS: web.AppKey[dict[str, grpc.aio.Channel]] = web.AppKey("channels", dict)
CONSOLE: web.AppKey[Console] = web.AppKey("console")


class Console:
    """Whether the edge carries Admin calls, to whom, and the wrong keys each address has sent lately."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.failures: dict[str, deque[float]] = {}

    def refusal(self, request: web.Request) -> str:
        """Why this browser's Admin call is not carried ("" when it is)."""
        if not self.enabled:
            return "the operator console is off on this web edge (start it with --console, MANAFORGE_WEB_CONSOLE=1)"
        if not _is_loopback(request.remote) or any(h in request.headers for h in PROXY_HEADERS):
            return "the operator console answers browsers on the edge's own machine only (use an SSH tunnel)"
        return ""

    def locked_for(self, address: str) -> float:
        """Seconds until `address` may try a key again (0: now)."""
        failures = self.failures.get(address)
        now = time.monotonic()
        while failures and failures[0] <= now - KEY_WINDOW:
            failures.popleft()
        if not failures or len(failures) < FAILED_KEYS:
            return 0.0
        return failures[0] + KEY_WINDOW - now

    def failed(self, address: str) -> None:
        if address not in self.failures and len(self.failures) >= KEY_ADDRESSES:
            self.failures.pop(next(iter(self.failures)))  # the address remembered longest
        self.failures.setdefault(address, deque(maxlen=FAILED_KEYS)).append(time.monotonic())


def _is_loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BadFrame(ValueError):
    """The request body is not one gRPC-Web message frame."""


def frame(payload: bytes, trailer: bool = False) -> bytes:
    return struct.pack(">BI", 0x80 if trailer else 0, len(payload)) + payload


def unframe(body: bytes) -> bytes:
    """The one message of a unary or server-streaming request."""
    if len(body) < 5:
        raise BadFrame("the body is not a gRPC-Web frame")
    flag, length = struct.unpack(">BI", body[:5])
    if flag != 0 or len(body) != 5 + length:
        raise BadFrame("expected exactly one uncompressed message frame")
    return body[5:]


def trailers(code: grpc.StatusCode, message: str = "") -> bytes:
    text = f"grpc-status:{code.value[0]}\r\n"
    if message:
        text += f"grpc-message:{quote(message, safe=' ')}\r\n"
    return frame(text.encode(), trailer=True)


async def call(request: web.Request) -> web.StreamResponse:
    """One gRPC-Web call of /{service}/{method}: framed in, framed out, trailers in the body."""
    named = request.match_info["service"]
    service = GATEWAY if named == GATEWAY.full_name else ADMIN if named == ADMIN.full_name else RULES
    method = service.methods_by_name.get(request.match_info["method"])
    console = request.app[CONSOLE]
    address = request.remote or ""
    if request.content_type not in (CONTENT_TYPE, "application/grpc-web"):
        raise web.HTTPUnsupportedMediaType(text=f"send {CONTENT_TYPE} (binary gRPC-Web)")
    response = web.StreamResponse(headers={"Content-Type": CONTENT_TYPE, "Cache-Control": "no-store"})
    await response.prepare(request)
    try:
        if method is None:
            raise _Refused(grpc.StatusCode.UNIMPLEMENTED, f"no method {request.match_info['method']} in {service.name}")
        if method.client_streaming:
            raise _Refused(grpc.StatusCode.UNIMPLEMENTED, f"{method.name} needs a client stream: use Watch")
        if service is ADMIN:
            if refused := console.refusal(request):
                raise _Refused(grpc.StatusCode.PERMISSION_DENIED, refused)
            if wait := console.locked_for(address):
                raise _Refused(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"operator key: {FAILED_KEYS} wrong keys from this address in a minute; try again in {wait:.0f} s",
                )
        try:
            payload = unframe(await request.read())
        except BadFrame as exc:
            raise _Refused(grpc.StatusCode.INVALID_ARGUMENT, str(exc)) from None
        channel = request.app[CHANNELS][
            GATEWAY.full_name if service is ADMIN else service.full_name
        ]  # Admin: same port
        forwarded = _forward(request, channel, method.full_name, method.server_streaming, payload)
        async with contextlib.aclosing(forwarded) as messages:  # closed at once: the gateway's call is cancelled
            async for message in messages:
                await response.write(frame(message))
        ending = trailers(grpc.StatusCode.OK)
    except _Refused as refused:
        ending = trailers(refused.code, refused.message)
    except grpc.aio.AioRpcError as error:
        if service is ADMIN and error.code() in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED):
            console.failed(address)
        ending = trailers(error.code(), error.details() or "")
    except ConnectionError:  # the page went away (a closed tab, a reload): nobody to answer, nothing to report
        return response
    with contextlib.suppress(ConnectionError):  # ... even as the trailers go out
        await response.write(ending)
        await response.write_eof()
    return response


class _Refused(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


async def _forward(
    request: web.Request, channel: grpc.aio.Channel, full_name: str, streaming: bool, payload: bytes
) -> AsyncGenerator[bytes, None]:
    path = "/" + full_name.rsplit(".", 1)[0] + "/" + full_name.rsplit(".", 1)[1]
    forwarded = FORWARDED_METADATA + (OPERATOR_METADATA if full_name.startswith(ADMIN.full_name) else ())
    metadata = [(key, request.headers[key]) for key in forwarded if key in request.headers]
    metadata.append(("x-forwarded-for", request.remote or ""))  # the gateway's per-address limits count the browser
    timeout = _timeout(request.headers.get("grpc-timeout", ""))
    if not streaming:
        yield await channel.unary_unary(path, None, None)(payload, metadata=metadata, timeout=timeout)
        return
    stream = channel.unary_stream(path, None, None)(payload, metadata=metadata, timeout=timeout)
    try:
        async for message in stream:
            yield message
    finally:
        stream.cancel()  # the page went away (or the stream ended): let the gateway drop it at once


def _timeout(header: str) -> float | None:
    """grpc-timeout ("5S", "300m", ...) as seconds."""
    units = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
    if len(header) < 2 or header[-1] not in units or not header[:-1].isdigit():
        return None
    return int(header[:-1]) * units[header[-1]]


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(DIST / "index.html", headers={"Cache-Control": "no-cache"})


def _channel(address: str, credentials: grpc.ChannelCredentials | None) -> grpc.aio.Channel:
    return grpc.aio.secure_channel(address, credentials) if credentials else grpc.aio.insecure_channel(address)


def build_app(
    gateway: str,
    rules: str,
    dist: Path = DIST,
    console: bool = False,
    credentials: grpc.ChannelCredentials | None = None,
) -> web.Application:
    """`credentials`: TLS to the gateway and the rules service (services/tls.py); None: plaintext."""
    if not (dist / "index.html").is_file():
        raise SystemExit(f"the browser client is not built ({dist}): run `make web`")
    app = web.Application()
    app[CONSOLE] = Console(console)

    async def channels(app: web.Application) -> AsyncIterator[None]:
        app[CHANNELS] = {
            GATEWAY.full_name: _channel(gateway, credentials),
            RULES.full_name: _channel(rules, credentials),
        }
        yield
        for channel in app[CHANNELS].values():
            await channel.close(None)

    app.cleanup_ctx.append(channels)
    app.router.add_post(f"/{{service:{GATEWAY.full_name}|{RULES.full_name}|{ADMIN.full_name}}}/{{method}}", call)
    app.router.add_get("/", index)
    app.router.add_static("/", dist)
    return app


async def serve(
    gateway: str, rules: str, host: str, port: int, console: bool = False, settings: Settings | None = None
) -> web.AppRunner:
    """Start the edge (HTTPS only when `settings` have a certificate; TLS to the gateway when they have a CA); the
    caller stops it with `await runner.cleanup()`."""
    settings = settings or Settings()
    app = build_app(gateway, rules, console=console, credentials=client_credentials(settings))
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)  # streams: cut short
    await runner.setup()
    await web.TCPSite(runner, host, port, ssl_context=server_context(settings)).start()
    return runner


def main() -> None:
    parser = argparse.ArgumentParser(description="Manaforge web edge: the browser client and its gRPC-Web calls")
    parser.add_argument("--address", default="127.0.0.1:8080", help="where to serve the page (host:port)")
    parser.add_argument("--gateway", default="127.0.0.1:50051", help="the gateway's gRPC address")
    parser.add_argument("--rules", default="127.0.0.1:50061", help="the rules service's gRPC address (replays)")
    parser.add_argument(
        "--console",
        action="store_true",
        help="carry the operator console's Admin calls, for browsers on this machine (also MANAFORGE_WEB_CONSOLE=1)",
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, observability.stop_at_once)  # until the event loop takes SIGTERM over
    settings = settings_at_start()
    observability.configure("web-edge", settings)
    host, port = args.address.rsplit(":", 1)

    async def run() -> None:
        stopping = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            asyncio.get_running_loop().add_signal_handler(sig, stopping.set)
        runner = await serve(args.gateway, args.rules, host, int(port), args.console or settings.web_console, settings)
        observability.name("web-edge", settings, args.address)
        print(f"web client on http{'s' if settings.is_tls else ''}://{args.address}/", flush=True)
        await stopping.wait()
        await runner.cleanup()

    asyncio.run(run())


if __name__ == "__main__":
    main()
