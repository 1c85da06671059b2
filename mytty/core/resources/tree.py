"""A job's processes as one sample: resident memory now, and CPU as a rolling percentage.

The controller reads each process of the tree under a job's pane (the pane's shell and the
agent below it) from ``/proc`` and hands the figures here. CPU is a percentage of one core,
as ``top`` shows it (a tree busy on two cores reads 200): the CPU time the tree's processes
spent between two samples, over the wall time between them. A process is known by its pid
and start time, so a recycled pid is a new process; one that started after the older sample
spent all its CPU time within the window; one that ended took its time with it (the
percentage reads a little low after a short-lived child, never high).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: The CPU percentage is taken over at most this many seconds of samples.
ROLLING_WINDOW_S = 5.0


@dataclass(frozen=True, slots=True)
class ProcessSample:
    pid: int
    #: Start time in clock ticks since boot: with the pid it names one process.
    start_ticks: int
    #: User plus system CPU time so far, in clock ticks.
    cpu_ticks: int
    rss_bytes: int


@dataclass(frozen=True, slots=True)
class TreeSample:
    """One look at a tree, taken at ``at`` (monotonic seconds)."""

    at: float
    processes: tuple[ProcessSample, ...]

    @property
    def rss_bytes(self) -> int:
        return sum(p.rss_bytes for p in self.processes)


def cpu_percent(older: TreeSample, newer: TreeSample, ticks_per_second: float) -> float | None:
    """Percent of one core the tree used between the two samples (None: no time between)."""
    elapsed = newer.at - older.at
    if elapsed <= 0 or ticks_per_second <= 0:
        return None
    before = {(p.pid, p.start_ticks): p.cpu_ticks for p in older.processes}
    spent = 0
    for p in newer.processes:
        previous = before.get((p.pid, p.start_ticks))
        # New since the older sample: all of its time is in the window.
        spent += p.cpu_ticks if previous is None else max(0, p.cpu_ticks - previous)
    return round(100.0 * spent / (elapsed * ticks_per_second), 1)


def rolling_cpu(samples: Iterable[TreeSample], ticks_per_second: float) -> float | None:
    """The CPU percentage over the samples (oldest first) of the last :data:`ROLLING_WINDOW_S`
    seconds before the newest; None with fewer than two."""
    ordered = list(samples)
    if len(ordered) < 2:
        return None
    newest = ordered[-1]
    window = [s for s in ordered[:-1] if newest.at - s.at <= ROLLING_WINDOW_S] or ordered[-2:-1]
    return cpu_percent(window[0], newest, ticks_per_second)
