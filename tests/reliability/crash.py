"""``kill -9`` rounds under steady hook load, and what must hold afterwards (issue 15).

Shared by tests/reliability/test_crash_durability.py (a few rounds in CI) and
``scripts/bench/crash`` (20 or more). A :class:`HookLoad` plays hook-shaped runs on a few
panes from threads, one event per fresh connection like ``mytty-agent-hook``, and records every
reply. :func:`crash_rounds` kills the controller with SIGKILL whenever enough events were
acknowledged since the last start, sometimes kills a starting controller as well (at points
read from its log), and restarts it, timing each restart from exec to ready. :func:`verify`
then checks, against the store read from the outside:

* every event answered ``inserted: true`` is stored exactly once (nothing lost, nothing twice);
* every stored run ended: the load's own terminal event or the startup sweep's synthesized
  ``disconnected``, so every run a kill interrupted was closed;
* a retry of every acknowledged event answers ``inserted: false``; a retry of every event that
  got no answer is answered, and the store still holds each id once.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mytty.core.events import AgentEventKind
from mytty.daemon.events.ingest import scoped_event_id
from mytty.protocol.envelope import encode_envelope
from tests.e2e.events_support import (
    DUPLICATE,
    INSERTED,
    AgentPane,
    kill9_and_settle,
    make_event,
    new_id,
    send_bytes,
    settle_after_kill,
    stored_events,
)
from tests.support.harness import MYTTY, Mytty, wait_until

K = AgentEventKind
RUN_SHAPE = (K.STARTED, K.RUNNING, K.RUNNING, K.RUNNING, K.SUCCEEDED)
TERMINAL = {K.SUCCEEDED.value, K.FAILED.value, K.DISCONNECTED.value}
SWEEP_HOOK = "mytty.startupSweep"
#: Where a starting controller is killed: right after exec, or once its log shows it got that
#: far (the store read, tmux connected, a pane adopted).
STARTUP_KILL_POINTS = (None, "restored ", "tmux command dispatched", "adopted pane")


@dataclass
class Delivery:
    #: The id the controller stores the event under (the hook's id scoped to pane and provider).
    event_id: str
    run_id: str
    kind: str
    envelope: bytes
    reply: str  # "inserted", "duplicate", or "failed: <why>"


@dataclass
class HookLoad:
    """Hook-shaped runs on each pane, one thread per pane, until stopped."""

    m: Mytty
    panes: list[AgentPane]
    #: Between two deliveries of one thread: a steady load, not a flood.
    pace_s: float = 0.003
    #: After a failed delivery (the controller is down): no point hammering a closed socket.
    backoff_s: float = 0.05
    deliveries: list[Delivery] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        for pane in self.panes:
            t = threading.Thread(target=self._play, args=(pane,), daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(30)

    def acked(self) -> int:
        with self._lock:
            return sum(1 for d in self.deliveries if d.reply == "inserted")

    def _play(self, pane: AgentPane) -> None:
        step = 0
        run = new_id()
        pause = self.pace_s
        while not self._stop.wait(pause):
            kind = RUN_SHAPE[step % len(RUN_SHAPE)]
            if kind is K.STARTED:
                run = new_id()
            event = make_event(pane.pane_id, kind, run_id=run)
            envelope = encode_envelope(event, pane.capability)
            reply = deliver(self.m, envelope)
            with self._lock:
                stored_as = scoped_event_id(event)
                self.deliveries.append(Delivery(stored_as, run, kind.value, envelope, reply))
            if reply == "inserted":
                step += 1
                pause = self.pace_s
            else:  # the controller is down: like a hook whose delivery failed, move on
                step = 0
                pause = self.backoff_s


def deliver(m: Mytty, envelope: bytes) -> str:
    try:
        reply = send_bytes(m, envelope)
    except (OSError, AssertionError, ValueError) as exc:
        return f"failed: {type(exc).__name__}"
    if reply == INSERTED:
        return "inserted"
    if reply == DUPLICATE:
        return "duplicate"
    return f"failed: {reply}"


@dataclass
class Rounds:
    kills: int = 0
    startup_kills: int = 0
    restart_s: list[float] = field(default_factory=list)

    def restart_p95(self) -> float:
        ordered = sorted(self.restart_s)
        return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]

    def summary(self) -> dict[str, Any]:
        return {
            "kills": self.kills,
            "startupKills": self.startup_kills,
            "restartMedianS": statistics.median(self.restart_s),
            "restartP95S": self.restart_p95(),
        }


def timed_start(m: Mytty, rounds: Rounds) -> None:
    t0 = time.perf_counter()
    m.start(timeout=60)
    rounds.restart_s.append(time.perf_counter() - t0)


def kill_while_starting(m: Mytty, point: str | None) -> None:
    """Start ``mytty serve`` and SIGKILL it at ``point`` (a log marker; None: at once)."""
    offset = len(m.log())
    with open(m.root / "controller.log", "ab") as log:
        proc = subprocess.Popen(
            [MYTTY, "serve", "--tmux-socket", m.socket, "-v"],
            env=m.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=str(m.home),
        )
    try:
        if point is not None:
            wait_until(
                lambda: point in m.log()[offset:] or proc.poll() is not None,
                30,
                interval=0.002,
                message=f"the starting controller to log {point!r}",
            )
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    settle_after_kill(m)  # as after any kill -9: let tmux notice before the next start


def crash_rounds(
    m: Mytty, load: HookLoad, rounds: int, acks_per_round: int, startup_kill_every: int
) -> Rounds:
    """``rounds`` times: let ``acks_per_round`` events be acknowledged, kill -9, restart."""
    done = Rounds()
    for i in range(rounds):
        target = load.acked() + acks_per_round
        wait_until(
            lambda target=target: load.acked() >= target,  # type: ignore[misc]
            60,
            interval=0.01,
            message=f"{acks_per_round} acknowledged events in round {i + 1}",
        )
        kill9_and_settle(m)
        done.kills += 1
        if startup_kill_every and i % startup_kill_every == 0:
            point = STARTUP_KILL_POINTS[(i // startup_kill_every) % len(STARTUP_KILL_POINTS)]
            kill_while_starting(m, point)
            done.startup_kills += 1
        timed_start(m, done)
    return done


@dataclass
class Verdict:
    acked: int
    stored: int
    runs: int
    swept_runs: int
    retried_acked: int
    retried_unanswered: int

    def summary(self) -> dict[str, int]:
        return {
            "acknowledged": self.acked,
            "stored": self.stored,
            "runs": self.runs,
            "sweptRuns": self.swept_runs,
            "retriedAcknowledged": self.retried_acked,
            "retriedUnanswered": self.retried_unanswered,
        }


def verify(m: Mytty, load: HookLoad, rounds: Rounds) -> Verdict:
    """The load is stopped; kill -9 once more (so the sweep closes what is open) and check."""
    kill9_and_settle(m)
    rounds.kills += 1
    timed_start(m, rounds)
    acked = [d for d in load.deliveries if d.reply == "inserted"]
    odd = [d for d in load.deliveries if d.reply == "duplicate"]
    assert not odd, f"fresh events answered as duplicates: {odd[:3]}"

    def ids() -> Counter[str]:
        return Counter(row["id"]["rawValue"] for row in stored_events(m))

    stored = ids()
    lost = [d.event_id for d in acked if stored[d.event_id] == 0]
    assert not lost, f"{len(lost)} acknowledged events are not stored: {lost[:5]}"
    twice = [i for i, n in stored.items() if n > 1]
    assert not twice, f"{len(twice)} events are stored more than once: {twice[:5]}"

    rows = stored_events(m)
    kinds: dict[str, list[str]] = {}
    sweeps: set[str] = set()
    for row in rows:
        run = row["runID"]["rawValue"]
        kinds.setdefault(run, []).append(row["kind"])
        if row.get("hookName") == SWEEP_HOOK:
            assert row["kind"] == K.DISCONNECTED.value, row
            sweeps.add(run)
    unended = [run for run, seen in kinds.items() if not TERMINAL & set(seen)]
    assert not unended, f"{len(unended)} runs were never closed: {unended[:5]}"
    # The load finishes the runs it was not interrupted in; every other one is the sweep's.
    interrupted = {run for run, seen in kinds.items() if K.SUCCEEDED.value not in seen}
    assert interrupted <= sweeps, f"interrupted runs the sweep missed: {interrupted - sweeps}"
    assert len(sweeps) >= rounds.kills, (len(sweeps), rounds.kills)

    for d in acked:
        reply = send_bytes(m, d.envelope)
        assert reply == DUPLICATE, f"the retry of acknowledged {d.event_id} got {reply}"
    unanswered = [d for d in load.deliveries if d.reply.startswith("failed")]
    for d in unanswered:
        reply = send_bytes(m, d.envelope)
        assert reply in (INSERTED, DUPLICATE), f"the retry of {d.event_id} got {reply}"
    after = ids()
    twice = [i for i, n in after.items() if n > 1]
    assert not twice, f"retries stored {len(twice)} events twice: {twice[:5]}"
    assert all(after[d.event_id] == 1 for d in unanswered), "a retried event is not stored"
    return Verdict(
        acked=len(acked),
        stored=sum(after.values()),
        runs=len(kinds),
        swept_runs=len(sweeps),
        retried_acked=len(acked),
        retried_unanswered=len(unanswered),
    )
