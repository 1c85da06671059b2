"""Fuzz both sockets of one real controller (issue 15: the reliability suite, fuzz part).

Every case is one connection exactly as a client makes it (connect, bytes, half-close, read
to EOF). Whatever was sent, the controller must answer with one JSON line whose error, if any,
is a stable ``ErrorCode`` (never ``internal-error``: that would be an unhandled input), never
echo a capability, stay up, and give back the descriptors the cases used. The controller's log
must not hold a capability either.

Bounded for CI (5,000 cases plus the size edges, one controller for the module);
``MYTTY_FUZZ_SCALE=20`` (what ``scripts/bench/fuzz`` sets) runs 100,000. The case counts are
printed in pytest's summary.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mytty.control.registry import declarations
from mytty.core.errors import ErrorCode
from tests.e2e.events_support import open_agent_pane
from tests.reliability import counts
from tests.reliability.strategies import (
    RAW_BYTES,
    UNSAFE_TYPES,
    control_requests,
    declared_requests,
    encodings,
    envelopes,
)
from tests.support.harness import Mytty, wait_until

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]

SCALE = float(os.environ.get("MYTTY_FUZZ_SCALE", "1"))
CASES = {
    "events: mutated envelopes": 1700,
    "events: raw bytes": 700,
    "control: declared requests, mutated": 1100,
    "control: mutated requests": 800,
    "control: raw bytes": 700,
}
CODES = frozenset(code.value for code in ErrorCode)
#: A case may hold this many descriptors more than the idle controller at the end (tmux
#: reconnects, the store's checkpointer, a connection still closing).
FD_SLACK = 16
MAX_REQUEST = 65536
#: RSS the controller may gain over a run (the largest requests are 64 KiB, runs are bounded).
MAX_RSS_GROWTH = 64 * 2**20


def _examples(name: str) -> int:
    return max(1, round(CASES[name] * SCALE))


def _settings(name: str) -> settings:
    return settings(
        max_examples=_examples(name),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


@dataclass
class Target:
    m: Mytty
    surface: str
    capability: str
    #: A pane control requests may act on: it runs ``cat`` into /dev/null, so typed text and
    #: keys go nowhere (a key that ends cat closes it: later cases then get pane-not-found).
    fuzz_pane: str
    idle_fds: int
    idle_rss: int

    def exchange(self, path: str, data: bytes) -> bytes:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(20)
        try:
            s.connect(path)
            try:
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
            except (BrokenPipeError, ConnectionResetError):
                pass  # a too-large request is answered before the rest is read
            chunks = []
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            s.close()

    def check_secret(self, raw: bytes) -> None:
        for form in (self.capability, self.capability.lower()):
            assert form.encode() not in raw, f"a reply holds the capability: {raw[:200]!r}"

    def event(self, data: bytes) -> dict[str, Any]:
        raw = self.exchange(self.m.event_socket, data)
        self.check_secret(raw)
        reply = _one_line(raw, data)
        if reply.get("ok") is True:
            assert set(reply) == {"ok", "inserted"} and isinstance(reply["inserted"], bool), reply
            counts.outcome("events", "inserted" if reply["inserted"] else "duplicate")
        else:
            assert set(reply) == {"ok", "error"} and reply["ok"] is False, reply
            _stable(reply["error"], data)
            counts.outcome("events", reply["error"])
        return reply

    def control(self, data: bytes) -> dict[str, Any]:
        raw = self.exchange(self.m.control_socket, data)
        self.check_secret(raw)
        reply = _one_line(raw, data)
        assert isinstance(reply.get("type"), str), reply
        if reply["type"] == "failure":
            _stable(reply.get("code"), data)
            assert isinstance(reply.get("message"), str), reply
            counts.outcome("control", reply["code"])
        else:
            counts.outcome("control", reply["type"])
        return reply


def _one_line(raw: bytes, sent: bytes) -> dict[str, Any]:
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1, f"{raw[:200]!r} for {sent[:200]!r}"
    reply = json.loads(raw)
    assert isinstance(reply, dict), reply
    return reply


def _stable(code: object, sent: bytes) -> None:
    assert code in CODES, f"unknown code {code!r} for {sent[:200]!r}"
    assert code != ErrorCode.INTERNAL_ERROR.value, f"internal-error for {sent[:300]!r}"


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    m = Mytty()
    try:
        m.start()
        pane = open_agent_pane(m)
        sink = m.ctl("new-tab", "--command", "exec cat >/dev/null").json["paneID"]
        m.ctl("list").ok()
        yield Target(m, pane.pane_id, pane.capability, sink, m.open_fds(), _rss(m))
    finally:
        m.close()


def _rss(m: Mytty) -> int:
    """The controller's resident memory in bytes."""
    assert m.proc is not None
    with open(f"/proc/{m.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _alive(t: Target) -> None:
    assert t.m.proc is not None and t.m.proc.poll() is None, t.m.log()[-3000:]


SAFE_TYPES = tuple(sorted(c.wire for c in declarations() if c.wire and c.wire not in UNSAFE_TYPES))


def _fuzz(name: str, requests: st.SearchStrategy[bytes], send: Callable[[bytes], object]) -> None:
    """Send ``_examples(name)`` drawn requests through ``send`` (which checks each reply)."""

    @_settings(name)
    @given(body=requests)
    def case(body: bytes) -> None:
        send(body)
        counts.add(name)

    case()


def _encoded(values: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    return values.flatmap(encodings)


def test_event_socket_mutated_envelopes(target: Target) -> None:
    envelope = envelopes(target.surface, target.capability)
    _fuzz("events: mutated envelopes", _encoded(envelope), target.event)
    _alive(target)


def test_event_socket_raw_bytes(target: Target) -> None:
    _fuzz("events: raw bytes", RAW_BYTES, target.event)
    _alive(target)


def test_control_socket_declared_requests(target: Target) -> None:
    commands = tuple(c for c in declarations() if c.wire in SAFE_TYPES)
    requests = _encoded(declared_requests(commands, target.fuzz_pane))
    _fuzz("control: declared requests, mutated", requests, target.control)
    _alive(target)


def test_control_socket_mutated_requests(target: Target) -> None:
    _fuzz("control: mutated requests", _encoded(control_requests(SAFE_TYPES)), target.control)
    _alive(target)


def test_control_socket_raw_bytes(target: Target) -> None:
    _fuzz("control: raw bytes", RAW_BYTES, target.control)
    _alive(target)


@pytest.mark.parametrize("socket_name", ["events", "control"])
def test_requests_at_64_kib_plus_minus_one(target: Target, socket_name: str) -> None:
    """At most 65,536 bytes before the newline (or EOF) are read; one more is too large."""
    send = target.event if socket_name == "events" else target.control
    for size in (MAX_REQUEST - 1, MAX_REQUEST, MAX_REQUEST + 1):
        for newline in (True, False):
            # A JSON string padded to the size, so it is one well-formed value up to the limit.
            body = b'"' + b"x" * (size - 2) + b'"'
            assert len(body) == size
            reply = send(body + (b"\n" if newline else b""))
            code = reply.get("error") if socket_name == "events" else reply.get("code")
            if size > MAX_REQUEST:
                assert code == ErrorCode.REQUEST_TOO_LARGE.value, (size, newline, reply)
            else:
                assert code == ErrorCode.INVALID_REQUEST.value, (size, newline, reply)
            counts.add("size edges")
    _alive(target)


def test_the_controller_survived_and_kept_nothing(target: Target) -> None:
    m = target.m
    _alive(target)
    # Still serving: a plain request on each socket works.
    assert m.ctl("list").json["type"] == "list"
    pane = [p for p in m.panes() if p["paneID"] == target.surface]
    assert pane, "the fuzzed pane is gone"
    wait_until(
        lambda: m.open_fds() <= target.idle_fds + FD_SLACK,
        15,
        message=f"descriptors back near {target.idle_fds} (now {m.open_fds()})",
    )
    # Memory: what the cases left behind is bounded (runs per pane, closed connections freed).
    grown = _rss(m) - target.idle_rss
    assert grown < MAX_RSS_GROWTH, f"RSS grew by {grown / 2**20:.1f} MiB"
    log = m.log()
    assert target.capability not in log and target.capability.lower() not in log
    assert "Traceback" not in log, log[log.index("Traceback") - 500 :][:3000]
    ran = counts.snapshot()
    if all(name in ran for name in CASES):
        assert sum(ran[name] for name in CASES) >= round(5000 * SCALE), ran
