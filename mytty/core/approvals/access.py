"""Who may answer a request: any person; an agent only for workers its own job spawned.

The caller is decided by the controller from the caller's process ancestry (the socket peer's
pid, its parents, up to a pane's shell), never from anything the request says, as ``env`` is:

- a process with an agent (Claude Code, Codex, Cursor) among its ancestors is that agent's:
  it may answer only requests of workers spawned **from its pane** with
  ``agent spawn --approver lead``, and never a request of its own pane (a worker cannot
  approve itself, nor can a lead answer what it asks itself);
- anything else is a person (a terminal, the attention popup, the web view), who may answer
  every request.
"""

from __future__ import annotations

from dataclasses import dataclass

from mytty.core.approvals.model import (
    APPROVER_LEAD,
    ApprovalRequest,
    human_who,
    lead_who,
)
from mytty.core.ids import JobId, SurfaceId

HUMAN = "human"
AGENT = "agent"


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sent an answer. ``surface``: the pane it runs in (None: outside every pane);
    ``job_id``: the job running in that pane, when the caller is an agent mytty spawned."""

    kind: str
    surface: SurfaceId | None = None
    job_id: JobId | None = None

    @property
    def is_agent(self) -> bool:
        return self.kind == AGENT


def refusal(caller: Caller, request: ApprovalRequest) -> str | None:
    """Why ``caller`` may not answer ``request`` (one sentence), or None when it may."""
    if not caller.is_agent:
        return None
    short = request.id[:8]
    if caller.surface is not None and caller.surface == request.surface_id:
        return f"request {short} is this pane's own: an agent never answers its own requests"
    if caller.surface is None or request.lead != caller.surface:
        return (
            f"request {short} belongs to a worker your pane did not spawn; only a person (or "
            "the lead that spawned the worker with --approver lead) can answer it"
        )
    if request.approver != APPROVER_LEAD:
        return (
            f"request {short} belongs to a worker spawned without --approver lead: a person "
            "answers it (`mytty approve`, the attention popup)"
        )
    return None


def may_see(caller: Caller, request: ApprovalRequest) -> bool:
    """Whether ``approval list``/``log`` shows ``request`` to ``caller``: a person sees every
    request, an agent those of the workers spawned from its pane."""
    if not caller.is_agent:
        return True
    return caller.surface is not None and request.lead == caller.surface


def who(caller: Caller, channel: str) -> str:
    """``decidedBy`` for an answer of ``caller`` (``channel``: the person's surface)."""
    if caller.is_agent:
        return lead_who(caller.job_id or caller.surface or "unknown")
    return human_who(channel)
