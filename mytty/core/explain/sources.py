"""Where an event came from: the provider's own hook, or one of the rules mytty applies itself.

Every event carries its source in its ``hookName``: an agent's hook sends the provider's own
name (``Stop``, ``PermissionRequest``, ``beforeSubmitPrompt``; Antigravity's invocations send
none), while everything mytty writes itself is named ``mytty.…`` (``synthesized: true``).
:data:`SYNTHESIZED` names each of mytty's own names, the channel it reads, and what it saw, in
words for ``explain``. The names live next to their rules; the two kept in the controller
(resume, the Cursor approval estimate) are spelled here and held to those constants by
``tests/core/explain/test_sources.py``, which also fails when a ``mytty.`` name appears in the
code without an entry here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from mytty.core.approvals.model import DECIDED_HOOK, REQUESTED_HOOK
from mytty.core.estimation import epochs
from mytty.core.events import AgentEvent, AgentEventKind
from mytty.core.runs.synthesized import STARTUP_SWEEP_HOOK_NAME, SUPERSEDED_HOOK_NAME
from mytty.core.transcripts.claude import INTERRUPT_HOOK_NAME
from mytty.core.transcripts.codex import FAILURE_HOOK_NAME
from mytty.core.transcripts.limits import CLAUDE_LIMIT_HOOK, CODEX_LIMIT_HOOK

#: ``mytty resume`` records a resumption (mytty.daemon.jobs.resume.RESUME_HOOK).
RESUME_HOOK_NAME = "mytty.resume"
#: A Cursor tool call with no answer after 10 s (mytty.daemon.estimation.cursor_approval).
CURSOR_APPROVAL_HOOK_NAME = "mytty.cursorApprovalPending"


class Source(StrEnum):
    """The wire values of an evidence item's ``source``."""

    #: The agent's own hook (its ``hookName`` is the provider's event name).
    HOOK = "hook"
    #: Native estimation: the foreground process, the shell's exit status, the transcript.
    NATIVE = "native"
    #: Read from the agent's transcript for a hooked agent (what no hook reports).
    TRANSCRIPT = "transcript"
    #: A starting controller (or a vanished tmux server) closing runs whose agent is gone.
    STARTUP_SWEEP = "startup-sweep"
    #: A newer Claude prompt closing an older run of the same pane.
    SUPERSEDED = "superseded"
    #: ``mytty resume`` restarting a lost worker.
    RESUME = "resume"
    #: The Cursor approval estimate (a tool call left unanswered).
    ESTIMATE = "estimate"
    #: The approvals broker: a permission request decided through mytty, or asked again.
    APPROVAL = "approval"
    #: A ``mytty.`` name this version does not know (a newer controller's).
    MYTTY = "mytty"


@dataclass(frozen=True, slots=True)
class Origin:
    """One of mytty's own event names: its source and what it means, per event kind when the
    kind says more (``commandFinished`` with ``succeeded`` saw exit 0)."""

    source: Source
    what: str
    by_kind: Mapping[AgentEventKind, str] = field(default_factory=lambda: MappingProxyType({}))

    def describe(self, kind: AgentEventKind) -> str:
        return self.by_kind.get(kind, self.what)


_K = AgentEventKind
_TRANSCRIPT = "native estimation: the transcript "


def _origins() -> Mapping[str, Origin]:
    native, transcript = Source.NATIVE, Source.TRANSCRIPT
    table = {
        epochs.LAUNCH_OBSERVED: Origin(
            native,
            "native estimation: the agent stayed in the pane's foreground for the start grace",
        ),
        epochs.COMMAND_FINISHED: Origin(
            native,
            "native estimation: the shell reported the command finished (OSC 133 D)",
            MappingProxyType(
                {
                    _K.SUCCEEDED: "native estimation: the shell reported exit 0 (OSC 133 D)",
                    _K.FAILED: "native estimation: the shell reported a non-zero exit (OSC 133 D)",
                    _K.DISCONNECTED: "native estimation: the command finished without a status",
                }
            ),
        ),
        epochs.PROCESS_EXITED: Origin(
            native, "native estimation: the agent process ended and no shell reported its exit"
        ),
        epochs.TURN_HANDOFF: Origin(
            native, _TRANSCRIPT + "showed its first turn: runs follow turns from here"
        ),
        epochs.TURN_SUPERSEDED: Origin(native, _TRANSCRIPT + "began a newer turn"),
        epochs.TURN_STARTED: Origin(native, _TRANSCRIPT + "shows a new prompt (turn start)"),
        epochs.TURN_COMPLETED: Origin(native, _TRANSCRIPT + "shows the turn's end"),
        epochs.TURN_INTERRUPTED: Origin(native, _TRANSCRIPT + "shows the turn interrupted"),
        epochs.TURN_FAILED: Origin(native, _TRANSCRIPT + "records the turn's error"),
        epochs.TURN_LIMITED: Origin(native, _TRANSCRIPT + "records the turn's usage limit"),
        INTERRUPT_HOOK_NAME: Origin(
            transcript, "Claude's transcript (or live registry) shows an Esc interrupt"
        ),
        FAILURE_HOOK_NAME: Origin(transcript, "Codex's rollout records a model API error"),
        CLAUDE_LIMIT_HOOK: Origin(
            transcript, "Claude's transcript records the turn stopped at the usage limit"
        ),
        CODEX_LIMIT_HOOK: Origin(
            transcript, "Codex's rollout records the turn stopped at the usage limit"
        ),
        STARTUP_SWEEP_HOOK_NAME: Origin(
            Source.STARTUP_SWEEP,
            "the startup sweep: the run was active while no controller (or no tmux server) "
            "watched, and its agent is gone",
        ),
        SUPERSEDED_HOOK_NAME: Origin(
            Source.SUPERSEDED, "a newer Claude prompt in the same pane closed this run"
        ),
        RESUME_HOOK_NAME: Origin(
            Source.RESUME, "`mytty resume` restarted the worker here on its conversation"
        ),
        CURSOR_APPROVAL_HOOK_NAME: Origin(
            Source.ESTIMATE, "estimate: a Cursor tool call had no answer for 10 s (approval?)"
        ),
        DECIDED_HOOK: Origin(
            Source.APPROVAL,
            "the approvals broker: the permission request was decided through mytty "
            "(`mytty approvals log` says by whom)",
        ),
        REQUESTED_HOOK: Origin(
            Source.APPROVAL,
            "the approvals broker: the agent asked the same permission again (its hook event "
            "was a duplicate of an earlier one)",
        ),
    }
    return MappingProxyType(table)


#: Every ``mytty.`` event name this version writes, with its origin.
SYNTHESIZED: Mapping[str, Origin] = _origins()


def origin(event: AgentEvent) -> Origin:
    """Where ``event`` came from (a provider's hook unless its name is one of mytty's)."""
    name = event.hook_name
    if not event.synthesized:
        what = f"{event.provider.value} hook {name}" if name else f"{event.provider.value} hook"
        return Origin(Source.HOOK, what)
    assert name is not None  # synthesized means a mytty. name
    return SYNTHESIZED.get(name, Origin(Source.MYTTY, f"written by mytty ({name})"))


def is_hook(event: AgentEvent) -> bool:
    """True for an event the agent's own hooks sent."""
    return not event.synthesized
