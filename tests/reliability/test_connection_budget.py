"""A client that parks waits by the thousand cannot make the controller look dead (issue 19).

The controller runs under a 1024-descriptor limit (``RLIMIT_NOFILE`` set before it starts, so
it cannot raise it), which gives its control socket about 470 connections. Hog processes
(tests/reliability/hog.py) park long polls on it; meanwhile this process, another client,
asks ``list`` again and again and must be answered within a second every time, and
``mytty-ctl list`` and ``status`` and an ``attention`` request must succeed. A hog past its share is answered
``too-many-requests`` naming the limit, never left with a closed connection (which
``mytty-ctl`` reports as ``not-running``).
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.harness import TESTS_DIR, Mytty

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]

NOFILE = 1024
#: How long another client's short request may take while the hogs do their worst.
SHORT_ANSWER_S = 1.0


@pytest.fixture
def limited() -> Iterator[Mytty]:
    m = Mytty()
    try:
        m.start(nofile=NOFILE)
        yield m
    finally:
        m.close()


class Hog:
    """One hog process parking ``count`` polls; ``result()`` stops it and says what it saw."""

    def __init__(self, m: Mytty, count: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.hog", str(count), m.control_socket],
            cwd=str(TESTS_DIR.parent),
            env=m.env,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.ready = threading.Event()
        threading.Thread(target=self._wait_ready, daemon=True).start()

    def _wait_ready(self) -> None:
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() == "ready":
            self.ready.set()

    def result(self) -> dict[str, Any]:
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=30)
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])["result"]
        return result


def ask(m: Mytty, obj: dict[str, Any]) -> dict[str, Any]:
    """One request on a fresh connection, timed from before the connect to the reply."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(m.control_socket)  # blocking: it waits its turn in the listen queue
        s.settimeout(10)
        s.sendall(json.dumps(obj).encode() + b"\n")
        s.shutdown(socket.SHUT_WR)
        data = b""
        while b"\n" not in data and (chunk := s.recv(65536)):
            data += chunk
    finally:
        s.close()
    reply: dict[str, Any] = json.loads(data.split(b"\n")[0])
    return reply


def poll(m: Mytty, parked: list[socket.socket]) -> dict[str, Any] | None:
    """A long poll: its reply if one comes at once, else None (its connection kept in
    ``parked``)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(m.control_socket)
    request = {"type": "events", "afterSequence": 10**9, "timeoutSeconds": 600}
    s.sendall(json.dumps(request).encode() + b"\n")
    s.shutdown(socket.SHUT_WR)
    s.settimeout(0.5)  # a refusal comes at once; a poll that got in says nothing
    try:
        data = s.recv(65536)
    except TimeoutError:
        parked.append(s)
        return None
    s.close()
    reply: dict[str, Any] = json.loads(data.split(b"\n")[0])
    return reply


def short_requests_answer_while(m: Mytty, hogs: list[Hog], settle_s: float = 1.0) -> list[float]:
    """``list`` over and over until every hog is in place (and ``settle_s`` more): the times."""
    times: list[float] = []
    settled_at: float | None = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        started = time.monotonic()
        reply = ask(m, {"type": "list"})
        times.append(time.monotonic() - started)
        assert reply["type"] == "list", reply
        if settled_at is None and all(h.ready.is_set() for h in hogs):
            settled_at = time.monotonic()
        if settled_at is not None and time.monotonic() - settled_at > settle_s:
            return times
    raise AssertionError("the hogs never got their polls in place")


def share_of(message: str) -> int:
    found = re.search(r"at most (\d+) at once", message)
    assert found is not None, message
    return int(found.group(1))


def test_one_client_with_a_thousand_waits_gets_its_share_and_list_still_answers(
    limited: Mytty,
) -> None:
    m = limited
    hog = Hog(m, 1000)
    times = short_requests_answer_while(m, [hog])
    assert max(times) < SHORT_ANSWER_S, sorted(times)[-5:]
    for args in (("list",), ("status", "--pane", m.first_pane(), "busy")):
        result = m.ctl(*args)
        assert result.returncode == 0, (args, result.stderr)
    assert ask(m, {"type": "attention"})["type"] == "attention"
    # Another client's own poll still gets in: the hog holds only its share.
    assert ask(m, {"type": "events", "timeoutSeconds": 0})["type"] == "events"
    seen = hog.result()
    refused = seen["answers"].get("too-many-requests", 0)
    assert refused > 0, seen
    message = seen["messages"]["too-many-requests"]
    share = share_of(message)
    assert f"descriptor limit of {NOFILE}" in message, message
    assert seen["parked"] == share, seen  # every request within the share waits as asked
    assert seen["closed"] == 0, json.dumps(
        seen
    )  # refused with an answer, never a closed connection
    assert seen["parked"] + refused == 1000, seen


def test_waits_of_many_clients_leave_the_reserve_to_short_requests(limited: Mytty) -> None:
    m = limited
    hogs = [Hog(m, 100) for _ in range(6)]  # 600 polls: more than waiting requests may take
    times = short_requests_answer_while(m, hogs)
    assert max(times) < SHORT_ANSWER_S, sorted(times)[-5:]
    # A poll of this client is refused now, or once it took the few places the hogs' last
    # refusals left (everything but the reserve waits) ...
    parked: list[socket.socket] = []
    reply = None
    while reply is None and len(parked) < 20:
        reply = poll(m, parked)
    for s in parked:
        s.close()
    assert reply is not None, f"{len(parked)} more polls parked"
    assert (reply["type"], reply["code"]) == ("failure", "too-many-requests"), reply
    assert "short requests such as list" in reply["message"], reply
    # ... and short ones still answer through mytty-ctl.
    assert m.ctl("list").returncode == 0
    assert ask(m, {"type": "attention"})["type"] == "attention"
    seen = [hog.result() for hog in hogs]
    parked = sum(s["parked"] for s in seen)
    refused = sum(s["answers"].get("too-many-requests", 0) for s in seen)
    assert refused > 0 and parked + refused == 600, seen
    assert all(s["closed"] == 0 for s in seen), seen
