"""Slow and hostile clients cost well-behaved clients nothing that shows (issue 15, suite part).

One real controller; a well-behaved client (hook-style event deliveries and ``list`` requests,
each on a fresh connection) is measured first with nobody else around, then while hostile
clients, run in a process of their own (tests/reliability/hostile.py), do their worst:

* 200 never-finishing connections per socket, held at all times (trickling a byte a second;
  replaced as the controller drops them);
* connect-and-vanish on both sockets, 300 clients a second (closed at once, after half a
  request, reset after a whole one);
* clients reading a 600 KB reply at one byte a second (the controller cuts them off);
* 1,000 long polls parked, then abandoned all at once.

The well-behaved client's p99 must stay within RATIO of its baseline, measured at the start and
again right before each load, the worse kept (a ratio, not a wall-clock bound: a blocked server
would cost seconds, thousands of times the baseline); every one of its requests must succeed.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.e2e.events_support import (
    INSERTED,
    AgentPane,
    K,
    events_request,
    new_id,
    open_agent_pane,
)
from tests.reliability import counts
from tests.support.harness import TESTS_DIR, Mytty, wait_until

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]

#: How much worse the well-behaved client's p99 may get under hostile load.
RATIO = 10.0
SAMPLES = 200  # per socket and phase
HELD_PER_SOCKET = 200
ABANDONED = 1000
#: Connect-and-vanish clients a second (both sockets together): hostile, yet within what one
#: controller accepts on a loaded 2-core machine (beyond it the listen queue is full for all).
VANISH_RATE = 300
#: The shortest on (and off) window of an alternating measurement.
WINDOW_S = 0.25


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


@dataclass
class Client:
    """The well-behaved client: one pane's events and ``list``, each request timed."""

    m: Mytty
    pane: AgentPane
    run: str = field(default_factory=new_id)

    def measure(self, samples: int = SAMPLES) -> dict[str, float]:
        events: list[float] = []
        lists: list[float] = []
        self.sample(samples, events, lists)
        return {"events": percentile(events, 99), "list": percentile(lists, 99)}

    def measure_alternating(
        self, pause: Callable[[], None], resume: Callable[[], None], windows: int = 8
    ) -> tuple[dict[str, float], dict[str, float]]:
        """p99 with the load on and with it paused, in alternating windows: both sets of
        samples then share whatever else the machine was doing meanwhile."""
        on: tuple[list[float], list[float]] = ([], [])
        off: tuple[list[float], list[float]] = ([], [])
        for window in range(windows):
            for switch, into in ((resume, on), (pause, off)):
                switch()
                # At least WINDOW_S each, so the load really runs for a while.
                until = time.monotonic() + WINDOW_S
                while len(into[0]) < SAMPLES // windows * (window + 1) or time.monotonic() < until:
                    self.sample(5, *into)
        resume()
        p99 = [{"events": percentile(ev, 99), "list": percentile(ls, 99)} for ev, ls in (on, off)]
        return p99[0], p99[1]

    def sample(self, samples: int, events: list[float], lists: list[float]) -> None:
        for _ in range(samples):
            t0 = time.perf_counter()
            reply = self.pane.resend(self.pane.event(K.RUNNING, run_id=self.run))
            events.append(time.perf_counter() - t0)
            assert reply == INSERTED, reply
            t0 = time.perf_counter()
            listed = self.m.request({"type": "list"})
            lists.append(time.perf_counter() - t0)
            assert listed["type"] == "list", listed
        counts.add("hostile: well-behaved requests", 2 * samples)


@dataclass
class Baseline:
    client: Client
    p99: dict[str, float]

    def refresh(self) -> None:
        """Measure again, right before a hostile load, and keep the worse of the two: the
        machine's own noise (other work on a shared CI box) must not count as the load's."""
        fresh = self.client.measure()
        self.p99 = {name: max(value, fresh[name]) for name, value in self.p99.items()}

    def check(
        self, under: str, loaded: dict[str, float], quiet: dict[str, float] | None = None
    ) -> None:
        """``quiet``: a baseline measured alongside the load (see measure_alternating)."""
        for name, base in self.p99.items():
            if quiet is not None:
                base = max(base, quiet[name])
            ratio = loaded[name] / base
            print(f"{under}: {name} p99 {loaded[name] * 1e3:.2f} ms = {ratio:.1f}x the baseline")
            assert ratio <= RATIO, (
                f"under {under}, {name} p99 went from {base * 1e3:.2f} ms to "
                f"{loaded[name] * 1e3:.2f} ms ({ratio:.1f}x > {RATIO}x)"
            )


class Hostile:
    """One hostile-client process (tests/reliability/hostile.py)."""

    def __init__(self, m: Mytty, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.hostile", *args],
            cwd=str(TESTS_DIR.parent),
            stdout=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        assert self.next_line(30) == "ready", "the hostile clients did not get going"

    def next_line(self, timeout: float) -> str | None:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline().strip()
        self.lines.append(line)
        return line

    def pause(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> dict[str, Any]:
        if self.proc.poll() is None:
            self.proc.terminate()
        out, _ = self.proc.communicate(timeout=30)
        last = (self.lines + out.splitlines())[-1]
        result: dict[str, Any] = json.loads(last)["result"]
        return result


@contextmanager
def hostile(m: Mytty, *args: str) -> Iterator[Hostile]:
    h = Hostile(m, *args)
    try:
        yield h
    finally:
        if h.proc.poll() is None:
            h.proc.kill()
            h.proc.communicate()


@pytest.fixture(scope="module")
def baseline() -> Iterator[Baseline]:
    m = Mytty()
    try:
        m.start()
        pane = open_agent_pane(m)
        client = Client(m, pane)
        assert pane.resend(pane.event(K.STARTED, run_id=client.run)) == INSERTED
        client.measure(20)  # warm up, unmeasured
        yield Baseline(client, client.measure())
    finally:
        m.close()


def test_never_finishing_connections(baseline: Baseline) -> None:
    m = baseline.client.m
    baseline.refresh()
    before = m.open_fds()
    with hostile(m, "hold", str(HELD_PER_SOCKET), m.control_socket, m.event_socket) as h:
        wait_until(
            lambda: m.open_fds() >= before + 2 * HELD_PER_SOCKET,
            20,
            message="the controller to hold every never-finishing connection",
        )

        def churning() -> bool:
            line = h.next_line(2)
            return line is not None and json.loads(line)["replaced"] >= HELD_PER_SOCKET

        # Measured while the controller drops them (its read timeout) and they come back.
        wait_until(churning, 30, message="the controller to drop never-finishing requests")
        loaded = baseline.client.measure()
        result = h.stop()
    baseline.check("200 never-finishing connections per socket", loaded)
    # They really were dropped (the read timeout) and came back: the load was sustained.
    assert result["replaced"] >= HELD_PER_SOCKET, result
    wait_until(lambda: m.open_fds() <= before + 3, 20, message="their descriptors to be freed")


def test_connect_and_vanish(baseline: Baseline) -> None:
    m = baseline.client.m
    baseline.refresh()
    before = m.open_fds()
    with hostile(m, "vanish", str(VANISH_RATE), m.control_socket, m.event_socket) as h:
        loaded, quiet = baseline.client.measure_alternating(h.pause, h.resume)
        result = h.stop()
    baseline.check("connect-and-vanish", loaded, quiet)
    # 8 windows of at least WINDOW_S with the load on: 2 s at VANISH_RATE, half of it at least.
    assert result["vanished"] >= VANISH_RATE * 8 * WINDOW_S / 2, result
    counts.add("hostile: vanished clients", result["vanished"])
    wait_until(lambda: m.open_fds() <= before + 3, 20, message="their descriptors to be freed")
    assert "Traceback" not in m.log()


def test_a_one_byte_a_second_reader(baseline: Baseline) -> None:
    m = baseline.client.m
    m.tmux("set-option", "-g", "history-limit", "10000")  # before the pane: tmux reads it then
    big = open_agent_pane(m).pane_id
    m.ctl("send", big, f"yes {'x' * 150} | head -n 6000; echo filled-up", "--enter").ok()
    m.wait_for_text(big, "filled-up", timeout=30)
    size = len(json.dumps(m.ctl("read", big).json))
    assert size > 600_000, size
    baseline.refresh()
    before = m.open_fds()
    readers = 5
    with hostile(m, "slowread", str(readers), m.control_socket, big) as h:
        wait_until(
            lambda: m.open_fds() >= before + readers, 20, message="the slow readers to connect"
        )
        loaded = baseline.client.measure()
        # The controller's write timeout (10 s) lets them go long before 600 KB at 1 byte/s
        # (they still have the part already in their socket buffers to read).
        wait_until(lambda: m.open_fds() <= before + 3, 60, message="the slow readers to be cut off")
        result = h.stop()
    baseline.check("1 byte/s readers", loaded)
    assert all(0 < got < size for got in result["bytes"]), result


def test_a_thousand_abandoned_long_polls(baseline: Baseline) -> None:
    m = baseline.client.m
    baseline.refresh()
    idle_pane = m.ctl("new-tab").json["paneID"]  # never gets an event: `idle` never comes
    cursor = events_request(m, None)["latestSequence"]
    shapes: list[dict[str, object]] = [
        {"type": "wait", "paneID": idle_pane, "until": "idle", "timeoutSeconds": 3600},
        {"type": "events", "afterSequence": cursor + 10**9, "timeoutSeconds": 600},
    ]
    before = m.open_fds()
    polls = []
    try:
        for i in range(ABANDONED):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(m.control_socket)
            s.sendall(json.dumps(shapes[i % 2]).encode() + b"\n")
            s.shutdown(socket.SHUT_WR)
            polls.append(s)
        wait_until(
            lambda: m.open_fds() >= before + ABANDONED,
            30,
            message="every long poll to be parked",
        )
        parked = baseline.client.measure()
        assert select.select(polls, [], [], 0)[0] == [], "a parked poll answered or was refused"
    finally:
        for s in polls:
            s.close()  # all abandoned at once
    releasing = baseline.client.measure()
    baseline.check(f"{ABANDONED} parked long polls", parked)
    baseline.check(f"{ABANDONED} long polls abandoned", releasing)
    wait_until(lambda: m.open_fds() <= before + 3, 20, message="their descriptors to be freed")
    counts.add("hostile: abandoned long polls", ABANDONED)


def test_the_controller_is_still_well(baseline: Baseline) -> None:
    m = baseline.client.m
    assert m.proc is not None and m.proc.poll() is None, m.log()[-3000:]
    log = m.log()
    assert "Traceback" not in log, log[log.index("Traceback") - 500 :][:3000]
    assert len(log) < 200_000, f"the log grew to {len(log)} bytes"
    assert os.path.exists(m.control_socket) and os.path.exists(m.event_socket)
