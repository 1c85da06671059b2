"""The one place that turns core objects into the reply shapes of :mod:`mytty.protocol.replies`.

Handlers, the job registry, the integration facade and the event server call these instead of
spelling dicts, so a wire key is written once. Each function builds its keys in the seed's order
(JSON objects keep insertion order, and the e2e tests compare bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, TypedDict

from mytty.core.events import format_timestamp
from mytty.core.vocab import LEAD_NOTICES
from mytty.protocol.replies import (
    AgentEventWire,
    AgentJobReply,
    AgentJobsReply,
    AgentResultReply,
    AgentWaitResultReply,
    ApprovalEntry,
    ApprovalLogReply,
    ApprovalReply,
    ApprovalRuleReply,
    ApprovalsReply,
    AttentionEntry,
    AttentionReply,
    ContentReply,
    CostPart,
    DecisionLine,
    EnvReply,
    EventAccepted,
    EventRecord,
    EventRejected,
    EventsReply,
    ExplainEpoch,
    ExplainEvidence,
    ExplainFollowing,
    ExplainForeground,
    ExplainObserved,
    ExplainRun,
    ExplainShell,
    ExplainStep,
    ExplainTranscript,
    ExplanationReply,
    FailureReply,
    HeldApproval,
    HostEntry,
    HostsReply,
    IntegrationEntry,
    IntegrationStatusesReply,
    JobSnapshot,
    LeadCostEntry,
    LimitAccountEntry,
    LimitJobEntry,
    LimitsReply,
    ListReply,
    MemoryCapEntry,
    OkReply,
    PaneContent,
    PaneEntry,
    PaneReply,
    QueuedReply,
    RawValue,
    ResourcePart,
    SessionReply,
    ShellInfo,
    TokenUsageEntry,
    WaitResultReply,
)

if TYPE_CHECKING:  # only their attributes are read: the human CLI needn't load the books
    from mytty.core.approvals.model import ApprovalRequest
    from mytty.core.attention.items import AttentionItem
    from mytty.core.errors import ErrorCode
    from mytty.core.events import AgentEvent, AgentProvider, AgentRunState
    from mytty.core.explain.build import Explanation, Step
    from mytty.core.explain.evidence import Evidence
    from mytty.core.explain.inputs import Observations
    from mytty.core.hosts.state import HostState
    from mytty.core.ids import SurfaceId
    from mytty.core.jobs.tracker import AgentJob
    from mytty.core.runs.ledger import LedgerPage, LedgerRecord
    from mytty.core.runs.run import AgentRun
    from mytty.core.shell.events import ShellState
    from mytty.core.transcripts.usage import TokenUsage


# Optional keys that sit between required ones: unpacked into the literal to keep wire order.
class _Label(TypedDict, total=False):
    label: str


class _ToolName(TypedDict, total=False):
    toolName: str


class _SessionID(TypedDict, total=False):
    sessionID: str


class _StatusNote(TypedDict, total=False):
    statusNote: str


class _Key(TypedDict, total=False):
    key: str


class _LiveSubagents(TypedDict, total=False):
    liveSubagents: int


class _Usage(TypedDict, total=False):
    usage: TokenUsageEntry


class _Resumed(TypedDict, total=False):
    resumed: int


class _Reason(TypedDict, total=False):
    reason: str


class _Queue(TypedDict, total=False):
    queuePosition: int
    queuedBecause: str


class _Parked(TypedDict, total=False):
    parkedUntil: str | None
    resumesAt: str | None
    limit: str | None
    account: str | None


class _HeldSends(TypedDict, total=False):
    heldSends: int


class _JobID(TypedDict, total=False):
    jobID: RawValue


class _Job(TypedDict, total=False):
    job: JobSnapshot


class _EvidenceTail(TypedDict, total=False):
    hookName: str
    toolName: str
    message: str


class _EventTail(TypedDict, total=False):
    message: str
    hookName: str
    toolUseID: str
    toolName: str
    lastAssistantMessage: str


def raw_value(value: str) -> RawValue:
    return {"rawValue": value}


# -- generic ----------------------------------------------------------------------------------


def ok() -> OkReply:
    return {"type": "ok"}


def queued() -> QueuedReply:
    """``agent send`` to a parked job: held until it goes on."""
    return {"type": "ok", "queued": True}


def failure(code: ErrorCode, message: str) -> FailureReply:
    return {"type": "failure", "code": code.value, "message": message}


# -- panes ------------------------------------------------------------------------------------


class PaneFacts(Protocol):
    """What ``list`` reports about a pane's place in tmux (``tmux.port.PaneRow`` has it)."""

    @property
    def session_id(self) -> str: ...
    @property
    def window_id(self) -> str: ...
    @property
    def window_name(self) -> str: ...
    @property
    def current_path(self) -> str: ...
    @property
    def pane_active(self) -> bool: ...
    @property
    def window_active(self) -> bool: ...


def pane_entry(
    surface_id: str,
    row: PaneFacts,
    command: str,
    run: AgentRun | None,
    status_note: str | None,
    shell: ShellState | None = None,
) -> PaneEntry:
    """One ``list`` entry. A tmux session is the seed's window and a tmux window its tab.

    ``shell`` (mytty's addition) is there once the pane's shell integration reported.
    """
    entry: PaneEntry = {
        "paneID": surface_id,
        "windowID": row.session_id,
        "tabID": row.window_id,
        "title": row.window_name,
        "command": command,
        "workingDirectory": row.current_path,
        "isActive": row.pane_active and row.window_active,
    }
    if run is not None:
        entry["provider"] = run.provider.value
        entry["agentState"] = run.state.value
        if run.live_subagent_count:
            entry["liveSubagents"] = run.live_subagent_count
    if status_note is not None:
        entry["statusNote"] = status_note
    if shell is not None:
        entry["shell"] = shell_info(shell)
    return entry


def shell_info(state: ShellState) -> ShellInfo:
    def stamp(t: float | None) -> str | None:
        return None if t is None else format_timestamp(t, fractional=True)

    return {
        "lastExitStatus": state.last_exit_status,
        "lastExitAt": stamp(state.last_exit_at),
        "cwd": state.cwd,
        "commandCount": state.command_count,
        "reportedAt": stamp(state.reported_at),
    }


def list_reply(entries: Iterable[PaneEntry]) -> ListReply:
    return {"type": "list", "panes": list(entries)}


def pane_reply(surface_id: str) -> PaneReply:
    return {"type": "pane", "paneID": surface_id}


def pane_content(
    pane_id: str, text: str, cursor_row: int | None, cursor_column: int | None
) -> PaneContent:
    """A screen; ``pane_id`` is echoed as the caller spelled it (``read``) or the job's pane."""
    return {"paneID": pane_id, "text": text, "cursorRow": cursor_row, "cursorColumn": cursor_column}


def content_reply(content: PaneContent) -> ContentReply:
    return {"type": "content", "content": content}


def wait_result(state: AgentRunState | None, timed_out: bool) -> WaitResultReply:
    return {"type": "waitResult", "state": state.value if state else None, "timedOut": timed_out}


def env_reply(surface_id: str, environment: dict[str, str]) -> EnvReply:
    return {"type": "env", "paneID": surface_id, "environment": environment}


def session_reply(name: str, tmux_socket: str) -> SessionReply:
    return {"type": "session", "name": name, "tmuxSocket": tmux_socket}


# -- agent jobs -------------------------------------------------------------------------------


def token_usage(
    tokens: TokenUsage,
    model: str | None,
    budget: int | None = None,
    budget_usd: float | None = None,
) -> TokenUsageEntry:
    """A job's ``usage`` (see :mod:`mytty.core.transcripts.usage` for what each counter means)."""
    entry: TokenUsageEntry = {
        "inputTokens": tokens.input,
        "outputTokens": tokens.output,
        "cacheReadTokens": tokens.cache_read,
        "cacheWriteTokens": tokens.cache_write,
        "totalTokens": tokens.total,
        "model": model,
    }
    if budget is not None:
        entry["budgetTokens"] = budget
    if budget_usd is not None:
        entry["budgetUsd"] = budget_usd
    return entry


def stamp(seconds: float | None) -> str | None:
    """A time on the control wire as ISO 8601 (whole seconds, ``Z``), or None."""
    return format_timestamp(seconds) if seconds is not None else None


def job_snapshot(
    job: AgentJob,
    status_note: str | None = None,
    usage: TokenUsageEntry | None = None,
    *,
    resumes_at: float | None = None,
    queue_position: int | None = None,
    cost: CostPart | None = None,
    resources: ResourcePart | None = None,
) -> JobSnapshot:
    """The job as every ``agent`` reply carries it.

    ``runID``, ``sessionID`` and ``message`` are always present (JSON null when unknown), as the
    seed's example shows; ``label`` is omitted when the job has none and ``statusNote`` when the
    pane has no note. mytty's additions after them are present only when they apply: a parked
    job adds ``parkedUntil`` (the provider's reset), ``resumesAt`` (when mytty continues it),
    ``limit`` and ``account`` after ``message``, each null when unknown; ``heldSends`` counts
    the sends waiting for it to go on.
    """
    label: _Label = {"label": job.label} if job.label is not None else {}
    note: _StatusNote = {"statusNote": status_note} if status_note is not None else {}
    # mytty's addition: present only while the bound run has a live subagent.
    live: _LiveSubagents = {"liveSubagents": job.live_subagents} if job.live_subagents else {}
    # mytty's addition: present once `mytty resume` restarted the worker.
    times = job.launch.resumed if job.launch is not None else 0
    resumed: _Resumed = {"resumed": times} if times else {}
    # mytty's addition: the ``agent spawn --key`` the job answers, when it has one.
    key: _Key = {"key": job.key} if job.key is not None else {}
    spent: _Usage = {"usage": usage} if usage is not None else {}
    park = job.park if job.state.value == "parked" else None
    parked: _Parked = (
        {
            "parkedUntil": stamp(park.until),
            "resumesAt": stamp(resumes_at),
            "limit": park.limit,
            "account": park.account,
        }
        if park is not None
        else {}
    )
    held: _HeldSends = {"heldSends": len(job.held_sends)} if job.held_sends else {}
    reason: _Reason = {"reason": job.end_reason} if job.end_reason is not None else {}
    # mytty's addition: a queued job's place and why it waits.
    queue: _Queue = (
        {"queuePosition": queue_position, "queuedBecause": job.queued_because}
        if queue_position is not None and job.queued_because is not None
        else {}
    )
    return {
        "jobID": raw_value(job.job_id),
        "paneID": raw_value(job.surface_id),
        "provider": job.provider.value,
        **label,
        "state": job.state.value,
        "runID": raw_value(job.run_id) if job.run_id is not None else None,
        "sessionID": job.session_id,
        "message": job.message,
        **parked,
        **held,
        **reason,
        **key,
        **live,
        **resumed,
        **queue,
        **note,
        **spent,
        **(cost or {}),
        **(resources or {}),
    }


def memory_cap(max_mb: int, method: str | None, detail: str) -> MemoryCapEntry:
    """``memoryCap`` of an ``agent spawn`` reply: the cap and whether it is enforced."""
    return {"maxMB": max_mb, "enforced": method is not None, "method": method, "detail": detail}


def lead_cost(
    pane_id: str, own: float | None, workers: float | None, total: float | None
) -> LeadCostEntry:
    return {"paneID": pane_id, "ownCostUsd": own, "workersCostUsd": workers, "costUsd": total}


def agent_job_reply(
    snapshot: JobSnapshot,
    placement: str | None = None,
    *,
    reused: bool | None = None,
    cap: MemoryCapEntry | None = None,
) -> AgentJobReply:
    """``reused`` (mytty's, only for ``agent spawn --key``): the key's job came back;
    ``cap``: whether the configured per-worker memory cap is enforced."""
    reply: AgentJobReply = {"type": "agentJob", "job": snapshot}
    if placement is not None:
        reply["placement"] = placement
    if reused is not None:
        reply["reused"] = reused
    if cap is not None:
        reply["memoryCap"] = cap
    return reply


def agent_jobs_reply(
    snapshots: Iterable[JobSnapshot],
    *,
    cost_usd: CostPart | None = None,
    lead: LeadCostEntry | None = None,
) -> AgentJobsReply:
    """``usage`` (mytty's addition): the listed jobs' tokens added up, when any has figures;
    ``agent list`` lists one lead's jobs by default, so it is that lead's roll-up. ``cost_usd``:
    their dollars added up; ``lead``: the lead's own cost and its workers'."""
    jobs = list(snapshots)
    reply: AgentJobsReply = {"type": "agentJobs", "jobs": jobs}
    spent = [job["usage"] for job in jobs if "usage" in job]
    if spent:
        reply["usage"] = {
            "inputTokens": sum(u["inputTokens"] for u in spent),
            "outputTokens": sum(u["outputTokens"] for u in spent),
            "cacheReadTokens": sum(u["cacheReadTokens"] for u in spent),
            "cacheWriteTokens": sum(u["cacheWriteTokens"] for u in spent),
            "totalTokens": sum(u["totalTokens"] for u in spent),
            "model": None,
        }
    if cost_usd:
        reply["costUsd"] = cost_usd["costUsd"]
    if lead is not None:
        reply["lead"] = lead
    return reply


def agent_wait_result(snapshot: JobSnapshot, timed_out: bool) -> AgentWaitResultReply:
    return {"type": "agentWaitResult", "job": snapshot, "timedOut": timed_out}


def agent_wait_many_result(
    decided: JobSnapshot, snapshots: list[JobSnapshot], timed_out: bool
) -> AgentWaitResultReply:
    """A wait on several jobs: ``jobs`` (ours) is every snapshot, ``job`` the deciding one."""
    return {"type": "agentWaitResult", "job": decided, "jobs": snapshots, "timedOut": timed_out}


def limit_job_entry(job: AgentJob, resumes_at: float | None) -> LimitJobEntry:
    """A parked job as ``limits list`` shows it."""
    park = job.park
    label: _Label = {"label": job.label} if job.label is not None else {}
    return {
        "jobID": raw_value(job.job_id),
        "paneID": raw_value(job.surface_id),
        "provider": job.provider.value,
        **label,
        "parkedUntil": stamp(park.until) if park is not None else None,
        "resumesAt": stamp(resumes_at),
        "limit": park.limit if park is not None else None,
        "account": park.account if park is not None else None,
        "held": park.held if park is not None else False,
        "streak": park.streak if park is not None else 0,
        "heldSends": len(job.held_sends),
        "message": job.message,
    }


def limit_account_entry(
    account: str,
    label: str | None,
    provider: str,
    parked_until: float | None,
    next_resume: float | None,
    job_ids: Iterable[str],
) -> LimitAccountEntry:
    return {
        "account": account,
        "label": label,
        "provider": provider,
        "parkedUntil": stamp(parked_until),
        "nextResumeAt": stamp(next_resume),
        "jobs": [raw_value(j) for j in job_ids],
    }


def limits_reply(
    accounts: Iterable[LimitAccountEntry], jobs: Iterable[LimitJobEntry]
) -> LimitsReply:
    return {"type": "limits", "accounts": list(accounts), "jobs": list(jobs)}


def agent_result(
    snapshot: JobSnapshot, content: PaneContent, last_assistant_message: str | None
) -> AgentResultReply:
    """``lastAssistantMessage`` (always present, null when unknown) is ours, not the seed's."""
    return {
        "type": "agentResult",
        "job": snapshot,
        "content": content,
        "lastAssistantMessage": last_assistant_message,
    }


# -- events and attention ---------------------------------------------------------------------


def event_record(record: LedgerRecord) -> EventRecord:
    """A ledger record as the ``events`` reply carries it (``toolName`` omitted when absent)."""
    tool: _ToolName = {"toolName": record.tool_name} if record.tool_name is not None else {}
    return {
        "sequence": record.sequence,
        "paneID": record.surface_id,
        "provider": str(record.provider),
        "runID": record.run_id,
        "kind": str(record.kind),
        "occurredAt": format_timestamp(record.occurred_at, fractional=True),
        **tool,
        "synthesized": record.synthesized,
    }


def events_reply(page: LedgerPage, timed_out: bool) -> EventsReply:
    out: EventsReply = {
        "type": "events",
        "records": [event_record(r) for r in page.records],
        "latestSequence": page.latest_sequence,
        "timedOut": timed_out,
    }
    if page.truncated:
        out["truncated"] = True
    return out


def attention_entry(
    item: AttentionItem, location: str | None = None, label: str | None = None
) -> AttentionEntry:
    # An item the human acknowledged counts as resolved at that moment.
    resolved = item.resolved_at or item.acknowledged_at
    return {
        "paneID": item.surface_id,
        "runID": item.run_id,
        "provider": item.provider.value,
        "kind": item.kind.value,
        "message": item.message,
        "createdAt": format_timestamp(item.created_at, fractional=True),
        "resolvedAt": format_timestamp(resolved, fractional=True) if resolved is not None else None,
        "location": location,
        "label": label,
    }


def attention_reply(
    items: Sequence[AttentionItem],
    whereabouts: Callable[[SurfaceId], tuple[str | None, str | None]],
) -> AttentionReply:
    """``whereabouts(paneID)`` gives the item's ``location`` and ``label`` (mytty additions)."""
    return {
        "type": "attention",
        "items": [attention_entry(i, *whereabouts(i.surface_id)) for i in items],
    }


# -- other hosts ------------------------------------------------------------------------------


def host_entry(state: HostState) -> HostEntry:
    seen = state.last_seen
    return {
        "name": state.name,
        "ssh": state.ssh,
        "state": state.state,
        "since": format_timestamp(state.since, fractional=True),
        "lastSeen": format_timestamp(seen, fractional=True) if seen is not None else None,
        "version": state.version,
        "rttMs": state.rtt_ms,
        "agents": state.agents,
        "attention": state.attention,
        "error": {"code": state.error[0], "message": state.error[1]} if state.error else None,
        "items": [dict(item) for item in state.items],
    }


def hosts_reply(states: Iterable[HostState]) -> HostsReply:
    return {"type": "hosts", "hosts": [host_entry(s) for s in states]}


# -- explain ----------------------------------------------------------------------------------


#: An explanation carries up to 40 events and the run's message; each message is clipped so
#: the reply stays small whatever the agents wrote (an event's message may be ~60 KB).
EXPLAIN_MESSAGE_CHARS = 500
EXPLAIN_RUN_MESSAGE_CHARS = 2000


def _stamp(seconds: float | None) -> str | None:
    return None if seconds is None else format_timestamp(seconds, fractional=True)


def _clip(text: str | None, most: int) -> str | None:
    if text is None or len(text) <= most:
        return text
    return text[: most - 1] + "…"


def explain_run(run: AgentRun) -> ExplainRun:
    return {
        "runID": run.id,
        "provider": run.provider.value,
        "state": run.state.value,
        "sessionID": run.session_id,
        "startedAt": _stamp(run.started_at),
        "updatedAt": _stamp(run.updated_at),
        "message": _clip(run.message, EXPLAIN_RUN_MESSAGE_CHARS),
        "acceptedEventCount": run.accepted_event_count,
    }


def explain_evidence(item: Evidence) -> ExplainEvidence:
    event = item.event
    tail: _EvidenceTail = {}
    if event.hook_name is not None:
        tail["hookName"] = event.hook_name
    if event.tool_name is not None:
        tail["toolName"] = event.tool_name
    message = _clip(event.message, EXPLAIN_MESSAGE_CHARS)
    if message is not None:
        tail["message"] = message
    return {
        "sequence": item.sequence,
        "occurredAt": format_timestamp(event.occurred_at, fractional=True),
        "runID": event.run_id,
        "provider": event.provider.value,
        "kind": event.kind.value,
        "source": item.source.value,
        **tail,
        "what": item.what,
        "effect": item.effect,
        "shownRun": item.on_shown_run,
    }


def explain_observed(obs: Observations, integrations: dict[AgentProvider, str]) -> ExplainObserved:
    fg, epoch, shell, transcript = obs.foreground, obs.epoch, obs.shell, obs.transcript
    foreground: ExplainForeground | None = None
    if fg is not None:
        foreground = {
            "pid": fg.process,
            "command": fg.command,
            "agent": fg.provider.value if fg.provider is not None else None,
            "agentPID": fg.agent_pid,
            "agentStartedAt": _stamp(fg.agent_started_at),
        }
    epoch_wire: ExplainEpoch | None = None
    if epoch is not None:
        epoch_wire = {
            "provider": epoch.provider.value,
            "pid": epoch.pid,
            "phase": epoch.phase,
            "hookCovered": epoch.covered,
            "turnMode": epoch.turn_mode,
            "activeTurn": epoch.active_turn,
            "runID": epoch.run_id,
        }
    shell_wire: ExplainShell | None = None
    if shell is not None:
        shell_wire = {
            "lastExitStatus": shell.last_exit_status,
            "lastExitAt": _stamp(shell.last_exit_at),
            "commandCount": shell.command_count,
        }
    transcript_wire: ExplainTranscript | None = None
    if transcript is not None:
        transcript_wire = {
            "path": transcript.path,
            "turn": transcript.turn,
            "phase": transcript.phase,
        }
    out: ExplainObserved = {
        "paneAlive": obs.pane_alive,
        "foreground": foreground,
        "epoch": epoch_wire,
        "shell": shell_wire,
        "transcript": transcript_wire,
        "integrations": {p.value: status for p, status in integrations.items()},
    }
    if obs.codex_session is not None:
        out["codexSession"] = obs.codex_session
    if obs.unplaced_codex_events:
        out["unplacedCodexEvents"] = obs.unplaced_codex_events
    return out


def explain_step(step: Step) -> ExplainStep:
    return {
        "kind": step.kind.value if step.kind is not None else None,
        "state": step.state,
        "by": list(step.by),
    }


def explanation_reply(explanation: Explanation, snapshot: JobSnapshot | None) -> ExplanationReply:
    """``explain``'s reply; ``snapshot``: the job's, when a job is explained or lives in the
    pane (``jobID`` names it only when the job was asked for)."""
    job = explanation.job
    job_id: _JobID = (
        {"jobID": raw_value(job.job_id)} if job is not None and explanation.by_job else {}
    )
    shown: _Job = {"job": snapshot} if snapshot is not None else {}
    how = explanation.following
    following: ExplainFollowing | None = None
    if how is not None:
        following = {
            "hooks": how.hooked,
            "nativeEstimation": how.estimated,
            "perTurn": how.turn_mode,
        }
    return {
        "type": "explanation",
        "target": "job" if explanation.by_job else "pane",
        "paneID": explanation.surface_id,
        **job_id,
        "state": explanation.state,
        "summary": explanation.summary,
        "following": following,
        **shown,
        "run": explain_run(explanation.run) if explanation.run is not None else None,
        "evidence": [explain_evidence(e) for e in explanation.evidence],
        "observed": explain_observed(explanation.observations, explanation.integrations),
        "next": [explain_step(s) for s in explanation.next],
        "warnings": [{"code": w.code, "message": w.message} for w in explanation.warnings],
    }


# -- integrations -----------------------------------------------------------------------------


def integration_entry(provider: AgentProvider, status: str, error: str | None) -> IntegrationEntry:
    entry: IntegrationEntry = {"provider": provider.value, "status": status}
    if error is not None:
        entry["error"] = error
    return entry


def integration_list_entry(entry: IntegrationEntry) -> IntegrationEntry:
    """An entry of ``integration list``, which also says how a lead hears of its workers."""
    return {**entry, "leadNotices": LEAD_NOTICES.get(entry["provider"], "none")}


def integration_statuses(entries: Iterable[IntegrationEntry]) -> IntegrationStatusesReply:
    return {"type": "integrationStatuses", "integrations": list(entries)}


# -- event socket -----------------------------------------------------------------------------


def agent_event(event: AgentEvent, *, fractional: bool = False) -> AgentEventWire:
    """An event as the envelope's ``event`` object (optional fields omitted when None)."""
    session: _SessionID = {"sessionID": event.session_id} if event.session_id is not None else {}
    tail: _EventTail = {}
    if event.message is not None:
        tail["message"] = event.message
    if event.hook_name is not None:
        tail["hookName"] = event.hook_name
    if event.tool_use_id is not None:
        tail["toolUseID"] = event.tool_use_id
    if event.tool_name is not None:
        tail["toolName"] = event.tool_name
    if event.last_assistant_message is not None:
        tail["lastAssistantMessage"] = event.last_assistant_message
    return {
        "schemaVersion": event.schema_version,
        "id": raw_value(event.id),
        "runID": raw_value(event.run_id),
        **session,
        "surfaceID": raw_value(event.surface_id),
        "provider": event.provider.value,
        "kind": event.kind.value,
        "occurredAt": format_timestamp(event.occurred_at, fractional=fractional),
        **tail,
    }


def event_accepted(
    inserted: bool, notice: str | None = None, approval: HeldApproval | None = None
) -> EventAccepted:
    reply: EventAccepted = {"ok": True, "inserted": inserted}
    if notice is not None:
        reply["notice"] = notice
    if approval is not None:
        reply["approval"] = approval
    return reply


def event_rejected(code: ErrorCode) -> EventRejected:
    return {"ok": False, "error": code.value}


# -- approvals ----------------------------------------------------------------------------------


def approval_entry(request: ApprovalRequest, now: float, location: str | None) -> ApprovalEntry:
    """One request as ``approval list``/``answer``/``log`` show it (``location``: the pane as
    tmux names it, ``session:window.pane``, or null once it is gone)."""
    action = request.action
    hold_left = None
    if request.state == "holding" and request.hold_until is not None:
        hold_left = round(max(0.0, request.hold_until - now), 3)
    latency = request.latency()
    return {
        "id": request.id,
        "paneID": request.surface_id,
        "location": location,
        "jobID": request.job_id,
        "label": request.label,
        "runID": request.run_id,
        "provider": request.provider,
        "tool": action.tool,
        "action": action.text,
        "command": action.command,
        "paths": list(action.paths),
        "diff": action.diff,
        "description": action.description,
        "cwd": request.cwd,
        "truncated": action.truncated,
        "approver": request.approver,
        "state": str(request.state),
        "requestedAt": format_timestamp(request.requested_at, fractional=True),
        "holdUntil": _stamp(request.hold_until),
        "ageSeconds": round(max(0.0, now - request.requested_at), 3),
        "holdLeftSeconds": hold_left,
        "decision": None if request.decision is None else str(request.decision),
        "message": request.message,
        "decidedBy": request.decided_by,
        "session": request.session,
        "decidedAt": _stamp(request.decided_at),
        "latencyMs": None if latency is None else round(latency * 1000),
        "deliveredBy": request.delivered_by,
        "rule": request.rule,
    }


def approvals_reply(entries: Iterable[ApprovalEntry]) -> ApprovalsReply:
    return {"type": "approvals", "approvals": list(entries)}


def approval_reply(entry: ApprovalEntry, rule: dict[str, str] | None) -> ApprovalReply:
    return {"type": "approval", "approval": entry, "rule": rule}


def approval_log_reply(entries: Iterable[ApprovalEntry]) -> ApprovalLogReply:
    return {"type": "approvalLog", "entries": list(entries)}


def approval_rule_reply(rule: dict[str, str], toml: str, config_file: str) -> ApprovalRuleReply:
    return {"type": "approvalRule", "rule": rule, "toml": toml, "configFile": config_file}


def held_approval(
    approval_id: str,
    *,
    decision: str | None = None,
    message: str | None = None,
    hold_seconds: float | None = None,
) -> HeldApproval:
    """The ``approval`` of an event reply (see :class:`HeldApproval`)."""
    held: HeldApproval = {"id": approval_id}
    if decision is not None:
        held["decision"] = decision
        if message is not None:
            held["message"] = message
    if hold_seconds is not None:
        held["holdSeconds"] = hold_seconds
    return held


def decision_line(decision: str | None, message: str | None = None) -> DecisionLine:
    line: DecisionLine = {"decision": decision}
    if decision is not None and message is not None:
        line["message"] = message
    return line
