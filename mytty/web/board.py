"""The board: what the page shows, made from one :class:`~mytty.web.control.Snapshot`.

Pure: plain values in, frozen cards out, no clock (ages are rendered later against a time the
caller gives). Equal snapshots give equal boards, so the server pushes only real changes.

- **Approvals** (``approval list``): every open permission request, oldest first, with the
  exact action (command, paths, diff summary) — answered through the approvals broker.
- **Questions**: open ``input-request`` attention items of panes that still exist, oldest
  first; ``answerable`` while the pane's agent (or its job) is ``waiting-input``.
- **Agents**: every pane that runs or ran an agent (a provider or a job), grouped by tmux
  session; inside a group and among groups, the ones that need a person come first
  (approval, input, failure, parked), then by place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mytty.web.control import Place, Snapshot

#: What each state asks of a person, and how urgent it is (lower first).
NEEDS: Mapping[str, tuple[int, str]] = {
    "waiting-approval": (0, "approval"),
    "waiting-input": (1, "input"),
    "failed": (2, "failure"),
    "launch-failed": (2, "failure"),
    "parked": (3, "parked"),
}
_CALM = 9


@dataclass(frozen=True, slots=True)
class AgentCard:
    pane_id: str
    job_id: str | None
    provider: str
    state: str
    label: str | None
    note: str | None
    message: str | None
    command: str
    location: str | None
    since: float | None
    tokens: int | None
    cost_usd: float | None
    need: str | None

    @property
    def urgency(self) -> int:
        return NEEDS.get(self.state, (_CALM, ""))[0]


@dataclass(frozen=True, slots=True)
class ApprovalCard:
    id: str
    pane_id: str | None
    job_id: str | None
    label: str | None
    location: str | None
    provider: str
    tool: str
    action: str
    command: str | None
    paths: tuple[str, ...]
    diff: str | None
    description: str | None
    cwd: str | None
    state: str
    requested_at: str | None
    hold_until: str | None
    #: The broker kept only the start of a very long action (the pane has all of it).
    truncated: bool = False
    #: ``lead``: the worker's lead may answer it too (a person always may).
    approver: str = "human"


@dataclass(frozen=True, slots=True)
class QuestionCard:
    run_id: str
    pane_id: str
    job_id: str | None
    label: str | None
    location: str | None
    provider: str
    question: str | None
    asked_at: str
    answerable: bool


@dataclass(frozen=True, slots=True)
class Group:
    session: str
    agents: tuple[AgentCard, ...]


@dataclass(frozen=True, slots=True)
class Board:
    approvals: tuple[ApprovalCard, ...] = ()
    questions: tuple[QuestionCard, ...] = ()
    groups: tuple[Group, ...] = ()
    problem: str | None = None

    @property
    def agent_count(self) -> int:
        return sum(len(g.agents) for g in self.groups)

    @property
    def waiting_count(self) -> int:
        return sum(1 for g in self.groups for a in g.agents if a.need)


def _raw(value: object) -> str | None:
    """An id that may come wrapped (``{"rawValue": …}``), upper-cased."""
    if isinstance(value, dict):
        value = value.get("rawValue")
    return value.upper() if isinstance(value, str) and value else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def newest_jobs(jobs: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each pane's newest job (``agent list`` is oldest first)."""
    by_pane: dict[str, dict[str, Any]] = {}
    for job in jobs:
        pane = _raw(job.get("paneID"))
        if pane is not None:
            by_pane[pane] = job
    return by_pane


def agent_of(
    pane: dict[str, Any] | None, job: dict[str, Any] | None, place: Place | None
) -> AgentCard:
    """The card of a pane (its ``list`` entry) and its newest job; either may be missing (a
    job whose pane is gone, a pane whose agent no job started)."""
    pane = pane or {}
    state = _text(job.get("state")) if job else None
    state = state or _text(pane.get("agentState")) or "unknown"
    usage = job.get("usage") if job else None
    cost = job.get("costUsd") if job else None
    pane_id = _text(pane.get("paneID")) or (_raw(job.get("paneID")) if job else None) or ""
    return AgentCard(
        pane_id=pane_id.upper(),
        job_id=_raw(job.get("jobID")) if job else None,
        provider=_text(job.get("provider") if job else None) or _text(pane.get("provider")) or "",
        state=state,
        label=_text(job.get("label")) if job else None,
        note=_text(pane.get("statusNote")) or (_text(job.get("statusNote")) if job else None),
        message=_text(job.get("message")) if job else None,
        command=_text(pane.get("command")) or "",
        location=place.location if place else None,
        since=place.since if place else None,
        tokens=_int(usage.get("totalTokens")) if isinstance(usage, dict) else None,
        cost_usd=float(cost)
        if isinstance(cost, int | float) and not isinstance(cost, bool)
        else None,
        need=NEEDS[state][1] if state in NEEDS else None,
    )


def _approval(entry: dict[str, Any]) -> ApprovalCard:
    paths = entry.get("paths")
    return ApprovalCard(
        id=str(entry.get("id", "")),
        pane_id=_raw(entry.get("paneID")),
        job_id=_raw(entry.get("jobID")),
        label=_text(entry.get("label")),
        location=_text(entry.get("location")),
        provider=_text(entry.get("provider")) or "",
        tool=_text(entry.get("tool")) or "",
        action=_text(entry.get("action")) or "",
        command=_text(entry.get("command")),
        paths=tuple(p for p in paths if isinstance(p, str)) if isinstance(paths, list) else (),
        diff=_text(entry.get("diff")),
        description=_text(entry.get("description")),
        cwd=_text(entry.get("cwd")),
        state=_text(entry.get("state")) or "",
        requested_at=_text(entry.get("requestedAt")),
        hold_until=_text(entry.get("holdUntil")),
        truncated=entry.get("truncated") is True,
        approver=_text(entry.get("approver")) or "human",
    )


def _question(
    item: dict[str, Any], agent: AgentCard, jobs: Mapping[str, dict[str, Any]]
) -> QuestionCard:
    job = jobs.get(agent.pane_id)
    run = str(item.get("runID", "")).upper()
    job_run = _raw(job.get("runID")) if job else None
    answerable = agent.state == "waiting-input" and (job is None or job_run in (None, run))
    return QuestionCard(
        run_id=run,
        pane_id=agent.pane_id,
        job_id=agent.job_id,
        label=agent.label or _text(item.get("label")),
        location=agent.location or _text(item.get("location")),
        provider=_text(item.get("provider")) or agent.provider,
        question=_text(item.get("message")),
        asked_at=str(item.get("createdAt", "")),
        answerable=answerable,
    )


def _session_of(pane: dict[str, Any], place: Place | None) -> str:
    return place.session if place else f"session {pane.get('windowID', '?')}"


def build(snapshot: Snapshot) -> Board:
    """The board of ``snapshot`` (see the module docstring)."""
    if snapshot.problem is not None:
        return Board(problem=snapshot.problem)
    jobs = newest_jobs(snapshot.jobs)
    agents: dict[str, AgentCard] = {}
    sessions: dict[str, str] = {}
    for pane in snapshot.panes:
        surface = str(pane.get("paneID", "")).upper()
        job = jobs.get(surface)
        if not surface or (job is None and "provider" not in pane):
            continue  # a plain shell: no agent to show
        place = snapshot.places.get(surface)
        agents[surface] = agent_of(pane, job, place)
        sessions[surface] = _session_of(pane, place)
    grouped: dict[str, list[AgentCard]] = {}
    for surface, card in agents.items():
        grouped.setdefault(sessions[surface], []).append(card)
    groups = [
        Group(name, tuple(sorted(cards, key=lambda c: (c.urgency, c.location or "", c.pane_id))))
        for name, cards in grouped.items()
    ]
    groups.sort(key=lambda g: (min(c.urgency for c in g.agents), g.session))
    questions = [
        _question(item, agents[str(item.get("paneID", "")).upper()], jobs)
        for item in snapshot.attention
        if item.get("kind") == "input-request"
        and not item.get("resolvedAt")
        and str(item.get("paneID", "")).upper() in agents
    ]
    questions.sort(key=lambda q: q.asked_at)
    approvals = [_approval(e) for e in snapshot.approvals if e.get("id")]
    approvals.sort(key=lambda a: a.requested_at or "")
    return Board(
        approvals=tuple(approvals),
        questions=tuple(questions),
        groups=tuple(groups),
    )
