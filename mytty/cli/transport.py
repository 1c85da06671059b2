"""One request over the control socket and its reply: the transport ``mytty-ctl``, its shell
completion, the ``mytty`` commands and the attention popup share.

A request is one JSON line; the controller answers one JSON line and closes. Every way that
can go wrong is a :class:`CtlError` with a wire error code (``not-running``,
``permission-denied``, ``timeout``, ``invalid-response``, ``request-too-large``, or the code of
the controller's ``failure`` reply). ``mytty-ctl`` loads this on every call, so it imports only
the stdlib and :mod:`mytty.protocol.limits` (``tests/cli/test_ctl_imports.py``).
"""

from __future__ import annotations

import os
import time

# `_socket`, not `socket`: the Python wrapper imports `selectors` and builds its enums at import
# (a few percent of a mytty-ctl run); the C type has every method used here.
from _socket import AF_UNIX, SHUT_WR, SOCK_STREAM, socket

from mytty.core import codes
from mytty.protocol.jsonlite import dumps, loads
from mytty.protocol.limits import MAX_CTL_RESPONSE_BYTES, MAX_REQUEST_BYTES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:  # (typing itself is a noticeable share of a mytty-ctl run)
    from typing import Any, NoReturn

CONNECT_TIMEOUT = 5.0
#: One ``recv`` at most; a reply is at most ``MAX_CTL_RESPONSE_BYTES``.
RECV_CHUNK = 262144


class CtlError(Exception):
    """A request that got no usable reply: ``code`` is a wire error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Dropped(CtlError):
    """The connection closed before a reply came (the controller, or an SSH link on the way,
    went away): the request may or may not have been handled."""


def _fail(code: str, message: str) -> NoReturn:
    raise CtlError(code, message)


def encode(obj: dict[str, Any]) -> bytes:
    """A request as the bytes of its JSON line (without the newline)."""
    return dumps(obj).encode("utf-8")


def socket_path() -> str:
    """The socket ``mytty-ctl`` talks to: ``$MYTTY_CONTROL_SOCKET``, else the home's."""
    from mytty.core.paths import control_socket

    return control_socket(os.environ)


def _connect_waiting(sock: socket, path: str) -> None:
    """Connect, waiting while the controller's listen queue is full (EAGAIN), up to the
    connect timeout: a busy controller is not a dead one."""
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        try:
            sock.connect(path)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def _connect(sock: socket, path: str) -> None:
    try:
        _connect_waiting(sock, path)
    except (FileNotFoundError, ConnectionRefusedError):
        _fail(
            codes.NOT_RUNNING,
            f"no mytty controller is listening on {path}; start one with "
            "`mytty start` (or `mytty up` to also attach)",
        )
    except PermissionError:
        _fail(
            codes.PERMISSION_DENIED,
            f"not allowed to connect to {path} (a sandbox, or another "
            "user's socket); run mytty-ctl outside the sandbox",
        )
    except OSError as exc:
        _fail(codes.NOT_RUNNING, f"cannot connect to {path}: {exc.strerror or exc}")


def _receive(sock: socket, timeout: float) -> bytes:
    """The reply's first line (the controller sends one), at most the reply size limit."""
    sock.settimeout(timeout)
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = sock.recv(RECV_CHUNK)
        except TimeoutError:
            _fail(codes.TIMEOUT, f"the controller did not answer within {timeout:.0f} s")
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_CTL_RESPONSE_BYTES:
            _fail(codes.INVALID_RESPONSE, "the controller's reply is too large")
        if b"\n" in chunk:
            break
    return b"".join(chunks).split(b"\n", 1)[0]


def connect(path: str) -> socket:
    """A connection to the socket at ``path`` (CtlError as :func:`exchange` says them)."""
    sock = socket(AF_UNIX, SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        _connect(sock, path)
    except BaseException:
        sock.close()
        raise
    return sock


def exchange(path: str, body: bytes, timeout: float) -> dict[str, Any]:
    """Send ``body`` to the socket at ``path``; the reply object (a failure reply included)."""
    sock = socket(AF_UNIX, SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        _connect(sock, path)
        return talk(sock, body, timeout)
    finally:
        sock.close()


def talk(sock: socket, body: bytes, timeout: float) -> dict[str, Any]:
    """Send ``body`` over a connected socket; the reply object (a failure reply included).
    :class:`Dropped` when the connection closes before a reply."""
    try:
        sock.sendall(body + b"\n")
        sock.shutdown(SHUT_WR)
        data = _receive(sock, timeout)
    except (BrokenPipeError, ConnectionResetError):
        raise Dropped(codes.NOT_RUNNING, "the controller closed the connection") from None
    if not data:
        raise Dropped(
            codes.INVALID_RESPONSE, "the controller closed the connection without a reply"
        )
    return decode(data)


def decode(data: bytes) -> dict[str, Any]:
    """A reply line as an object (``invalid-response`` when it is not one)."""
    try:
        reply = loads(data)
    except ValueError:
        _fail(codes.INVALID_RESPONSE, "the controller's reply is not JSON")
    if not isinstance(reply, dict):
        _fail(codes.INVALID_RESPONSE, "the controller's reply is not an object")
    return reply


def encode_checked(request: dict[str, Any]) -> bytes:
    """A request's bytes; ``request-too-large`` before connecting when it is over the limit."""
    body = encode(request)
    if len(body) > MAX_REQUEST_BYTES:
        _fail(
            codes.REQUEST_TOO_LARGE,
            f"the request is {len(body)} bytes; the limit is {MAX_REQUEST_BYTES // 1024} KiB "
            "(split the text or pipe it through a file)",
        )
    return body


def checked(reply: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``reply``, or its failure as CtlError (``prefix`` goes before the message)."""
    if reply.get("type") == "failure":
        _fail(
            str(reply.get("code") or codes.INTERNAL_ERROR),
            prefix + str(reply.get("message") or "the controller refused the request"),
        )
    return reply


def send(request: dict[str, Any], timeout: float, path: str | None = None) -> dict[str, Any]:
    """Send one request (to ``path``, default :func:`socket_path`); the controller's reply, or
    CtlError (a failure reply included)."""
    body = encode_checked(request)
    return checked(exchange(socket_path() if path is None else path, body, timeout))
