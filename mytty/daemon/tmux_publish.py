"""Agent state published into tmux as user options, so any tmux format can read it.

Every pane that has agent state (a run, a job, a note or an attention item) carries the pane
options of :data:`PANE_OPTIONS`; every user session carries ``@mytty_attention_count`` (its
panes' open items) and the server ``@mytty_attention_total`` (every open item). Readers —
``pane-border-format``, ``status-right``, ``list-panes -F``, other tools — need no IPC with
the controller: tmux holds the values (see docs/reference/tmux-options.md).

How it stays cheap (the event path must not get slower):

- nothing runs inside event handling: the publisher waits on the hub's change signal (one
  parked waiter, woken by ``bump``) in a task of its own;
- a wake-up recomputes the desired values from the books, compares them with what it last
  wrote, and sends only the differences, as one pipelined batch over the control connection
  (no fork per update);
- bursts coalesce: changes that arrive while a batch is in flight, or within
  :data:`MIN_FLUSH_GAP_S` of the previous one, are folded into the next batch.

After a reconnect (a new port object) everything is written again; at shutdown every option
it set is removed, so a stopped controller leaves no stale state in the user's status line.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import partial

from mytty.core.attention.items import AttentionItem, AttentionKind, need_word
from mytty.core.errors import MyttyError
from mytty.core.ids import SurfaceId
from mytty.core.jobs.tracker import AgentJob
from mytty.core.runs.run import AgentRun
from mytty.core.vocab import QUEUED, RUNNING, WAITING_INPUT
from mytty.daemon.agents import AgentHub
from mytty.daemon.panes.identity import PaneRegistry
from mytty.protocol.limits import MAX_WAIT_S
from mytty.protocol.replies import CostPart, ResourcePart
from mytty.tmux.port import PRIVATE_SESSION, OptionScope, OptionUpdate, TmuxPort

log = logging.getLogger(__name__)

PROVIDER = "@mytty_provider"
STATE = "@mytty_state"
JOB = "@mytty_job"
LABEL = "@mytty_label"
NOTE = "@mytty_note"
ATTENTION = "@mytty_attention"
#: Unix time (whole seconds) of the pane's last state change: what `mytty ls` shows as age.
SINCE = "@mytty_since"
#: Tokens the pane's job has used so far (input + output + cache), read from its transcripts.
TOKENS = "@mytty_tokens"
#: What those tokens cost in US dollars (empty when unknown: a model without a price).
COST = "@mytty_cost"
#: Resident bytes (in whole MiB) and CPU percent (whole) of the pane's processes, while they are
#: being sampled (someone reads them, or admission needs them); empty otherwise. Rounded so
#: that a steady worker's options do not change every second.
RSS = "@mytty_rss"
CPU = "@mytty_cpu"
PANE_OPTIONS = (PROVIDER, STATE, JOB, LABEL, NOTE, ATTENTION, SINCE, TOKENS, COST, RSS, CPU)
#: Session option: open attention items of the session's panes.
SESSION_COUNT = "@mytty_attention_count"
#: Global option: every open attention item (closed panes' included).
TOTAL_COUNT = "@mytty_attention_total"

#: When two items of one pane are open, the one that blocks the agent is named.
_URGENCY = {
    AttentionKind.APPROVAL_REQUEST: 0,
    AttentionKind.INPUT_REQUEST: 1,
    AttentionKind.FAILURE: 2,
    AttentionKind.LAUNCH_FAILURE: 3,
    AttentionKind.DISCONNECT: 4,
    AttentionKind.BUDGET: 5,
    AttentionKind.RESUME_STOPPED: 5,
    AttentionKind.USAGE_LIMIT: 6,
    AttentionKind.COMPLETION: 7,
}

#: What an option written by somebody else (an earlier controller) counts as: never a value.
_UNKNOWN = "\x00unknown"

#: Batches are at least this far apart (seconds): a burst of events costs one batch per gap.
MIN_FLUSH_GAP_S = 0.02


@dataclass(frozen=True, slots=True)
class PaneFacts:
    """What the publisher knows about one live pane."""

    surface_id: SurfaceId
    tmux_id: str
    session_name: str
    run: AgentRun | None
    job: AgentJob | None
    note: str | None
    tokens: int | None = None  # the job's total tokens, when its transcripts said any
    cost_usd: float | None = None  # what they cost, when known
    rss_bytes: int | None = None  # the pane's processes, while sampled
    cpu_percent: float | None = None


Key = tuple[OptionScope, str, str]


def _clean(text: str | None) -> str:
    """One line of printable text (tmux's command line takes no control characters)."""
    if not text:
        return ""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def pane_values(facts: PaneFacts, open_items: list[AttentionItem]) -> dict[str, str] | None:
    """The pane options of one pane, or None when it has no agent state at all."""
    run, job = facts.run, facts.job
    if run is None and job is None and not facts.note and not open_items:
        return None
    provider = run.provider.value if run is not None else ""
    if not provider and job is not None:
        provider = job.provider.agent_provider.value
    state = run.state.value if run is not None else (job.state.value if job is not None else "")
    if job is not None and job.state.value == QUEUED:
        state = QUEUED  # its worker has not started: whatever ran in the pane before is over
    elif job is not None and job.state.value == WAITING_INPUT and state == RUNNING:
        # The job saw what the run cannot: its agent waits at a sign-in screen (issue 26, 2).
        state = WAITING_INPUT
    if job is not None and job.state.value == "parked":
        state = "parked"  # the job waits for its limit's reset, whatever its parked run does
    need = ""
    if open_items:
        first = min(open_items, key=lambda i: (_URGENCY.get(i.kind, 9), -i.created_at))
        need = need_word(first.kind.value)
    since = run.updated_at if run is not None and run.updated_at is not None else None
    return {
        PROVIDER: provider,
        STATE: state,
        JOB: job.job_id if job is not None else "",
        LABEL: _clean(job.label if job is not None else None),
        NOTE: _clean(facts.note),
        ATTENTION: need,
        SINCE: str(int(since)) if since is not None else "",
        TOKENS: str(facts.tokens) if facts.tokens is not None else "",
        COST: f"{facts.cost_usd:.6f}" if facts.cost_usd is not None else "",
        RSS: str(rss * MIB) if (rss := _mib(facts.rss_bytes)) is not None else "",
        CPU: str(round(facts.cpu_percent)) if facts.cpu_percent is not None else "",
    }


MIB = 1024 * 1024


def _mib(count: int | None) -> int | None:
    return None if count is None else count // MIB


def published_figures(figures: ResourcePart) -> tuple[int | None, int | None]:
    """The figures as the options show them: (MiB, whole percent)."""
    cpu = figures.get("cpuPercent")
    return _mib(figures.get("rssBytes")), round(cpu) if cpu is not None else None


def desired_options(
    panes: Iterable[PaneFacts], open_items: Iterable[AttentionItem]
) -> dict[Key, str]:
    """Every option the publisher wants set now, keyed by (scope, target, name).

    ``panes`` are the live user panes, ``open_items`` the actionable attention items (an item
    of a closed pane counts in the total only).
    """
    by_surface: dict[str, list[AttentionItem]] = {}
    total = 0
    for item in open_items:
        total += 1
        by_surface.setdefault(item.surface_id, []).append(item)
    out: dict[Key, str] = {}
    per_session: dict[str, int] = {}
    for facts in panes:
        items = by_surface.get(facts.surface_id, [])
        per_session[facts.session_name] = per_session.get(facts.session_name, 0) + len(items)
        values = pane_values(facts, items)
        if values is not None:
            for name, value in values.items():
                out[(OptionScope.PANE, facts.tmux_id, name)] = value
    for session, count in per_session.items():
        out[(OptionScope.SESSION, session, SESSION_COUNT)] = str(count)
    out[(OptionScope.GLOBAL, "", TOTAL_COUNT)] = str(total)
    return out


def diff(
    published: Mapping[Key, str], wanted: Mapping[Key, str], live_panes: Collection[str]
) -> list[OptionUpdate]:
    """The updates that turn ``published`` into ``wanted`` (unchanged values are skipped).

    An option no longer wanted is unset, except on a pane that is gone (not in
    ``live_panes``): tmux dropped its options with it.
    """
    updates = [
        OptionUpdate(scope, target, name, value)
        for (scope, target, name), value in wanted.items()
        if published.get((scope, target, name)) != value
    ]
    for scope, target, name in published.keys() - wanted.keys():
        if scope is OptionScope.PANE and target not in live_panes:
            continue
        updates.append(OptionUpdate(scope, target, name, None))
    return updates


class TmuxPublisher:
    """Keeps the ``@mytty_*`` options in step with the books (run it with :meth:`run`)."""

    def __init__(
        self,
        *,
        hub: AgentHub,
        panes: PaneRegistry,
        jobs_by_pane: Callable[[], Mapping[SurfaceId, AgentJob]],
        port: Callable[[], TmuxPort | None],
        tokens_of: Callable[[AgentJob], int | None] = lambda _job: None,
        cost_of: Callable[[AgentJob], CostPart] = lambda _job: {},
        resources_of: Callable[[AgentJob], ResourcePart] = lambda _job: {},
        gap: float = MIN_FLUSH_GAP_S,
    ) -> None:
        self._hub = hub
        self._tokens_of = tokens_of
        self._cost_of = cost_of
        self._resources_of = resources_of
        self._panes = panes
        self._jobs_by_pane = jobs_by_pane
        self._port = port
        self._gap = gap
        #: What tmux holds now, as far as this publisher wrote it through ``_written_to``.
        self._published: dict[Key, str] = {}
        self._written_to: TmuxPort | None = None
        self.batches = 0

    def wanted(self) -> dict[Key, str]:
        hub = self._hub
        jobs = self._jobs_by_pane()
        facts = [
            self._facts(pane.surface_id, pane.tmux_id, pane.row.session_name, jobs)
            for pane in self._panes.panes()
            if pane.row is not None and pane.row.session_name != PRIVATE_SESSION
        ]
        open_items = [i for i in hub.attention.items(hub.now()) if i.actionable]
        return desired_options(facts, open_items)

    def _facts(
        self,
        surface_id: SurfaceId,
        tmux_id: str,
        session_name: str,
        jobs: Mapping[SurfaceId, AgentJob],
    ) -> PaneFacts:
        hub = self._hub
        job = jobs.get(surface_id)
        cost: CostPart = self._cost_of(job) if job is not None else {}
        figures: ResourcePart = self._resources_of(job) if job is not None else {}
        return PaneFacts(
            surface_id=surface_id,
            tmux_id=tmux_id,
            session_name=session_name,
            run=hub.book.most_relevant(surface_id),
            job=job,
            note=hub.notes.get(surface_id),
            tokens=self._tokens_of(job) if job is not None else None,
            cost_usd=cost.get("costUsd"),
            rss_bytes=figures.get("rssBytes"),
            cpu_percent=figures.get("cpuPercent"),
        )

    async def flush(self) -> int:
        """Write what changed since the last flush; returns how many updates were sent."""
        port = self._port()
        if port is None:
            return 0
        if port is not self._written_to:  # a new connection (maybe a new server): write all
            # A controller that crashed left its values behind: every pane's options count as
            # unknown, so the ones no longer wanted are unset and the others written again.
            self._published = {
                (OptionScope.PANE, pane.tmux_id, name): _UNKNOWN
                for pane in self._panes.panes()
                for name in PANE_OPTIONS
            }
            self._written_to = port
        wanted = self.wanted()
        live = {pane.tmux_id for pane in self._panes.panes()}
        updates = diff(self._published, wanted, live)
        if not updates:
            return 0
        try:
            await port.set_user_options(updates)
        except MyttyError as exc:  # the connection went; the next one rewrites everything
            log.debug("could not publish agent state to tmux: %s", exc)
            self._written_to = None
            return 0
        self._published = wanted
        self.batches += 1
        return len(updates)

    async def run(self) -> None:
        """Flush on every change of the books or the panes, forever."""
        loop = asyncio.get_running_loop()
        while True:
            seen = self._hub.version
            started = loop.time()
            try:
                await self.flush()
            except Exception:  # never let one bad value stop the publishing
                log.exception("publishing agent state to tmux failed")
            await self._hub.wait_until(partial(self._changed_since, seen), MAX_WAIT_S)
            # Coalesce: whatever else changes during the gap goes into the same batch.
            remaining = started + self._gap - loop.time()
            if remaining > 0:
                await asyncio.sleep(remaining)

    def _changed_since(self, version: int) -> bool | None:
        return True if self._hub.version != version else None

    async def clear(self) -> None:
        """Remove the options from every pane, session and the server (at shutdown).

        Everything that could carry them, not only what the last finished batch recorded: a
        batch cut off by the shutdown may have written more.
        """
        port = self._port()
        if port is None:
            return
        keys = set(self._published)
        for pane in self._panes.panes():
            keys.update((OptionScope.PANE, pane.tmux_id, name) for name in PANE_OPTIONS)
            if pane.row is not None:
                keys.add((OptionScope.SESSION, pane.row.session_name, SESSION_COUNT))
        keys.add((OptionScope.GLOBAL, "", TOTAL_COUNT))
        updates = [OptionUpdate(scope, target, name, None) for scope, target, name in keys]
        try:
            await port.set_user_options(updates)
        except MyttyError:
            pass
        self._published = {}
