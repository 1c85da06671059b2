"""Every reply shape the controller sends, on both sockets, as TypedDicts.

These are the JSON objects of the seeds (``mytty-ctl`` reference and agent event protocol):
camelCase keys, ids either bare UUID strings or wrapped as ``{"rawValue": UUID}`` exactly where
the seed wraps them. ``NotRequired`` keys are omitted (not null) when absent; keys typed
``X | None`` are always present and may be JSON null. Key order is the order in which
:mod:`mytty.protocol.wire` builds them, and it is part of the byte-for-byte wire contract.

Only type declarations live here (importing this module loads nothing but ``typing``); the
functions that turn core objects into these shapes are in :mod:`mytty.protocol.wire`.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict


class RawValue(TypedDict):
    """A wrapped id: ``{"rawValue": "<UUID>"}``."""

    rawValue: str


# -- control socket: shared parts ------------------------------------------------------------


class ShellInfo(TypedDict):
    """A pane's shell as its shell integration reported it (an addition to the seed's shape)."""

    lastExitStatus: int | None
    lastExitAt: str | None
    cwd: str | None
    commandCount: int
    reportedAt: str | None


class PaneEntry(TypedDict):
    """One pane of the ``list`` reply (``provider``/``agentState`` only once it had an event)."""

    paneID: str
    windowID: str
    tabID: str
    title: str
    command: str
    workingDirectory: str
    isActive: bool
    provider: NotRequired[str]
    agentState: NotRequired[str]
    #: mytty's addition: live subagents of that run, present only when there is one.
    liveSubagents: NotRequired[int]
    statusNote: NotRequired[str]
    shell: NotRequired[ShellInfo]


class PaneContent(TypedDict):
    """A pane's screen: the ``content`` of ``read`` and ``agentResult``."""

    paneID: str
    text: str
    cursorRow: int | None
    cursorColumn: int | None


class TokenUsageEntry(TypedDict):
    """mytty's addition: a job's token usage, read from its transcripts (``usage``)."""

    inputTokens: int
    outputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int
    totalTokens: int
    #: The model that spent the latest tokens (null when the transcript named none).
    model: str | None
    #: ``agent spawn --budget-tokens``, present only when the job has a budget.
    budgetTokens: NotRequired[int]
    #: ``agent spawn --budget-usd``, present only when the job has one (dollars).
    budgetUsd: NotRequired[float]


class CostPart(TypedDict, total=False):
    """mytty's addition: a job's cost in US dollars, next to its ``usage`` (present with it;
    null when a model it used has no price: never a guess)."""

    costUsd: float | None


class ResourcePart(TypedDict, total=False):
    """mytty's addition: the job's pane process tree (its shell and the agent below it), while
    its pane exists and it was sampled lately: resident memory, and CPU as a rolling
    percentage of one core (null until two samples a second apart exist)."""

    rssBytes: int
    cpuPercent: float | None


class JobSnapshot(TypedDict):
    """The ``job`` of ``agentJob``/``agentWaitResult``/``agentResult``."""

    jobID: RawValue
    paneID: RawValue
    provider: str
    label: NotRequired[str]
    state: str
    runID: RawValue | None
    sessionID: str | None
    message: str | None
    #: mytty's addition, only while the job is parked at a usage limit: the provider's reset
    #: (ISO 8601, null when it gave none), when mytty continues the job (null: it waits for
    #: ``mytty limits resume``), the window, the account (``<provider>:<12 hex>``).
    parkedUntil: NotRequired[str | None]
    resumesAt: NotRequired[str | None]
    limit: NotRequired[str | None]
    account: NotRequired[str | None]
    #: mytty's addition: ``agent send``s held for a parked job, present when there are some.
    heldSends: NotRequired[int]
    #: mytty's addition: why a finished job ended beyond its state (``memory-limit``).
    reason: NotRequired[str]
    #: mytty's addition: the job's ``agent spawn --key``, present only when it has one.
    key: NotRequired[str]
    #: mytty's addition: live subagents of the bound run, present only when there is one.
    liveSubagents: NotRequired[int]
    #: mytty's addition: how many times ``mytty resume`` restarted the worker (present when >0).
    resumed: NotRequired[int]
    #: mytty's addition, only while ``queued``: its place (1: next) and why it waits
    #: (``max-workers``, ``max-workers-per-provider``, ``max-workers-per-lead``, ``memory``,
    #: ``usage-limit``, ``start-burst``).
    queuePosition: NotRequired[int]
    queuedBecause: NotRequired[str]
    statusNote: NotRequired[str]
    #: mytty's addition: tokens the worker spent, present once its transcript showed some
    #: (or the job has a budget).
    usage: NotRequired[TokenUsageEntry]
    costUsd: NotRequired[float | None]
    rssBytes: NotRequired[int]
    cpuPercent: NotRequired[float | None]


class ResumeEntry(TypedDict):
    """One job of ``mytty resume``'s plan or result (a mytty addition)."""

    jobID: RawValue
    provider: str
    label: NotRequired[str]
    state: str
    sessionID: str | None
    cwd: str | None
    #: The argv the worker restarts (or would restart) with; None when it is skipped.
    argv: list[str] | None
    resumed: bool
    paneID: NotRequired[RawValue]
    skipped: NotRequired[str]
    #: Admission holds the resumed worker back (state ``queued``): its place and why.
    queuePosition: NotRequired[int]
    queuedBecause: NotRequired[str]


class ResumeReply(TypedDict):
    type: Literal["resume"]
    dryRun: bool
    jobs: list[ResumeEntry]


class LimitJobEntry(TypedDict):
    """One parked job of ``limits list`` (a mytty addition)."""

    jobID: RawValue
    paneID: RawValue
    provider: str
    label: NotRequired[str]
    #: The provider's reset (ISO 8601; null: it gave none) and when mytty continues the job
    #: (null: it waits for ``limits resume``).
    parkedUntil: str | None
    resumesAt: str | None
    limit: str | None
    account: str | None
    held: bool
    #: Parks in a row (1: the first; each re-park right after going on adds one).
    streak: int
    heldSends: int
    message: str | None


class LimitAccountEntry(TypedDict):
    """One account with parked jobs (a mytty addition)."""

    account: str
    label: str | None
    provider: str
    #: The reset its newest park named, and the next time mytty continues one of its jobs.
    parkedUntil: str | None
    nextResumeAt: str | None
    jobs: list[RawValue]


class LimitsReply(TypedDict):
    type: Literal["limits"]
    accounts: list[LimitAccountEntry]
    jobs: list[LimitJobEntry]


class QueuedReply(TypedDict):
    """``agent send`` to a parked job: held, delivered once it goes on (a mytty addition)."""

    type: Literal["ok"]
    queued: bool


class EventRecord(TypedDict):
    """One record of the ``events`` long-poll."""

    sequence: int
    paneID: str
    provider: str
    runID: str
    kind: str
    occurredAt: str
    toolName: NotRequired[str]
    synthesized: bool


class AttentionEntry(TypedDict):
    """One item of the ``attention`` reply."""

    paneID: str
    runID: str
    provider: str
    kind: str
    message: str | None
    createdAt: str
    resolvedAt: str | None
    #: mytty's additions: the pane as tmux names it (``session:window.pane``, None once it is
    #: gone) and the label of the job in that pane.
    location: str | None
    label: str | None


class ChannelReport(TypedDict):
    """How one notification channel fared: ``status`` is sent, skipped or failed."""

    channel: str
    status: str
    detail: str


class IntegrationEntry(TypedDict):
    """One provider of ``integrationStatuses`` (``error`` only after a failed install)."""

    provider: str
    status: str
    error: NotRequired[str]
    #: ``integration list`` only (a mytty addition): how a lead hears of --notify-lead workers
    #: (``next-prompt`` or ``none``, core.vocab.LEAD_NOTICES).
    leadNotices: NotRequired[str]


# -- control socket: replies -------------------------------------------------------------------


class NotifyTestReply(TypedDict):
    """``notifyTest``: each enabled channel's result, in the order they went out."""

    type: Literal["notifyTest"]
    channels: list[ChannelReport]
    notification: dict[str, object]


class OkReply(TypedDict):
    type: Literal["ok"]


class WorktreeRemovalReply(TypedDict):
    """What ``agent close --remove-worktree`` did with the job's worktree."""

    path: str
    branch: str
    removed: bool
    reason: str  # worktree_safety.Reason, or archive-failed / remove-failed
    detail: str
    archiveRef: str | None
    branchDeleted: bool


class AgentCloseReply(TypedDict):
    """``closeAgent``: ``ok``; ``worktree`` only when asked to remove it (null: mytty made none)."""

    type: Literal["ok"]
    worktree: NotRequired[WorktreeRemovalReply | None]


class FailureReply(TypedDict):
    type: Literal["failure"]
    code: str
    message: str


class PaneReply(TypedDict):
    """``newTab`` and ``split``."""

    type: Literal["pane"]
    paneID: str


class ListReply(TypedDict):
    type: Literal["list"]
    panes: list[PaneEntry]


class ContentReply(TypedDict):
    type: Literal["content"]
    content: PaneContent


class WaitResultReply(TypedDict):
    type: Literal["waitResult"]
    state: str | None
    timedOut: bool


class EventsReply(TypedDict):
    type: Literal["events"]
    records: list[EventRecord]
    latestSequence: int
    timedOut: bool
    truncated: NotRequired[bool]


class AttentionReply(TypedDict):
    type: Literal["attention"]
    items: list[AttentionEntry]


class MemoryCapEntry(TypedDict):
    """``agent spawn`` with ``[admission] worker_memory_max_mb`` set: is the cap enforced?"""

    maxMB: int
    enforced: bool
    #: ``systemd-run`` or ``cgroup``; null when not enforced.
    method: str | None
    detail: str


class AgentJobReply(TypedDict):
    type: Literal["agentJob"]
    job: JobSnapshot
    #: Where an ``auto`` worker went when not next to its lead (a mytty addition).
    placement: NotRequired[str]
    #: ``agent spawn --key`` only (a mytty addition): true when the key's job came back.
    reused: NotRequired[bool]
    #: ``agent spawn`` with a per-worker memory cap configured (a mytty addition).
    memoryCap: NotRequired[MemoryCapEntry]


class LeadCostEntry(TypedDict):
    """One lead's cost (``agent list``, a mytty addition): its own agent's, its workers'."""

    paneID: str
    ownCostUsd: float | None
    workersCostUsd: float | None
    costUsd: float | None


class AgentJobsReply(TypedDict):
    type: Literal["agentJobs"]
    jobs: list[JobSnapshot]
    #: mytty's addition: the listed jobs' ``usage`` added up (``model`` null), when any has one.
    usage: NotRequired[TokenUsageEntry]
    #: mytty's addition: the listed jobs' ``costUsd`` added up (null if one is unknown).
    costUsd: NotRequired[float | None]
    #: mytty's addition: the lead's cost, when the list is one lead's.
    lead: NotRequired[LeadCostEntry]


class AgentWaitResultReply(TypedDict):
    type: Literal["agentWaitResult"]
    job: JobSnapshot
    #: A wait on several jobs only (a mytty addition): every job's snapshot, in request order.
    jobs: NotRequired[list[JobSnapshot]]
    timedOut: bool


class AgentResultReply(TypedDict):
    type: Literal["agentResult"]
    job: JobSnapshot
    content: PaneContent
    #: Ours: the bound run's final answer from its Stop hook (null when none was reported).
    lastAssistantMessage: str | None


class IntegrationStatusesReply(TypedDict):
    type: Literal["integrationStatuses"]
    integrations: list[IntegrationEntry]


class EnvReply(TypedDict):
    type: Literal["env"]
    paneID: str
    environment: dict[str, str]


class HostError(TypedDict):
    code: str
    message: str


class HostEntry(TypedDict):
    """One host of the ``hosts`` reply (mytty's addition; docs/reference/hosts.md)."""

    name: str
    ssh: str
    #: connecting, current or stale
    state: str
    since: str
    lastSeen: str | None
    version: str | None
    rttMs: float | None
    agents: int | None
    attention: int | None
    error: HostError | None
    #: Its open attention items: ``attention`` entries with qualified ids and ``host``.
    items: list[dict[str, object]]


class HostsReply(TypedDict):
    type: Literal["hosts"]
    hosts: list[HostEntry]


class SessionReply(TypedDict):
    """``ensureSession`` (used by ``mytty up``)."""

    type: Literal["session"]
    name: str
    tmuxSocket: str


class ApprovalEntry(TypedDict):
    """One permission request (``approval list``/``answer``, ``mytty approvals``, the log).

    ``action`` is the command, else the paths, else the tool's name: what a person reads;
    ``command``/``paths``/``diff`` are the parts. ``holdUntil`` is null when the hook did not
    wait; ``holdLeftSeconds`` is null once the hold is over.
    """

    id: str
    paneID: str
    location: str | None
    jobID: str | None
    label: str | None
    runID: str
    provider: str
    tool: str
    action: str
    command: str | None
    paths: list[str]
    diff: str | None
    description: str | None
    cwd: str | None
    truncated: bool
    approver: str
    state: str
    requestedAt: str
    holdUntil: str | None
    ageSeconds: float
    holdLeftSeconds: float | None
    decision: str | None
    message: str | None
    decidedBy: str | None
    session: str | None
    decidedAt: str | None
    latencyMs: int | None
    deliveredBy: str | None
    rule: str | None


class ApprovalsReply(TypedDict):
    type: Literal["approvals"]
    approvals: list[ApprovalEntry]


class ApprovalReply(TypedDict):
    """``approval answer``: the request with its decision."""

    type: Literal["approval"]
    approval: ApprovalEntry
    #: ``--always``: the rule written to config.toml (its table), else null.
    rule: dict[str, str] | None


class ApprovalLogReply(TypedDict):
    type: Literal["approvalLog"]
    entries: list[ApprovalEntry]


class ApprovalRuleReply(TypedDict):
    """``proposeApprovalRule``: the narrowest rule that would have allowed the request."""

    type: Literal["approvalRule"]
    rule: dict[str, str]
    toml: str
    configFile: str


# -- explain (a mytty addition) ----------------------------------------------------------------


class ExplainRun(TypedDict):
    """The run an explained state comes from."""

    runID: str
    provider: str
    state: str
    sessionID: str | None
    startedAt: str | None
    updatedAt: str | None
    message: str | None
    acceptedEventCount: int


class ExplainEvidence(TypedDict):
    """One stored event of an explanation, with its source and its effect on its run."""

    sequence: int
    occurredAt: str
    runID: str
    provider: str
    kind: str
    source: str
    hookName: NotRequired[str]
    toolName: NotRequired[str]
    message: NotRequired[str]
    what: str
    effect: str | None
    shownRun: bool


class ExplainForeground(TypedDict):
    """The pane's foreground now: ``pid`` null when its shell is at its prompt."""

    pid: int | None
    command: str | None
    agent: str | None
    agentPID: int | None
    agentStartedAt: str | None


class ExplainEpoch(TypedDict):
    """Native estimation's epoch for the pane."""

    provider: str
    pid: int
    phase: str
    hookCovered: bool
    turnMode: bool
    activeTurn: str | None
    runID: str


class ExplainShell(TypedDict):
    lastExitStatus: int | None
    lastExitAt: str | None
    commandCount: int


class ExplainTranscript(TypedDict):
    path: str | None
    turn: str | None
    phase: str | None


class ExplainObserved(TypedDict):
    """What the controller sees of the pane now (all null for a pane that is gone)."""

    paneAlive: bool
    foreground: ExplainForeground | None
    epoch: ExplainEpoch | None
    shell: ExplainShell | None
    transcript: ExplainTranscript | None
    integrations: dict[str, str]
    codexSession: NotRequired[str]
    unplacedCodexEvents: NotRequired[int]


class ExplainStep(TypedDict):
    """One way the state could change next; ``kind`` null when no event causes it."""

    kind: str | None
    state: str
    by: list[str]


class ExplainWarning(TypedDict):
    code: str
    message: str


class ExplainFollowing(TypedDict):
    """Who moves the shown run: its hooks, native estimation (``perTurn``: from the transcript)."""

    hooks: bool
    nativeEstimation: bool
    perTurn: bool


class ExplanationReply(TypedDict):
    """``explain``: why a pane or job shows what it shows (a mytty addition)."""

    type: Literal["explanation"]
    target: str
    paneID: str
    jobID: NotRequired[RawValue]
    state: str | None
    summary: str
    following: ExplainFollowing | None
    job: NotRequired[JobSnapshot]
    run: ExplainRun | None
    evidence: list[ExplainEvidence]
    observed: ExplainObserved
    next: list[ExplainStep]
    warnings: list[ExplainWarning]


#: Anything a control command handler may answer with.
Reply = (
    OkReply
    | AgentCloseReply
    | FailureReply
    | PaneReply
    | ListReply
    | ContentReply
    | WaitResultReply
    | EventsReply
    | AttentionReply
    | AgentJobReply
    | AgentJobsReply
    | AgentWaitResultReply
    | AgentResultReply
    | IntegrationStatusesReply
    | EnvReply
    | SessionReply
    | ApprovalsReply
    | ApprovalReply
    | ApprovalLogReply
    | ApprovalRuleReply
    | HostsReply
    | ExplanationReply
)


# -- event socket ------------------------------------------------------------------------------


class AgentEventWire(TypedDict):
    """The ``event`` of an envelope (optional fields omitted when absent)."""

    schemaVersion: int
    id: RawValue
    runID: RawValue
    sessionID: NotRequired[str]
    surfaceID: RawValue
    provider: str
    kind: str
    occurredAt: str
    message: NotRequired[str]
    hookName: NotRequired[str]
    toolUseID: NotRequired[str]
    toolName: NotRequired[str]
    #: Ours: Stop's final answer, clipped by the hook helper to fit the envelope.
    lastAssistantMessage: NotRequired[str]


class HeldApproval(TypedDict):
    """The ``approval`` of an accepted envelope that carried one (a PermissionRequest hook):
    ``decision`` (``allow``/``deny``, with ``message``) when it is decided at once (a rule);
    else ``holdSeconds``: how long the connection stays open for the decision line
    (:class:`DecisionLine`), 0 when it does not."""

    id: str
    decision: NotRequired[str]
    message: NotRequired[str]
    holdSeconds: NotRequired[float]


class EventAccepted(TypedDict):
    ok: Literal[True]
    inserted: bool
    #: A mytty extension: lead notices for the agent, when the envelope had ``leadNotices``.
    notice: NotRequired[str]
    #: A mytty extension: the broker's answer to a PermissionRequest hook.
    approval: NotRequired[HeldApproval]


class DecisionLine(TypedDict):
    """The second line of a held PermissionRequest: ``decision`` null = none (the agent's own
    dialog decides)."""

    decision: str | None
    message: NotRequired[str]


class EventRejected(TypedDict):
    ok: Literal[False]
    error: str


EventReply = EventAccepted | EventRejected
