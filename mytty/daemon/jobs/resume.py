"""``mytty resume``: restart the workers whose panes died with their tmux server, each on its
own conversation.

A job is resumed when its worker was cut off: the job is ``lost`` (its pane vanished before the
job finished: the tmux server was killed, or the machine rebooted), mytty knows its exact
conversation (``session_id``: chosen at spawn for Claude, learned from the worker's events for
Codex and Cursor), it recorded how the worker was started (:mod:`mytty.core.jobs.launch_record`) and that
directory still exists. A job closed with ``agent close`` is not resumed unless it is named.
Naming jobs limits the resumption to them; a named job that can't be resumed says why.

Each resumed worker gets a new window in the user's ``mytty`` session, in its own directory,
running :func:`mytty.core.jobs.launch.build_resume_argv`: the same binary, model and mode flags as its
launch, on ``--resume <its session id>`` (Codex ``resume <id>``), never ``--continue``. The job
keeps its id, moves to the new pane and follows that conversation's next run
(:meth:`mytty.daemon.jobs.registry.JobRegistry.resumed`); its launch record counts the resumption, and a
synthesized ``idle`` event (hookName ``mytty.resume``) puts it in the ``events`` ledger.

Resumption goes through admission (``[admission]``, :mod:`mytty.daemon.admission`): a
worker that can't start now (limits, memory, or the pacing of resumed starts: at most
``start_burst`` at a time, ``start_interval_seconds`` apart) gets its pane with the queued
placeholder and starts by itself later, in order; three failed starts in a row stop the rest
with an attention item (:mod:`mytty.core.admission.pacing`).

A dry run plans the same and changes nothing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from mytty.control.ports import AdmissionGate, AdmissionSlot
from mytty.core.admission.placeholder import queued_command
from mytty.core.admission.rules import waiting_message
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentEvent, AgentEventKind
from mytty.core.ids import RunId, SurfaceId, stable_uuid
from mytty.core.jobs.launch import RESUME_PROMPT, build_resume_argv, with_path_first
from mytty.core.jobs.tracker import AgentJob, AgentJobState, QueuedAs, is_terminal
from mytty.daemon.agents import AgentHub
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.panes.identity import Pane
from mytty.daemon.store import StoreError
from mytty.protocol import wire
from mytty.protocol.replies import ResumeEntry, ResumeReply

log = logging.getLogger(__name__)

#: The hookName of the event that records a resumption in the ``events`` ledger.
RESUME_HOOK = "mytty.resume"
#: The window a resumed worker opens in (in the user's ``mytty`` session).
RESUMED_WINDOW = "workers"


@dataclasses.dataclass(frozen=True, slots=True)
class ResumeStep:
    """One job in a resume plan: the argv it would restart with, or why it is left alone."""

    job: AgentJob
    argv: list[str] | None
    skipped: str | None = None


def plan(
    jobs: Sequence[AgentJob],
    named: Sequence[str] | None,
    *,
    dir_exists: Callable[[str], bool] = os.path.isdir,
) -> list[ResumeStep]:
    """What ``mytty resume`` would do with ``jobs`` (reconciled: a dead pane's job reads lost).

    ``named``: the job ids asked for (None: every lost job not closed on purpose). Pure apart
    from ``dir_exists``.
    """
    steps = []
    for job in jobs:
        named_here = named is not None and job.job_id in named
        if named is None and (job.state is not AgentJobState.LOST or _closed(job)):
            continue
        if named is not None and not named_here:
            continue
        reason = None
        if job.state is not AgentJobState.LOST:
            reason = (
                f"already {job.state.value}"
                if is_terminal(job.state)
                else f"still {job.state.value} in its pane"
            )
        steps.append(restart_step(job, RESUME_PROMPT, dir_exists=dir_exists, refused=reason))
    return steps


def restart_step(
    job: AgentJob,
    prompt: str,
    *,
    dir_exists: Callable[[str], bool] = os.path.isdir,
    refused: str | None = None,
) -> ResumeStep:
    """How ``job``'s worker restarts on its own conversation with ``prompt`` (``argv``), or why
    it cannot (``refused``, else no session id, no launch record, its directory gone)."""
    launch = job.launch
    reason = refused
    if reason is None and job.session_id is None:
        reason = "mytty never learned its conversation (no session id)"
    elif reason is None and launch is None:
        reason = "spawned before mytty recorded how workers start"
    elif reason is None and launch is not None and not dir_exists(launch.cwd):
        reason = f"its directory {launch.cwd} is gone"
    if reason is not None or launch is None or job.session_id is None:
        return ResumeStep(job, None, reason)
    argv = build_resume_argv(
        job.provider,
        model=launch.model,
        mode_flags=launch.mode_flags,
        session_id=job.session_id,
        prompt=prompt,
    )
    return ResumeStep(job, argv)


def _closed(job: AgentJob) -> bool:
    return job.launch is not None and job.launch.closed


class ResumeContext(Protocol):
    """What resuming uses of the controller."""

    @property
    def jobs(self) -> JobRegistry: ...
    @property
    def hub(self) -> AgentHub: ...
    @property
    def admission(self) -> AdmissionGate: ...
    async def ensure_user_session(self) -> str: ...
    async def create_pane(
        self,
        *,
        session: str | None = None,
        cwd: str | None,
        command: str | None,
        extra_env: dict[str, str] | None = None,
        window_name: str | None = None,
    ) -> Pane: ...
    async def close_pane(self, pane: Pane) -> None: ...
    def worker_environment(self) -> dict[str, str]: ...


class ResumeService:
    def __init__(self, ctx: ResumeContext, now: Callable[[], float]) -> None:
        self._ctx = ctx
        self._now = now
        #: One resumption at a time: a second `mytty resume` then finds the jobs launching.
        self._lock = asyncio.Lock()

    async def resume(self, named: Iterable[str] | None, *, dry_run: bool) -> ResumeReply:
        wanted = list(dict.fromkeys(named)) if named is not None else None
        async with self._lock:
            jobs = self._ctx.jobs
            if wanted is not None:
                current = [jobs.current(job_id) for job_id in wanted]  # job-not-found first
                current = list({j.job_id: j for j in current}.values())  # a prefix names one
                wanted = [j.job_id for j in current]
            else:
                current = [jobs.current(job_id) for job_id in jobs.ids()]
            steps = plan(current, wanted)
            if not dry_run and any(step.argv is not None for step in steps):
                self._ctx.admission.resumption_started()  # a stopped pacing goes again
            entries = []
            for step in steps:
                if step.argv is None or dry_run:
                    entries.append(_entry(step, None, resumed=False))
                    continue
                entries.append(await self._resume_one(step))
        return {"type": "resume", "dryRun": dry_run, "jobs": entries}

    async def restart(self, job_id: str, prompt: str) -> ResumeEntry:
        """Restart one job's worker on its own conversation with ``prompt``, whatever its state
        (a parked worker whose process is gone: daemon.limits); ``skipped`` says why not.

        Admission does not judge it: the parked job counted as a live worker all along (its
        restart replaces its own worker), its account is the one the limit was on, and the
        limits service paces its continuations itself (``[limits] stagger_seconds``)."""
        async with self._lock:
            step = restart_step(self._ctx.jobs.current(job_id), prompt)
            if step.argv is None:
                return _entry(step, None)
            return await self._resume_one(step, admit=False)

    async def _resume_one(self, step: ResumeStep, *, admit: bool = True) -> ResumeEntry:
        job, argv = step.job, step.argv
        assert argv is not None and job.launch is not None
        gate = self._ctx.admission
        slot = gate.claim(job.provider, job.lead, paced=True) if admit else None
        moved: AgentJob | None = None
        try:
            text, queued, cap = await self._launch_text(job, argv, slot)
            session = await self._ctx.ensure_user_session()
            try:
                pane = await self._ctx.create_pane(
                    session=session,
                    cwd=job.launch.cwd,
                    command=text,
                    # A resumed worker is still a worker: marked, and guarded (core.kill_guard).
                    extra_env=self._ctx.worker_environment(),
                    window_name=RESUMED_WINDOW,
                )
            except MyttyError as exc:
                if exc.code is ErrorCode.TMUX_UNAVAILABLE:
                    raise
                return _entry(dataclasses.replace(step, skipped=f"no pane: {exc.message}"), None)
            try:
                moved = await self._ctx.jobs.resumed(
                    job.job_id, pane.surface_id, argv, queued=queued, memory_cap=cap
                )
            except StoreError as exc:
                # No worker nobody can reach by its job: close the pane again.
                try:
                    await self._ctx.close_pane(pane)
                except MyttyError:
                    pass
                reason = f"could not store the job: {exc}; its new pane was closed"
                return _entry(dataclasses.replace(step, skipped=reason), None)
        finally:
            if slot is not None:
                gate.release(slot, moved)
        await self._record(moved, pane.surface_id)
        log.info(
            "resumed job %s in pane %s on session %s%s",
            job.job_id,
            pane.tmux_id,
            job.session_id,
            f" (queued: {moved.queued_because})" if queued is not None else "",
        )
        position = self._ctx.jobs.queue_position(moved)
        return _entry(
            dataclasses.replace(step, job=moved), pane.surface_id, resumed=True, position=position
        )

    async def _launch_text(
        self, job: AgentJob, argv: list[str], slot: AdmissionSlot | None
    ) -> tuple[str, QueuedAs | None, tuple[int, str] | None]:
        """What the resumed worker's pane runs: its launch (at once without a ``slot``), or
        the queued placeholder."""
        why = slot.waiting if slot is not None else None
        resumed = (job.launch.resumed if job.launch is not None else 0) + 1
        if slot is None or why is None:
            text, cap = await self._ctx.admission.worker_launch(job.job_id, resumed, argv)
            first = job.launch.path_first if job.launch is not None else None
            return with_path_first(text, first), None, cap
        position = self._ctx.admission.position_hint(slot)
        text = queued_command(job.job_id, position, why.reason.value, why.detail)
        return text, QueuedAs(why.reason.value, waiting_message(why), slot.ticket, paced=True), None

    async def _record(self, job: AgentJob, surface: SurfaceId) -> None:
        """The resumption as a synthesized ``idle`` event of the new pane (``events`` shows it)."""
        count = str(job.launch.resumed if job.launch is not None else 0)
        event = AgentEvent(
            id=stable_uuid("event", RESUME_HOOK, job.job_id, count),
            run_id=RunId(stable_uuid("run", RESUME_HOOK, job.job_id, count)),
            surface_id=surface,
            provider=job.provider.agent_provider,
            kind=AgentEventKind.IDLE,
            occurred_at=self._now(),
            session_id=job.session_id,
            message=f"resumed job {job.job_id} on its conversation {job.session_id}",
            hook_name=RESUME_HOOK,
        )
        try:
            await self._ctx.hub.ingest(event)
        except StoreError as exc:  # the job itself is stored; only its ledger line is missing
            log.error("could not record the resumption of job %s: %s", job.job_id, exc)


def _entry(
    step: ResumeStep,
    pane: SurfaceId | None,
    *,
    resumed: bool = False,
    position: int | None = None,
) -> ResumeEntry:
    job = step.job
    launch = job.launch
    entry: ResumeEntry = {
        "jobID": wire.raw_value(job.job_id),
        "provider": job.provider.value,
        "state": job.state.value,
        "sessionID": job.session_id,
        "cwd": launch.cwd if launch is not None else None,
        "argv": step.argv,
        "resumed": resumed,
    }
    if job.label is not None:
        entry["label"] = job.label
    if pane is not None:
        entry["paneID"] = wire.raw_value(pane)
    if step.skipped is not None:
        entry["skipped"] = step.skipped
    if position is not None and job.queued_because is not None:
        entry["queuePosition"] = position
        entry["queuedBecause"] = job.queued_because
    return entry
