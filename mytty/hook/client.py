"""The event socket client: one connection, one envelope line, one reply line, bounded in time.

Everything runs against a single deadline supplied by the caller, so a wedged controller (one
that accepts and never answers, or never accepts) costs the agent at most that long. A failed
attempt is retried once on a fresh connection for EPIPE/ECONNRESET/EAGAIN or a timeout, within
the same deadline: events are idempotent by id, so a duplicate is harmless.
"""

import errno
import os
import time

# `_socket`, not `socket`: the Python wrapper imports `selectors` and builds its enums at import,
# about 1 ms of the helper's start-up; the C type has every method used here.
from _socket import AF_UNIX, SHUT_WR, SOCK_STREAM, socket

from mytty.protocol.jsonlite import loads
from mytty.protocol.limits import MAX_EVENT_RESPONSE_BYTES

#: The first attempt may use at most this long, leaving the rest of the deadline to the retry.
FIRST_ATTEMPT_S = 1.0
#: Pause before retrying a connect refused with EAGAIN (the listen backlog is full).
RETRY_PAUSE_S = 0.02
#: Do not start a retry with less time than this left.
MIN_RETRY_S = 0.05

_ABSENT = frozenset({errno.ENOENT, errno.ECONNREFUSED, errno.ENOTDIR})
_RETRYABLE = frozenset({errno.EPIPE, errno.ECONNRESET, errno.EAGAIN, errno.EWOULDBLOCK})
_DENIED = frozenset({errno.EACCES, errno.EPERM})


class ControllerNotRunning(Exception):
    """No controller listens on the socket (missing file or stale socket): not an error."""


class DeliveryError(Exception):
    """The event could not be delivered; the message is one human-readable line."""


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline reached")
    return left


def _read_line(sock: socket, reply: bytearray, deadline: float, max_reply: int) -> None:
    """Read into ``reply`` until it holds a newline, EOF, or the deadline (TimeoutError)."""
    while b"\n" not in reply:
        sock.settimeout(_remaining(deadline))
        chunk = sock.recv(65536)
        if not chunk:
            break
        reply += chunk
        if len(reply) > max_reply and b"\n" not in reply[:max_reply]:
            raise DeliveryError("mytty's reply is too large")


#: A connection left open after its first reply line, with what was read past that line.
Kept = list[tuple[socket, bytes]]


def _exchange(
    path: str, line: bytes, deadline: float, max_reply: int, keep: Kept | None = None
) -> bytes:
    """One request and its first reply line. ``keep``: leave the socket open and hand it over
    (a held PermissionRequest reads a second line from it)."""
    sock = socket(AF_UNIX, SOCK_STREAM)
    try:
        sock.settimeout(_remaining(deadline))
        sock.connect(path)
        sock.settimeout(_remaining(deadline))
        sock.sendall(line)
        try:
            sock.shutdown(SHUT_WR)
        except OSError:
            pass  # the server may already have answered and closed; read what it sent
        reply = bytearray()
        _read_line(sock, reply, deadline, max_reply)
        if keep is not None:
            keep.append((sock, bytes(reply).partition(b"\n")[2]))
        return bytes(reply)
    finally:
        if keep is None or not keep or keep[-1][0] is not sock:
            sock.close()


def _describe(exc: OSError) -> str:
    if exc.errno in _DENIED:
        return (
            "permission denied connecting to the mytty event socket "
            "(a sandbox may block Unix sockets)"
        )
    if exc.errno is not None:
        return f"cannot reach mytty: {os.strerror(exc.errno)}"
    return f"cannot reach mytty: {exc}"


def deliver(
    path: str,
    line: bytes,
    *,
    deadline: float,
    max_reply: int = MAX_EVENT_RESPONSE_BYTES,
    keep: Kept | None = None,
) -> dict[str, object]:
    """Send one envelope line to the event socket at ``path`` and return the decoded reply.

    ``deadline`` is a ``time.monotonic()`` instant. Raises ControllerNotRunning when nothing
    listens there, DeliveryError for everything else (including the deadline passing).
    ``keep``: the connection stays open and is appended there (see :func:`read_decision`).
    """
    for attempt in (1, 2):
        attempt_deadline = (
            deadline if attempt == 2 else min(deadline, time.monotonic() + FIRST_ATTEMPT_S)
        )
        try:
            raw = _exchange(path, line, attempt_deadline, max_reply, keep)
            break
        except TimeoutError:
            if attempt == 2 or deadline - time.monotonic() < MIN_RETRY_S:
                raise DeliveryError("timed out waiting for mytty to answer") from None
        except OSError as exc:
            if exc.errno in _ABSENT:
                raise ControllerNotRunning(path) from None
            last_chance = attempt == 2 or deadline - time.monotonic() < MIN_RETRY_S
            if exc.errno not in _RETRYABLE or last_chance:
                raise DeliveryError(_describe(exc)) from None
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                time.sleep(RETRY_PAUSE_S)
    reply_line = raw.split(b"\n", 1)[0].strip()
    if not reply_line:
        raise DeliveryError("mytty closed the connection without answering")
    try:
        reply = loads(reply_line)
    except ValueError:  # includes UnicodeDecodeError and JSONDecodeError
        raise DeliveryError("mytty's reply is not valid JSON") from None
    if not isinstance(reply, dict):
        raise DeliveryError("mytty's reply is not a JSON object")
    return reply


def read_decision(
    sock: socket, hold_until: float, already: bytes = b""
) -> dict[str, object] | None:
    """The decision line of a held PermissionRequest (``already``: what came with the first
    line), read until ``hold_until`` (a ``time.monotonic()`` instant); None when it does not
    come (EOF, timeout, junk)."""
    reply = bytearray(already)
    try:
        _read_line(sock, reply, hold_until, MAX_EVENT_RESPONSE_BYTES)
    except (OSError, DeliveryError):  # TimeoutError is an OSError
        return None
    finally:
        sock.close()
    line = bytes(reply).split(b"\n", 1)[0].strip()
    try:
        decoded = loads(line)
    except ValueError:
        return None
    return decoded if isinstance(decoded, dict) else None
