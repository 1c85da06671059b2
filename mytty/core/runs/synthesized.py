"""The events mytty writes itself to close runs nobody else will close (semantics §1.6, §1.7).

- ``mytty.runSuperseded``: a new Claude prompt closes the older active Claude runs of its pane
  with ``idle``;
- ``mytty.startupSweep``: runs left active by a previous controller whose agent is gone end
  ``disconnected``.

Both only compute events; the caller applies (and stores) them. Ids are deterministic, and ids
the book has already seen are left out, so computing them twice yields nothing new.
"""

from __future__ import annotations

from collections.abc import Callable

from mytty.core.events import SCHEMA_VERSION, AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import stable_uuid
from mytty.core.runs.book import RunBook
from mytty.core.runs.run import AgentRun, conflicts

#: hookName of the idle events that close a Claude run replaced by a newer prompt.
SUPERSEDED_HOOK_NAME = "mytty.runSuperseded"
#: hookName of the disconnected events that close runs left active by a previous controller.
STARTUP_SWEEP_HOOK_NAME = "mytty.startupSweep"


def superseded_events(book: RunBook, event: AgentEvent) -> list[AgentEvent]:
    """The idle events that close older active Claude runs when a new prompt starts (§1.6).

    Applies only to a ``started`` event from claude-code whose hookName is not ``mytty.``-prefixed.
    Every *other* active run of the same pane and provider gets one idle event, which the caller
    applies (and stores) before ``event`` itself. Claude can hold a run open after Stop while
    background agents finish; its next prompt has a new prompt id, so without this the old run
    would stay active forever.

    Returns nothing for an event the book would not apply to a run anyway (already seen, wrong
    schema version, conflicting with its run): a retried hook must not close runs started since.
    Closing events whose id was already seen are left out too; applying them would be a no-op.
    """
    if event.kind != AgentEventKind.STARTED or event.provider != AgentProvider.CLAUDE_CODE:
        return []
    if event.synthesized or not _would_reach_run(book, event):
        return []
    closing: list[AgentEvent] = []
    for old in book.runs_for(event.surface_id, event.provider):
        # Cheap checks first: a pane collects many finished runs, and hashing an id for each
        # of them on every prompt dominated ingest time.
        if old.id == event.run_id or not old.is_active:
            continue
        event_id = stable_uuid("event", "superseded", old.id, event.run_id)
        if not book.seen(event_id):
            closing.append(
                _closing(
                    old, event_id, AgentEventKind.IDLE, event.occurred_at, SUPERSEDED_HOOK_NAME
                )
            )
    return closing


def startup_sweep_events(
    book: RunBook, now: float, is_dead: Callable[[AgentRun], bool]
) -> list[AgentEvent]:
    """``disconnected`` events for active runs whose agent is gone (§1.7 step 3).

    The daemon decides deadness (pane gone, or pane back at its shell); unknown and idle runs are
    never swept. Ids are deterministic per run, and ids the book has already seen are skipped, so
    applying the result and sweeping again yields nothing.
    """
    sweep: list[AgentEvent] = []
    for run in book.all_runs():
        if not run.is_active:
            continue
        event_id = stable_uuid("event", "startup-sweep", run.id)
        if book.seen(event_id) or not is_dead(run):
            continue
        sweep.append(
            _closing(run, event_id, AgentEventKind.DISCONNECTED, now, STARTUP_SWEEP_HOOK_NAME)
        )
    return sweep


def _closing(
    run: AgentRun, event_id: str, kind: AgentEventKind, at: float, hook_name: str
) -> AgentEvent:
    """A synthesized event on ``run``: its pane, provider and session, no message."""
    return AgentEvent(
        id=event_id,
        run_id=run.id,
        surface_id=run.surface_id,
        provider=run.provider,
        kind=kind,
        occurred_at=at,
        session_id=run.session_id,
        hook_name=hook_name,
    )


def _would_reach_run(book: RunBook, event: AgentEvent) -> bool:
    if book.seen(event.id) or event.schema_version != SCHEMA_VERSION:
        return False
    run = book.get(event.run_id)
    return run is None or not conflicts(run, event)
