"""Running ``mytty web``: TLS, the listening socket, the pairing link, and a clean stop.

The server prints on stdout where it serves and a pairing link (with a QR code when stdout is
a terminal), then logs to stderr: who paired, what was refused, when the controller went
away — never a code, a token or a URL that holds one. It stops on SIGINT/SIGTERM, ending every
open stream at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import ssl
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from mytty.core.errors import ErrorCode, MyttyError
from mytty.web.listen import Listen
from mytty.web.sessions import CODE_TTL_S, Sessions

log = logging.getLogger("mytty.web")

#: How long a stopping server waits for its handlers.
SHUTDOWN_S = 1.0


@dataclass(frozen=True, slots=True)
class Options:
    listen: Listen
    tls_cert: str | None
    tls_key: str | None
    open_browser: bool


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """A server TLS context from the user's certificate and key (``invalid-tls`` otherwise)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise MyttyError(
            ErrorCode.INVALID_TLS, f"cannot use {cert} with {key}: {exc.strerror or exc}"
        ) from None
    return context


def pairing_text(url: str, code: str, *, terminal: bool) -> str:
    """What ``mytty web`` and ``--pair`` print: the link, and its QR code on a terminal."""
    from mytty.web.qr import terminal_qr

    link = f"{url}/pair/{code}"
    lines = [f"Pair a browser within {int(CODE_TTL_S // 60)} minutes (the link works once):", link]
    if terminal:
        lines.append(terminal_qr(link))
    return "\n".join(lines) + "\n"


def _bound_port(addresses: list[object], wanted: int) -> int:
    for address in addresses:
        if isinstance(address, tuple) and len(address) >= 2 and isinstance(address[1], int):
            return address[1]
    return wanted


def _refused(host: str, port: int, exc: OSError) -> MyttyError:
    return MyttyError(
        ErrorCode.LISTEN_FAILED, f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    )


def _listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets listening on every address ``host`` names, on ``port`` (``listen-failed``
    when one cannot: none is left open). Port 0: the first one's port for all."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise _refused(host, port, exc) from None
    opened: list[socket.socket] = []
    seen: set[tuple[int, object]] = set()
    try:
        for family, kind, proto, _name, address in infos:
            if (family, address[0]) in seen:
                continue
            seen.add((family, address[0]))
            listening = socket.socket(family, kind, proto)
            opened.append(listening)
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                listening.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if port == 0 and len(opened) > 1:
                address = (address[0], opened[0].getsockname()[1], *address[2:])
            listening.bind(address)
            listening.listen(128)
            listening.setblocking(False)
    except OSError as exc:
        for listening in opened:
            listening.close()
        raise _refused(host, port, exc) from None
    return opened


async def serve(options: Options, sessions: Sessions, out: TextIO) -> None:
    """Serve until SIGINT or SIGTERM."""
    from aiohttp import web

    from mytty.web.app import make_app
    from mytty.web.context import Web
    from mytty.web.control import Controller
    from mytty.web.live import Live
    from mytty.web.throttle import PairingThrottle

    context = None
    if options.tls_cert is not None and options.tls_key is not None:
        context = tls_context(options.tls_cert, options.tls_key)
    tls = context is not None
    controller = Controller()
    parts = Web(
        options.listen, tls, sessions, controller, Live(controller), PairingThrottle(), time.time
    )
    # Listen first: a taken port is refused before the app (and its live feed) starts.
    listening = _listening_sockets(options.listen.host, options.listen.port)
    runner = web.AppRunner(make_app(parts), access_log=None, shutdown_timeout=SHUTDOWN_S)
    try:
        await runner.setup()
        for sock in listening:
            await web.SockSite(runner, sock, ssl_context=context).start()
        url = options.listen.url(_bound_port(list(runner.addresses), options.listen.port), tls=tls)
        code = sessions.issue_code()
        sessions.announce(url, os.getpid())
        scope = "loopback only" if options.listen.loopback else "TLS, reachable from other machines"
        out.write(f"mytty web: serving {url} ({scope})\n")
        out.write(pairing_text(url, code, terminal=out.isatty()))
        out.flush()
        if options.open_browser:
            import webbrowser

            await asyncio.to_thread(webbrowser.open, f"{url}/pair/{code}")
        await _until_signalled()
    finally:
        if sessions.current().pid == os.getpid():
            sessions.announce(None, None)
        await runner.cleanup()
        for sock in listening:
            sock.close()


async def _until_signalled() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signum)
    log.info("stopping")


def configure_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("mytty web: %(message)s"))
    root = logging.getLogger("mytty.web")
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    root.propagate = False
    # aiohttp's own loggers would name request lines; the access log is off, and its error
    # log is kept to warnings without request details.
    logging.getLogger("aiohttp").setLevel(logging.ERROR)
