"""Subagents: the turn that starts one stays open until it ends, and its events fold into it.

Claude Code: ``SubagentStart``/``SubagentStop`` carry the subagent's ``agent_id`` in
``toolUseID``. A Stop while a subagent is live does not finish the run; Claude later sends a
synthetic ``<task-notification>`` prompt (a ``running`` ``UserPromptSubmit`` naming the
``agent_id``) that continues the turn, so its run is folded into the turn that started the
subagent instead of opening (and superseding) a run of its own.

Codex: every event of a subagent's thread, and the ``spawn_agent`` call that started it, has
``toolUseID`` :data:`CODEX_SUBAGENT_PREFIX` + ``agent_id``. Such an event is never a run of its
own: it folds into the turn whose ``spawn_agent`` named the subagent (refused when no turn
did). The parent's Stop usually comes while the subagent works, and Codex owes no later turn,
so the parent ends at the SubagentStop of its last live subagent.

Pure functions over :class:`~mytty.core.runs.run.AgentRun`; the book calls them from
:meth:`~mytty.core.runs.book.RunBook.apply`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId
from mytty.core.runs.run import AgentRun, conflicts, updated_or_past

#: hookNames of the events that track a Claude run's subagents; their ``toolUseID`` carries the
#: subagent's ``agent_id`` (the hook adapter puts it there).
SUBAGENT_START_HOOK_NAME = "SubagentStart"
SUBAGENT_STOP_HOOK_NAME = "SubagentStop"
#: hookName of a prompt. A ``running`` (not ``started``) one is Claude's synthetic
#: ``<task-notification>`` prompt: it continues the turn that started the subagent whose
#: ``agent_id`` its ``toolUseID`` names, instead of opening (and superseding) a run of its own.
PROMPT_HOOK_NAME = "UserPromptSubmit"
#: Codex: the ``toolUseID`` of every event a subagent's thread fires, and of the ``spawn_agent``
#: call that started it, is this prefix plus the subagent's ``agent_id`` (mytty.hook.adapters.codex).
CODEX_SUBAGENT_PREFIX = "agent:"
CODEX_SPAWN_TOOL = "spawn_agent"
_TOOL_HOOK_NAME = "PostToolUse"

_K = AgentEventKind


def is_task_notification(event: AgentEvent) -> bool:
    """Claude's ``<task-notification>`` prompt, which continues the turn of the named subagent."""
    return (
        event.provider == AgentProvider.CLAUDE_CODE
        and event.kind == _K.RUNNING
        and event.hook_name == PROMPT_HOOK_NAME
        and event.tool_use_id is not None
    )


def is_codex_subagent_event(event: AgentEvent) -> bool:
    """An event of a Codex subagent's thread (or the spawn_agent call that started one)."""
    return (
        event.provider == AgentProvider.CODEX
        and event.tool_use_id is not None
        and event.tool_use_id.startswith(CODEX_SUBAGENT_PREFIX)
    )


def folds_into_another_run(event: AgentEvent) -> bool:
    """True for the events that may continue another run rather than be a run of their own."""
    return is_codex_subagent_event(event) or is_task_notification(event)


def root_turn(event: AgentEvent, pane_runs: Sequence[AgentRun]) -> RunId | None:
    """The run ``event`` (see :func:`folds_into_another_run`) is folded into, among the runs of
    its pane and provider: the one that started the named subagent; None when there is none."""
    if is_codex_subagent_event(event):
        return _codex_root_turn(event, pane_runs)
    for run in pane_runs:
        if event.tool_use_id in run.subagents and not conflicts(run, event):
            return run.id
    return None


def _codex_root_turn(event: AgentEvent, pane_runs: Sequence[AgentRun]) -> RunId | None:
    runs = [r for r in pane_runs if not conflicts(r, event)]
    for run in runs:
        if event.tool_use_id in run.subagents:
            return run.id
    if event.hook_name == SUBAGENT_START_HOOK_NAME and event.session_id is not None:
        # The subagent's thread can report its start before the parent's hook for the
        # spawn_agent call does (seen under load): the parent is the session's turn
        # that is running now (Codex runs one turn of a session at a time).
        active = [r for r in runs if r.is_active and r.session_id == event.session_id]
        if active:
            return max(active, key=updated_or_past).id
    return None


def track_subagents(run: AgentRun, event: AgentEvent, own_run_id: RunId) -> AgentRun:
    """``run`` after the subagent bookkeeping of ``event`` (SubagentStart/Stop, notification).

    ``own_run_id`` is the event's run id before it was folded into ``run``; a folded-in turn is
    remembered as a continuation so its later events land here too.
    """
    agent = event.tool_use_id
    if own_run_id != run.id and own_run_id not in run.continuations:
        run = replace(run, continuations=run.continuations | {own_run_id})
    if event.provider == AgentProvider.CODEX:
        return _track_codex_subagents(run, event)
    if agent is None or event.provider != AgentProvider.CLAUDE_CODE:
        return run
    if event.hook_name == SUBAGENT_START_HOOK_NAME and event.kind == _K.RUNNING:
        if not run.is_active or agent in run.subagents:
            return run
        return replace(
            run, subagents=run.subagents | {agent}, live_subagents=run.live_subagents | {agent}
        )
    ends = event.hook_name == SUBAGENT_STOP_HOOK_NAME or is_task_notification(event)
    if ends and agent in run.live_subagents:
        return replace(run, live_subagents=run.live_subagents - {agent})
    return run


def _track_codex_subagents(run: AgentRun, event: AgentEvent) -> AgentRun:
    """Codex: ``spawn_agent``'s result names a subagent of this turn; its SubagentStart makes
    it live (only then: an install without the subagent hooks must not wait for a stop it
    never reports; a start folded in before the spawn's result names it too), its
    SubagentStop ends it."""
    agent = event.tool_use_id
    if agent is None or not is_codex_subagent_event(event):
        return run
    if event.hook_name == _TOOL_HOOK_NAME and event.tool_name == CODEX_SPAWN_TOOL:
        return run if agent in run.subagents else replace(run, subagents=run.subagents | {agent})
    if event.hook_name == SUBAGENT_START_HOOK_NAME and run.is_active:
        return replace(
            run, subagents=run.subagents | {agent}, live_subagents=run.live_subagents | {agent}
        )
    if agent not in run.subagents:
        return run
    if event.hook_name == SUBAGENT_STOP_HOOK_NAME and agent in run.live_subagents:
        return replace(run, live_subagents=run.live_subagents - {agent})
    return run


def hold_open_for_subagents(
    run: AgentRun, event: AgentEvent
) -> tuple[AgentRun, AgentEventKind, str | None]:
    """The run, the event kind to apply and the message to keep, once live subagents count.

    A Stop (``succeeded``) while a subagent is live keeps the run running; for Codex it also
    records that the turn itself ended, with its answer. The SubagentStop of such a Codex
    turn's last live subagent then ends the run; until it does, a message-less event keeps
    saying how many subagents the turn waits for.
    """
    kind = event.kind
    message = event.message
    if kind == _K.SUCCEEDED and run.live_subagents:
        kind = _K.RUNNING
        if event.provider == AgentProvider.CODEX:
            # Kept though the state does not change: the answer is the turn's own, and
            # the run ends with it at the last SubagentStop (no later Stop comes).
            message = message or _waiting_for(len(run.live_subagents))
            answer = event.last_assistant_message or run.last_assistant_message
            run = replace(run, root_ended=True, message=message, last_assistant_message=answer)
    elif _ends_codex_turn_at_last_subagent(run, event):
        kind = _K.SUCCEEDED
    elif run.root_ended and run.live_subagents and message is None:
        message = _waiting_for(len(run.live_subagents))  # still waiting, maybe for fewer
        run = replace(run, message=message)
    return run, kind, message


def _waiting_for(count: int) -> str:
    return f"Waiting for {count} subagent" + ("" if count == 1 else "s")


def _ends_codex_turn_at_last_subagent(run: AgentRun, event: AgentEvent) -> bool:
    """The SubagentStop of a Codex turn's last live subagent, after the turn's own Stop."""
    return (
        event.provider == AgentProvider.CODEX
        and event.hook_name == SUBAGENT_STOP_HOOK_NAME
        and run.root_ended
        and not run.live_subagents
        and run.is_active
    )
