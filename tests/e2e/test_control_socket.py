"""The control socket as a transport: framing, size limit, malformed requests, clients that
never finish, concurrency, and peers of another user.
"""

from __future__ import annotations

import json
import os
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux

LIMIT = 64 * 1024
NOBODY = 65534


def raw_exchange(
    path: str, data: bytes, *, half_close: bool = True, timeout: float = 10.0
) -> bytes:
    """Send ``data`` as is; return every byte the server sends before closing."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    try:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
    finally:
        s.close()


def failure_code(reply: bytes) -> str:
    assert reply.endswith(b"\n") and reply.count(b"\n") == 1, reply
    obj = json.loads(reply)
    assert obj["type"] == "failure" and isinstance(obj.get("message"), str), obj
    assert set(obj) == {"type", "code", "message"}
    return str(obj["code"])


# -- framing and size ---------------------------------------------------------------------------
def test_request_of_64_kib_is_served(mytty: Mytty) -> None:
    body = b'{"type":"list","pad":"' + b"x" * LIMIT
    body = body[: LIMIT - 2] + b'"}'
    assert len(body) == LIMIT
    reply = json.loads(raw_exchange(mytty.control_socket, body + b"\n"))
    assert reply["type"] == "list"


@pytest.mark.parametrize("newline", [True, False])
def test_request_over_64_kib_is_request_too_large(mytty: Mytty, newline: bool) -> None:
    body = b'{"type":"list","pad":"' + b"x" * LIMIT
    body = body[: LIMIT - 1] + b'"}'
    assert len(body) == LIMIT + 1
    reply = raw_exchange(mytty.control_socket, body + (b"\n" if newline else b""))
    assert failure_code(reply) == "request-too-large"
    assert mytty.ctl("list").returncode == 0


def test_only_the_first_line_counts(mytty: Mytty) -> None:
    reply = raw_exchange(mytty.control_socket, b'{"type":"list"}\n{"type":"bogus"}\ngarbage')
    assert reply.count(b"\n") == 1
    assert json.loads(reply)["type"] == "list"


def test_request_ended_by_eof_without_newline(mytty: Mytty) -> None:
    reply = raw_exchange(mytty.control_socket, b'{"type":"list"}')
    assert json.loads(reply)["type"] == "list"


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"\n",
        b"{not json\n",
        b'{"type":"list"\n',
        b"[1, 2]\n",
        b'"list"\n',
        b"42\n",
        b"null\n",
        b"{}\n",
        b'{"type": 5}\n',
        b'{"type": null}\n',
        b'{"type":"frobnicate"}\n',
        b'{"type":"List"}\n',
        b'{"type":"li\xffst"}\n',
        b"\xef\xbb\xbf\xff\xfe\n",
    ],
)
def test_malformed_requests_are_invalid_request(shared_mytty: Mytty, body: bytes) -> None:
    mytty = shared_mytty  # its requests change nothing: one controller for the module
    assert failure_code(raw_exchange(mytty.control_socket, body)) == "invalid-request"


# -- clients that never finish --------------------------------------------------------------------
def still_open(sock: socket.socket) -> bool:
    """True while the server has neither closed ``sock`` nor sent anything on it."""
    try:
        sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return True
    return False


def wait_for_drop(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """Wait until the server closes ``sock``; return what it sent and how long that took."""
    start = time.monotonic()
    sock.settimeout(limit)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except TimeoutError:
        raise AssertionError(f"the server kept a silent client for more than {limit}s") from None
    return data, time.monotonic() - start


@pytest.mark.parametrize("prefix", [b"", b'{"type":"list"'])
def test_client_without_newline_is_dropped_while_others_are_served(
    mytty: Mytty, prefix: bytes
) -> None:
    hung = []
    for _ in range(20):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(mytty.control_socket)
        s.sendall(prefix)  # and never a newline, never EOF
        hung.append(s)
    try:
        for _ in range(3):
            reply = json.loads(raw_exchange(mytty.control_socket, b'{"type":"list"}\n'))
            assert reply["type"] == "list", reply
            # Answered while every hung client is still held: they delayed nobody (a server
            # that waited for them would have dropped them before answering).
            assert [still_open(s) for s in hung] == [True] * len(hung)
        data, _ = wait_for_drop(hung[0], 10.0)
        assert data == b""  # dropped without a reply
        for s in hung[1:]:
            assert wait_for_drop(s, 5.0)[0] == b""
    finally:
        for s in hung:
            s.close()


def test_trickling_client_is_dropped_after_a_bounded_time(mytty: Mytty) -> None:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(mytty.control_socket)
    start = time.monotonic()
    dropped_after = None
    try:
        while time.monotonic() - start < 15:
            try:
                s.sendall(b" ")  # whitespace: a valid start of JSON, never finished
            except (BrokenPipeError, ConnectionResetError):
                dropped_after = time.monotonic() - start
                break
            readable, _, _ = select.select([s], [], [], 0.2)
            if readable and s.recv(65536) == b"":
                dropped_after = time.monotonic() - start
                break
    finally:
        s.close()
    # A per-read timeout would never drop it (a byte comes every 0.2 s); only the bound on the
    # whole request does, long before the loop's 15 s deadline.
    assert dropped_after is not None
    assert mytty.ctl("list").returncode == 0


def test_concurrent_clients_are_all_answered(mytty: Mytty) -> None:
    first = mytty.first_pane()
    results: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            results.append(mytty.request({"type": "read", "paneID": first}))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert len(results) == 40 and all(r["type"] == "content" for r in results)


# -- other users ----------------------------------------------------------------------------------
def as_user(uid: int, action: Callable[[], Any]) -> Any:
    """Run ``action`` in a forked child that switched to ``uid``; return its JSON result."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        status = 0
        try:
            os.close(read_fd)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            try:
                result: Any = {"ok": action()}
            except OSError as exc:
                result = {"errno": exc.errno}
            os.write(write_fd, json.dumps(result).encode())
        except BaseException:  # noqa: BLE001
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child failed"
    return json.loads(data)


def exchange_line(path: str, line: bytes) -> str:
    return raw_exchange(path, line).decode()


@pytest.mark.skipif(os.geteuid() != 0, reason="NOT RUN: needs root to act as another uid")
def test_another_users_process_cannot_connect_to_private_sockets(mytty: Mytty) -> None:
    result = as_user(NOBODY, lambda: exchange_line(mytty.control_socket, b'{"type":"list"}\n'))
    assert result == {"errno": 13}  # EACCES: the home is 0700, the socket 0600


@pytest.mark.skipif(os.geteuid() != 0, reason="NOT RUN: needs root to act as another uid")
def test_peer_with_another_uid_is_refused_even_when_the_socket_is_open(mytty: Mytty) -> None:
    # A copy of the situation with the file modes opened up: only the peer check is left.
    for d in (mytty.root, mytty.mytty_home):
        os.chmod(d, 0o755)
    for sock in (mytty.control_socket, mytty.event_socket):
        os.chmod(sock, 0o666)
    first = mytty.first_pane()
    control = as_user(
        NOBODY,
        lambda: exchange_line(
            mytty.control_socket,
            json.dumps({"type": "closePane", "paneID": first}).encode() + b"\n",
        ),
    )
    assert "ok" in control, control
    reply = json.loads(control["ok"])
    assert reply["type"] == "failure" and reply["code"] == "permission-denied"
    control = as_user(NOBODY, lambda: exchange_line(mytty.control_socket, b'{"type":"list"}\n'))
    assert json.loads(control["ok"])["code"] == "permission-denied"
    events = as_user(NOBODY, lambda: exchange_line(mytty.event_socket, b"{}\n"))
    assert json.loads(events["ok"]) == {"ok": False, "error": "unauthorized"}
    # The owner is still served, and nothing happened to the pane.
    assert [p["paneID"] for p in mytty.panes()] == [first]
