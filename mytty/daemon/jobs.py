"""The in-memory job registry: spawned worker jobs, reconciled against live run state.

Jobs are not persisted (as in the original): a controller restart forgets them and their ids
answer ``job-not-found``; the panes and agents themselves are untouched.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mytty.core import jobs as core_jobs
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.ids import SurfaceId
from mytty.core.jobs import AgentJob
from mytty.core.runs import AgentRun
from mytty.protocol import wire
from mytty.protocol.replies import JobSnapshot


class JobRegistry:
    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx
        self._jobs: dict[str, AgentJob] = {}

    def _runs(self, job: AgentJob) -> list[AgentRun]:
        runs: list[AgentRun] = self._ctx.hub.book.runs_for(
            job.surface_id, job.provider.agent_provider
        )
        return runs

    def add(self, job: AgentJob) -> None:
        self._jobs[job.job_id] = job
        self._arm_deadline(job)

    def _arm_deadline(self, job: AgentJob) -> None:
        # launch-failed needs no event to happen: wake the waiters when the window closes.
        loop = asyncio.get_running_loop()
        delay = max(0.0, job.deadline - time.time()) + 0.01
        loop.call_later(delay, self._ctx.hub.bump)

    def current(self, job_id: str) -> AgentJob:
        """The job reconciled against the current runs (``job-not-found`` when unknown)."""
        job = self._jobs.get(job_id)
        if job is None:
            raise MyttyError(
                ErrorCode.JOB_NOT_FOUND,
                f"no job {job_id!r} (jobs live in memory: a controller restart forgets them)",
            )
        exists = job.surface_id in self._ctx.panes.by_surface
        updated = core_jobs.reconcile(job, self._runs(job), exists, time.time())
        self._jobs[job_id] = updated
        return updated

    def re_arm(self, job_id: str) -> AgentJob:
        job = self.current(job_id)
        run_ids = [r.id for r in self._runs(job)]
        updated = core_jobs.prepare_for_follow_up(job, run_ids, time.time())
        if updated is not job:
            self._jobs[job_id] = updated
            self._arm_deadline(updated)
        return updated

    def label_for_pane(self, surface_id: SurfaceId) -> str | None:
        """The label of the newest job started in that pane (for attention items)."""
        for job in reversed(self._jobs.values()):
            if job.surface_id == surface_id:
                return job.label
        return None

    def snapshot(self, job: AgentJob) -> JobSnapshot:
        return wire.job_snapshot(job, self._ctx.hub.notes.get(job.surface_id))
