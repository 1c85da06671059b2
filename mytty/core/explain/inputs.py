"""What the explanation builder is given: the pane's runs, the job, the last stored events and
what the controller sees in the pane now. The controller gathers them (``mytty.daemon.explain.evidence``);
this module also chooses which runs' events are worth reading, so that an explanation costs a
few indexed reads whatever the history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from mytty.core.events import AgentEvent, AgentProvider
from mytty.core.explain.sources import RESUME_HOOK_NAME
from mytty.core.ids import RunId, SurfaceId, stable_uuid
from mytty.core.jobs.tracker import AgentJob
from mytty.core.runs.run import AgentRun, updated_or_past

#: Stored events read per run (the newest ones).
EVENTS_PER_RUN = 20
#: Runs whose events are read for one explanation.
MAX_RUNS_READ = 8
#: The newest runs of the shown run's provider that are read (the "last turns" the warnings
#: look at).
RECENT_TURNS = 3


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as the store holds it: its arrival order (``sequence``) and its fields."""

    sequence: int
    event: AgentEvent


@dataclass(frozen=True, slots=True)
class EventWindow:
    """The newest stored events of some runs, oldest first.

    ``truncated``: runs that have more stored events than were read (their first events, and
    so the effect of each event read, are unknown).
    """

    events: tuple[StoredEvent, ...] = ()
    truncated: frozenset[RunId] = frozenset()
    #: Why the store could not be read (None: it was).
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Foreground:
    """The pane's foreground as ``/proc`` shows it now.

    ``process`` None: the pane's own shell is in front (nothing runs). ``provider`` None: what
    runs is no agent mytty can name. ``agent_pid``: the agent's own process (below a wrapper
    shell when found through one); ``command``: the foreground process's name.
    """

    process: int | None
    command: str | None = None
    provider: AgentProvider | None = None
    agent_pid: int | None = None
    #: When the agent's process started (Unix seconds; None: unknown or no agent).
    agent_started_at: float | None = None


@dataclass(frozen=True, slots=True)
class EpochView:
    """Native estimation's epoch for the pane (see ``mytty.core.estimation.epochs``)."""

    provider: AgentProvider
    pid: int
    phase: str  # pending-start | started | ended
    covered: bool  # its provider's hooks reported: it went silent for good
    turn_mode: bool
    active_turn: str | None
    run_id: RunId


@dataclass(frozen=True, slots=True)
class ShellView:
    """The pane's shell as its shell integration last reported (OSC 133 D lines)."""

    last_exit_status: int | None
    last_exit_at: float | None
    command_count: int


@dataclass(frozen=True, slots=True)
class TranscriptView:
    """The agent's transcript as last read: which file, and the turn it shows."""

    path: str | None
    turn: str | None = None
    phase: str | None = None  # active | completed | interrupted | failed


@dataclass(frozen=True, slots=True)
class Observations:
    """What the controller sees of the pane now (everything None for a pane that is gone)."""

    pane_alive: bool
    foreground: Foreground | None = None
    epoch: EpochView | None = None
    shell: ShellView | None = None
    transcript: TranscriptView | None = None
    #: The Codex session codex routing placed on this pane (None: none bound).
    codex_session: str | None = None
    #: Codex hook events refused (placed on no pane) lately: since the agent's start, else the
    #: job's spawn, else the last ten minutes.
    unplaced_codex_events: int = 0


@dataclass(frozen=True, slots=True)
class ExplainInputs:
    """Everything :func:`mytty.core.explain.build.explain` reads. ``job`` is reconciled now;
    ``by_job``: the caller named the job (else the pane)."""

    surface_id: SurfaceId
    runs: tuple[AgentRun, ...]
    window: EventWindow
    observations: Observations
    now: float
    job: AgentJob | None = None
    by_job: bool = False
    #: The pane's most relevant run (what ``list`` shows for it), None when it has none.
    relevant: RunId | None = None
    #: Integration status (installed | needs-repair | not-installed) of the providers involved.
    integrations: Mapping[AgentProvider, str] = field(default_factory=lambda: MappingProxyType({}))


def resume_run_ids(job: AgentJob) -> list[RunId]:
    """The runs ``mytty resume`` recorded its resumptions of ``job`` on (one per resumption,
    the formula of ``mytty.daemon.jobs.resume``)."""
    times = job.launch.resumed if job.launch is not None else 0
    return [
        RunId(stable_uuid("run", RESUME_HOOK_NAME, job.job_id, str(n))) for n in range(1, times + 1)
    ]


def shown_run(
    runs: Sequence[AgentRun], job: AgentJob | None, relevant: RunId | None
) -> AgentRun | None:
    """The run the state comes from: the job's bound run when a job is explained, else the
    pane's most relevant run (``relevant``, as ``list`` picks it)."""
    wanted = job.run_id if job is not None else relevant
    return next((r for r in runs if r.id == wanted), None) if wanted is not None else None


def runs_to_read(
    shown: AgentRun | None, runs: Sequence[AgentRun], job: AgentJob | None
) -> list[RunId]:
    """Which runs' events an explanation reads, most important first, at most
    :data:`MAX_RUNS_READ`: the shown run (and the turns folded into it), the job's resumption
    records, the newest :data:`RECENT_TURNS` runs of its provider (or of the job's), then the
    newest of the other runs of the pane."""
    wanted: list[RunId] = []
    if shown is not None:
        wanted += [shown.id, *sorted(shown.continuations)]
    elif job is not None and job.run_id is not None:
        wanted.append(job.run_id)  # bound, though the run left the books
    if job is not None:
        wanted += reversed(resume_run_ids(job))
    provider = shown.provider if shown is not None else None
    if provider is None and job is not None:
        provider = job.provider.agent_provider
    newest = sorted(runs, key=lambda r: (updated_or_past(r), r.id), reverse=True)
    wanted += [r.id for r in newest if r.provider is provider][:RECENT_TURNS]
    wanted += [r.id for r in newest]
    return list(dict.fromkeys(wanted))[:MAX_RUNS_READ]
