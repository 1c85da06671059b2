"""``spawnAgent``: start a worker agent in a new pane and return its job.

Checks run in a fixed order so the first problem is the one reported: anchor, task, label,
model, integration, the provider's binary on PATH, cwd, worktree, access. The worker is started
without typing anything: its argv goes into a private launch file that the pane's shell runs
once it is fully started, so the task arrives byte for byte and never lands in shell history.
"""

from __future__ import annotations

import os
import time
from typing import Protocol

from mytty.control.base import Params
from mytty.control.ports import (
    AgentChecks,
    JobStore,
    PaneDirectory,
    PaneFactory,
    PaneView,
    RunWaiter,
)
from mytty.control.split import place_worker_from
from mytty.core import jobs as core_jobs
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, SurfaceId, format_uuid_bytes
from mytty.core.launch import build_launch_argv, launch_command
from mytty.core.layout import WORKERS_WINDOW
from mytty.core.validation import (
    validate_label,
    validate_model,
    validate_task,
    validate_worktree_branch,
)
from mytty.protocol import wire
from mytty.protocol.replies import AgentJobReply

TYPE = "spawnAgent"
ERRORS = frozenset(
    {
        ErrorCode.PANE_NOT_FOUND,
        ErrorCode.INVALID_TASK,
        ErrorCode.INVALID_LABEL,
        ErrorCode.INVALID_MODEL,
        ErrorCode.INVALID_CWD,
        ErrorCode.INVALID_WORKTREE_BRANCH,
        ErrorCode.NOT_A_GIT_REPOSITORY,
        ErrorCode.WORKTREE_CREATE_FAILED,
        ErrorCode.INHERIT_UNAVAILABLE,
        ErrorCode.PROVIDER_INTEGRATION_NEEDS_REPAIR,
        ErrorCode.PROVIDER_BINARY_NOT_FOUND,
        ErrorCode.SPAWN_FAILED,
        ErrorCode.TMUX_UNAVAILABLE,
        ErrorCode.INVALID_REQUEST,
    }
)
DIRECTIONS = ("left", "right", "up", "down", "auto")


def _check(problem: str | None, code: ErrorCode) -> None:
    if problem is not None:
        raise MyttyError(code, problem)


def _anchor_directory(anchor: PaneView) -> str | None:
    """The anchor pane's working directory.

    tmux knows none for a pane whose shell is still starting (its pty has no session yet), so
    then the pane's own process is asked.
    """
    if anchor.row is not None and anchor.row.current_path:
        return str(anchor.row.current_path)
    if anchor.pid > 0:
        try:
            return os.readlink(f"/proc/{anchor.pid}/cwd")
        except OSError:
            return None
    return None


class SpawnContext(PaneDirectory, PaneFactory, RunWaiter, JobStore, AgentChecks, Protocol):
    """What ``agent_spawn`` uses of the controller."""


async def handle(ctx: SpawnContext, params: Params) -> AgentJobReply:
    try:
        provider = WorkerProvider(params.str("provider"))
    except ValueError:
        raise MyttyError(
            ErrorCode.INVALID_REQUEST, "provider must be codex, claude or cursor"
        ) from None
    direction = params.opt_str("direction") or "auto"
    if direction not in DIRECTIONS:
        raise MyttyError(
            ErrorCode.INVALID_REQUEST, f"direction must be one of {', '.join(DIRECTIONS)}"
        )
    access = params.opt_str("access")
    if access not in (None, "inherit", "review", "workspace-write"):
        raise MyttyError(
            ErrorCode.INVALID_REQUEST, "access must be inherit, review or workspace-write"
        )

    anchor_id = params.opt_str("anchorPaneID")
    anchor = ctx.require_pane(anchor_id) if anchor_id else None
    task = params.str("task")
    _check(validate_task(task), ErrorCode.INVALID_TASK)
    label = params.opt_str("label")
    if label is not None:
        _check(validate_label(label), ErrorCode.INVALID_LABEL)
    model = params.opt_str("model")
    if model is not None:
        _check(validate_model(model), ErrorCode.INVALID_MODEL)
    await ctx.spawn_preflight(provider)
    ctx.binary_preflight(provider, anchor, params.peer_pid)

    cwd = params.opt_str("cwd")
    if cwd is not None:
        if not os.path.isabs(cwd) or not os.path.isdir(cwd):
            raise MyttyError(
                ErrorCode.INVALID_CWD, f"--cwd {cwd!r} is not an existing absolute directory"
            )
    else:
        if anchor is not None:
            # tmux sends no notification when a shell changes directory: look again now.
            await ctx.refresh_panes()
            anchor = ctx.require_pane(anchor.surface_id)
        anchor_dir = _anchor_directory(anchor) if anchor is not None else None
        if anchor_dir:
            cwd = anchor_dir
        else:
            caller_cwd = params.opt_str("callerWorkingDirectory")
            cwd = (
                caller_cwd if caller_cwd and os.path.isdir(caller_cwd) else os.path.expanduser("~")
            )

    branch = params.opt_str("worktreeBranch")
    if branch is not None:
        _check(validate_worktree_branch(branch), ErrorCode.INVALID_WORKTREE_BRANCH)
        cwd = await ctx.resolve_worktree(cwd, branch)

    mode_flags = await ctx.access_mode_flags(provider, access, anchor)
    argv = build_launch_argv(provider, model=model, mode_flags=mode_flags, task=task)
    launch_text = launch_command(argv)

    note: str | None = None  # where the worker went, when not next to the lead
    try:
        if anchor is not None:
            await ctx.refresh_panes()
            anchor = ctx.require_pane(anchor.surface_id)
            if direction == "auto":
                placement = place_worker_from(ctx, anchor)
                if placement.split is not None and placement.direction is not None:
                    pane = await ctx.create_pane(
                        split_from=ctx.panes.by_surface[SurfaceId(placement.split)],
                        direction=placement.direction,
                        cwd=cwd,
                        command=launch_text,
                    )
                else:
                    pane = await ctx.create_pane(
                        after_window=placement.after,
                        window_name=WORKERS_WINDOW,
                        cwd=cwd,
                        command=launch_text,
                    )
                if not placement.next_to_lead:
                    note = f"in window {WORKERS_WINDOW!r}: {placement.reason}"
            else:
                pane = await ctx.create_pane(
                    split_from=anchor, direction=direction, cwd=cwd, command=launch_text
                )
        else:
            session = await ctx.ensure_user_session()
            pane = await ctx.create_pane(session=session, cwd=cwd, command=launch_text)
    except MyttyError as exc:
        if exc.code is ErrorCode.TMUX_UNAVAILABLE:
            raise
        raise MyttyError(
            ErrorCode.SPAWN_FAILED, f"could not create the worker pane: {exc.message}"
        ) from None

    baseline = [r.id for r in ctx.hub.book.runs_for(pane.surface_id, provider.agent_provider)]
    job = core_jobs.new_job(
        JobId(format_uuid_bytes(os.urandom(16))),
        pane.surface_id,
        provider,
        label,
        baseline,
        time.time(),
    )
    ctx.jobs.add(job)
    return wire.agent_job_reply(ctx.jobs.snapshot(job), placement=note)
