"""Starting workers' processes: the launch line with the memory cap, and a queued job's start.

A worker that starts at once (a spawn admission lets through, a resumed one) gets its pane with
its launch line; a queued one gets the placeholder (:mod:`mytty.core.admission.placeholder`)
and, once admitted, :meth:`WorkerStarter.start` replaces the pane's processes with its launch
(``respawn``, through :meth:`mytty.daemon.panes.service.PaneService.relaunch`). Either way the
launch line is built here, so the per-worker memory cap applies to both.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.jobs.launch import launch_command, with_path_first
from mytty.core.jobs.tracker import AgentJob
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.panes.service import PaneService
from mytty.daemon.resources.caps import MemoryCaps
from mytty.protocol import wire
from mytty.protocol.replies import MemoryCapEntry

log = logging.getLogger(__name__)


class WorkerStarter:
    def __init__(
        self,
        *,
        panes: PaneService,
        jobs: JobRegistry,
        caps: MemoryCaps,
        limit_mb: Callable[[], int | None],
        worker_environment: Callable[[], dict[str, str]],
    ) -> None:
        self._panes = panes
        self._jobs = jobs
        self._caps = caps
        self._limit_mb = limit_mb
        self._worker_environment = worker_environment

    async def launch(
        self, job_id: str, resumed: int, argv: Sequence[str]
    ) -> tuple[str, tuple[int, str] | None]:
        """The launch line of a worker (its argv under the memory cap when one is enforced),
        and that cap (MB, name)."""
        wrapped, cap = await self._caps.wrap(job_id, resumed, argv)
        return launch_command(wrapped), cap

    async def memory_cap_entry(self) -> MemoryCapEntry | None:
        """What a spawn reply says of ``[admission] worker_memory_max_mb`` (None: not set)."""
        limit = self._limit_mb()
        if limit is None:
            return None
        support = await self._caps.support()
        detail = support.detail if support.method else f"not enforced: {support.detail}"
        return wire.memory_cap(limit, support.method, detail)

    async def start(self, job: AgentJob) -> None:
        """Start a queued job's worker in its pane now (``launching`` from here)."""
        pane = self._panes.panes.by_surface.get(job.surface_id)
        if pane is None:
            raise MyttyError(ErrorCode.JOB_LOST, "its pane is gone")
        if job.launch is None:
            raise MyttyError(ErrorCode.SPAWN_FAILED, "the job has no launch to start")
        text, cap = await self.launch(job.job_id, job.launch.resumed, job.launch.argv)
        text = with_path_first(text, job.launch.path_first)  # the caller's binary dir, if any
        await self._panes.relaunch(pane, text, self._worker_environment())
        self._jobs.started(job.job_id, cap)

    async def give_up(self, job: AgentJob, message: str) -> None:
        """A queued job that will not start: its pane closed, the job ``lost`` with ``message``."""
        self._jobs.unqueued(job.job_id, message)
        pane = self._panes.panes.by_surface.get(job.surface_id)
        if pane is not None:
            try:
                await self._panes.close_pane(pane)
            except MyttyError as exc:
                log.debug("could not close the pane of job %s: %s", job.job_id, exc)
