"""The per-worker memory cap in use: probed once, applied to each launch, checked at its end.

See :mod:`mytty.daemon.resources.memcap` for the two ways a cap is enforced. The probe runs
once, the first time a cap is configured (one ``systemd-run``, in a thread); a launch then gets
its argv wrapped and the job remembers the cap (MB and name). When a capped worker's command
ends in its pane (the shell integration reports it), :meth:`MemoryCaps.killed` asks whether
the kernel killed it for the cap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from mytty.core.ids import SurfaceId
from mytty.core.jobs.tracker import AgentJob
from mytty.core.shell.events import ShellEvent
from mytty.daemon.resources import memcap
from mytty.daemon.resources.memcap import CapSupport

log = logging.getLogger(__name__)


class MemoryCaps:
    def __init__(
        self,
        *,
        limit_mb: Callable[[], int | None],
        probe: Callable[[], CapSupport] = memcap.probe,
        run: memcap.Runner = memcap._run,
    ) -> None:
        self._limit_mb = limit_mb
        self._probe = probe
        self._run = run
        self._support: CapSupport | None = None
        self._lock = asyncio.Lock()

    async def support(self) -> CapSupport:
        """How caps are enforced here (probed on first use)."""
        if self._support is None:
            async with self._lock:
                if self._support is None:
                    self._support = await asyncio.to_thread(self._probe)
                    log.info("worker memory caps: %s", self._support.detail)
        return self._support

    def known_support(self) -> CapSupport | None:
        return self._support

    async def wrap(
        self, job_id: str, resumed: int, argv: Sequence[str]
    ) -> tuple[list[str], tuple[int, str] | None]:
        """``argv`` under the configured cap, and the cap (MB, name) when it is enforced."""
        limit = self._limit_mb()
        if limit is None:
            return list(argv), None
        support = await self.support()
        name = memcap.cap_name(job_id, resumed)
        if support.method == memcap.SYSTEMD:
            return memcap.wrap_systemd(argv, name, limit), (limit, name)
        if support.method == memcap.CGROUP and support.base is not None:
            try:
                directory = await asyncio.to_thread(memcap.make_cgroup, support.base, name, limit)
            except OSError as exc:
                log.warning("job %s runs without its memory cap: %s", job_id, exc)
                return list(argv), None
            return memcap.wrap_cgroup(argv, directory), (limit, directory)
        return list(argv), None

    async def killed(self, cap: str) -> bool:
        """Did the kernel kill the worker under the cap ``cap`` (a unit or cgroup) for it?"""
        support = await self.support()
        if support.method == memcap.SYSTEMD:
            return await asyncio.to_thread(memcap.oom_killed_systemd, cap, self._run)
        if support.method == memcap.CGROUP:
            killed = await asyncio.to_thread(memcap.oom_killed_cgroup, cap)
            await asyncio.to_thread(memcap.remove_cgroup, cap)
            return killed
        return False


class MemoryCapWatch:
    """Turns "a capped worker's command ended" into ``failed``/``memory-limit`` when the
    kernel killed it for its cap (a shell-integration listener)."""

    def __init__(
        self,
        *,
        caps: MemoryCaps,
        newest_job: Callable[[SurfaceId], AgentJob | None],
        ended_by_memory_limit: Callable[[str], object],
    ) -> None:
        self._caps = caps
        self._newest_job = newest_job
        self._ended = ended_by_memory_limit
        self._checks: set[asyncio.Future[None]] = set()

    def on_shell_event(self, surface_id: str, event: ShellEvent) -> None:
        """A line of the pane's shell integration: a command finished (the worker ended)."""
        if not event.finished:
            return
        job = self._newest_job(SurfaceId(surface_id))
        if job is None or job.memory_cap is None or job.end_reason is not None:
            return
        task = asyncio.ensure_future(self._check(job.job_id, job.memory_cap))
        self._checks.add(task)
        task.add_done_callback(self._checks.discard)

    async def _check(self, job_id: str, cap: str) -> None:
        try:
            if await self._caps.killed(cap):
                self._ended(job_id)
        except Exception:  # a check that failed says nothing either way
            log.exception("could not check job %s's memory cap", job_id)

    async def flush(self) -> None:
        """Wait for the checks under way (tests, shutdown)."""
        if self._checks:
            await asyncio.gather(*self._checks, return_exceptions=True)
