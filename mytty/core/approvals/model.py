"""One permission request an agent's ``PermissionRequest`` hook brought to the controller.

A request lives through these states (``state`` on the wire):

- ``holding``: the agent's hook waits on the event socket for a decision, until ``hold_until``
  (Claude Code shows its own dialog meanwhile; Codex shows it only once the hook returns);
- ``dialog``: the hold is over without a decision (or there was none, ``hold_seconds = 0``): the
  agent's own dialog is the way in; an answer is delivered there by keys, after the screen was
  checked to show this very request;
- ``decided``: allowed or denied, by a rule, a human, a lead, or in the pane itself
  (``agent-dialog``, read from what the agent did next);
- ``expired``: it ended without an answer anyone gave through mytty or in the pane that mytty
  could tell (the pane or the run went away, the controller restarted meanwhile).

Who decided is one of :func:`rule_who`, :func:`human_who`, :func:`lead_who` or
:data:`AGENT_DIALOG`. Times are Unix seconds, passed in (this module reads no clock).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from mytty.core import vocab
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.ids import resolve_prefix as resolve_prefix  # approval ids are named so too


class ApprovalState(StrEnum):
    HOLDING = "holding"
    DIALOG = "dialog"
    DECIDED = "decided"
    EXPIRED = "expired"


OPEN_STATES = frozenset({ApprovalState.HOLDING, ApprovalState.DIALOG})


class Decision(StrEnum):
    ALLOW = "allow"
    DENY = "deny"


#: How a decision reached the agent: the hook's reply, keys in its dialog, or a rule (also the
#: hook's reply, at once), or the human answered in the pane (nothing mytty sent).
BY_HOOK = "hook"
BY_DIALOG = "dialog"
BY_RULE = "rule"
IN_PANE = "pane"

#: hookName of the ``running`` event a decision stores (it resolves the request's attention item).
DECIDED_HOOK = "mytty.approvalDecided"
#: hookName of the ``approval-requested`` event stored for a request whose hook event was a
#: duplicate of an earlier identical call's.
REQUESTED_HOOK = "mytty.approvalRequested"

#: ``decidedBy`` of a request answered in the agent's own dialog, not through mytty.
AGENT_DIALOG = "agent-dialog"
#: The human surfaces (``human:<channel>``): a terminal, the attention popup, the web view.
HUMAN_CHANNELS: tuple[str, ...] = vocab.HUMAN_CHANNELS
#: ``agent spawn --approver``: who answers a worker's requests besides any human.
APPROVERS: tuple[str, ...] = vocab.APPROVERS
APPROVER_HUMAN, APPROVER_LEAD = APPROVERS

#: The most a deny message may hold (characters); a longer one is refused, not cut.
MAX_MESSAGE_CHARS = 2000


def rule_who(name: str) -> str:
    return f"rule:{name}"


def human_who(channel: str) -> str:
    return f"human:{channel}"


def lead_who(lead_id: str) -> str:
    return f"lead:{lead_id}"


@dataclass(frozen=True, slots=True)
class Action:
    """What the agent asks to do, as its hook reported it (sanitised by the hook, checked by
    the event socket). ``truncated``: the command or diff was too long and was cut; such a
    request can be shown and answered but no rule can read it."""

    tool: str
    command: str | None = None
    paths: tuple[str, ...] = ()
    diff: str | None = None
    description: str | None = None
    truncated: bool = False

    @property
    def text(self) -> str:
        """The action in one text: the command, else the paths, else the tool's name."""
        if self.command is not None:
            return self.command
        if self.paths:
            return ", ".join(self.paths)
        return self.tool


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """One request and, once it has one, its outcome."""

    id: str
    #: The stored id of the ``approval-requested`` event the hook sent (a retry carries it).
    event_id: str
    surface_id: SurfaceId
    run_id: RunId
    provider: str
    action: Action
    cwd: str | None
    requested_at: float
    hold_until: float | None
    job_id: JobId | None = None
    label: str | None = None
    #: The directory rule paths are relative to: the job's worktree or directory, else ``cwd``.
    base_dir: str | None = None
    approver: str = APPROVER_HUMAN
    #: The pane of the lead that spawned the worker (None: no job, or no lead).
    lead: SurfaceId | None = None
    state: ApprovalState = ApprovalState.HOLDING
    decision: Decision | None = None
    message: str | None = None
    decided_by: str | None = None
    #: A web view's session label (``human:web``), when it gave one.
    session: str | None = None
    decided_at: float | None = None
    delivered_by: str | None = None
    #: The rule that matched (decided, or asked for a human), by name.
    rule: str | None = None

    @property
    def open(self) -> bool:
        return self.state in OPEN_STATES

    def latency(self) -> float | None:
        """Seconds from the request to its decision (None until decided)."""
        if self.decided_at is None:
            return None
        return max(0.0, self.decided_at - self.requested_at)


def decided(
    request: ApprovalRequest,
    decision: Decision,
    *,
    who: str,
    at: float,
    delivered_by: str,
    message: str | None = None,
    session: str | None = None,
    rule: str | None = None,
) -> ApprovalRequest:
    """``request`` with its decision."""
    return replace(
        request,
        state=ApprovalState.DECIDED,
        decision=decision,
        message=message,
        decided_by=who,
        session=session,
        decided_at=at,
        delivered_by=delivered_by,
        rule=rule if rule is not None else request.rule,
    )


def hold_over(request: ApprovalRequest) -> ApprovalRequest:
    """The hold ended without a decision: the agent's own dialog is the way in now."""
    if request.state is not ApprovalState.HOLDING:
        return request
    return replace(request, state=ApprovalState.DIALOG)


def held_again(request: ApprovalRequest, now: float) -> ApprovalRequest | None:
    """The hook asked again (its retry on a fresh connection) after its first connection hung
    up: the hold goes on for what is left of it. None when it cannot (it timed out, or is
    answered or decided)."""
    if request.state is not ApprovalState.DIALOG or request.hold_until is None:
        return None
    if request.hold_until <= now:
        return None
    return replace(request, state=ApprovalState.HOLDING)


def expired(request: ApprovalRequest, at: float) -> ApprovalRequest:
    """It ended with nobody's answer mytty could tell."""
    return replace(request, state=ApprovalState.EXPIRED, decided_at=at)


def clean_message(text: str) -> str:
    """A deny message as it is sent: control characters (newlines and tabs included) become
    spaces, runs of blanks one space, the ends trimmed."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
