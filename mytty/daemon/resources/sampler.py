"""What each job's processes use (``rssBytes``, ``cpuPercent``), sampled only when needed.

A sample is one pass over ``/proc`` (:func:`mytty.daemon.procfs.process_table`: one ``stat``
read per process, about 5 µs each) from which every job's tree is taken: the process of its
pane (the shell) and everything below it. psutil reads two files per process and finds
children by a scan of its own per process, which measured about 35 times slower for 50 panes,
so the tree comes from the controller's one ``/proc`` reader; psutil gives the machine's
memory (:mod:`mytty.daemon.resources.memory`).

When it samples:

- at most once a second, whoever asks;
- while someone reads: a reply that carries the figures (``agent list``, ``agent result``,
  ``mytty ls``) asks for a fresh sample and keeps the sampler running once a second for
  :data:`LINGER_S` more (CPU is a rolling percentage, so it needs samples a second apart: the
  first read after a quiet spell has ``cpuPercent`` null);
- while a limit needs it: admission asks while workers start under a memory limit (what they
  still take) and while jobs wait for memory;
- never otherwise: with nobody reading and no limit waiting it costs nothing at all.

Figures older than :data:`FRESH_S` are not shown (a job's snapshot then has neither key).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mytty.core.events import WorkerProvider
from mytty.core.resources.tree import ROLLING_WINDOW_S, ProcessSample, TreeSample, rolling_cpu
from mytty.daemon import procfs
from mytty.protocol.replies import ResourcePart

log = logging.getLogger(__name__)

#: Samples are at least this far apart (seconds).
MIN_INTERVAL_S = 1.0
#: A read keeps the sampler running this long.
LINGER_S = 30.0
#: Figures older than this are not shown.
FRESH_S = 5.0
MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Target:
    """One job to sample: its pane's process, its provider, and whether it runs already
    (a running worker's size teaches what a starting one will take)."""

    pid: int
    provider: WorkerProvider
    settled: bool


@dataclass(frozen=True, slots=True)
class JobResources:
    rss_bytes: int
    cpu_percent: float | None


class ResourceSampler:
    def __init__(
        self,
        *,
        targets: Callable[[], Mapping[str, Target]],
        monotonic: Callable[[], float] = time.monotonic,
        table: Callable[[], Mapping[int, procfs.ProcStat]] = procfs.process_table,
        on_sample: Callable[[], None] = lambda: None,
    ) -> None:
        self._targets = targets
        self._monotonic = monotonic
        self._table = table
        #: Told after every sample (the tmux publisher shows the figures).
        self.on_sample = on_sample
        self._samples: dict[str, deque[TreeSample]] = {}
        self._last: float | None = None
        self._wanted_until = 0.0
        self._needed = False
        self._wake = asyncio.Event()
        #: The largest tree a running worker of each provider had (bytes).
        self._peak: dict[WorkerProvider, int] = {}
        self.samples_taken = 0

    # -- what others read -------------------------------------------------------------------------
    def of(self, job_id: str) -> JobResources | None:
        """The job's latest figures, if they are fresh."""
        samples = self._samples.get(job_id)
        if not samples or self._monotonic() - samples[-1].at > FRESH_S:
            return None
        return JobResources(
            samples[-1].rss_bytes, rolling_cpu(samples, float(procfs.TICKS_PER_SECOND))
        )

    def part(self, job_id: str) -> ResourcePart:
        """The job's ``rssBytes``/``cpuPercent`` for its snapshot ({} when not fresh)."""
        figures = self.of(job_id)
        if figures is None:
            return {}
        return {"rssBytes": figures.rss_bytes, "cpuPercent": figures.cpu_percent}

    def rss_mb(self, job_id: str) -> float:
        samples = self._samples.get(job_id)
        return samples[-1].rss_bytes / MB if samples else 0.0

    def peak_mb(self) -> dict[WorkerProvider, float]:
        """What a running worker of each provider was seen to take at most (MB)."""
        return {provider: size / MB for provider, size in self._peak.items()}

    # -- when to sample ---------------------------------------------------------------------------
    def touch(self) -> None:
        """Someone reads the figures: keep sampling once a second for a while."""
        self._wanted_until = self._monotonic() + LINGER_S
        self._wake.set()

    def need(self, needed: bool) -> None:
        """A limit needs fresh figures (admission), or no longer does."""
        if needed and not self._needed:
            self._wake.set()
        self._needed = needed

    def wanted(self) -> bool:
        return self._needed or self._monotonic() < self._wanted_until

    def due(self) -> bool:
        return self._last is None or self._monotonic() - self._last >= MIN_INTERVAL_S

    # -- sampling ---------------------------------------------------------------------------------
    def sample_now(self) -> None:
        """Sample now unless the last sample is less than a second old (on the loop: one pass
        over /proc, under a millisecond for a few hundred processes)."""
        if self.due():
            self._apply(self._targets(), self._monotonic(), self._table())

    async def refresh(self) -> None:
        """A reader's fresh figures: sample (in a thread) unless the last sample is recent."""
        self.touch()
        if not self.due():
            return
        targets = self._targets()
        table = await asyncio.to_thread(self._table)
        if self.due():  # another reader may have sampled meanwhile
            self._apply(targets, self._monotonic(), table)

    def _apply(
        self, targets: Mapping[str, Target], at: float, table: Mapping[int, procfs.ProcStat]
    ) -> None:
        kids: dict[int, list[int]] = {}
        for stat in table.values():
            kids.setdefault(stat.ppid, []).append(stat.pid)
        for job_id, target in targets.items():
            if target.pid <= 0 or target.pid not in table:
                continue
            procs = tuple(
                ProcessSample(
                    pid,
                    table[pid].start_ticks,
                    table[pid].cpu_ticks,
                    table[pid].rss_pages * procfs.PAGE_SIZE,
                )
                for pid in procfs.tree_of(target.pid, kids)
                if pid in table
            )
            sample = TreeSample(at, procs)
            history = self._samples.setdefault(job_id, deque())
            history.append(sample)
            while len(history) > 2 and at - history[1].at > ROLLING_WINDOW_S:
                history.popleft()
            if target.settled:
                size = sample.rss_bytes
                if size > self._peak.get(target.provider, 0):
                    self._peak[target.provider] = size
        for job_id in self._samples.keys() - targets.keys():
            del self._samples[job_id]
        self._last = at
        self.samples_taken += 1
        self.on_sample()

    async def run(self) -> None:
        """Sample once a second while wanted; sleep (no timer at all) otherwise."""
        while True:
            if not self.wanted():
                self._wake.clear()
                if not self.wanted():
                    await self._wake.wait()
                continue
            try:
                await self.refresh_quietly()
            except Exception:  # never let one bad read stop the sampling
                log.exception("sampling the workers' processes failed")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(MIN_INTERVAL_S):
                    self._wake.clear()
                    await self._wake.wait()

    async def refresh_quietly(self) -> None:
        """A sample for the sampler's own loop (not a read: it does not extend the linger)."""
        if not self.due():
            return
        targets = self._targets()
        table = await asyncio.to_thread(self._table)
        if self.due():
            self._apply(targets, self._monotonic(), table)
