"""Token usage and cost per job, and ``agent spawn --budget-tokens`` / ``--budget-usd``.

A job's figures are its pane's: ``agent spawn`` always opens a fresh pane, so whatever the
transcripts read in that pane (:class:`~mytty.daemon.transcripts.reader.TranscriptReader`) is the
worker's. The reader calls :meth:`UsageBook.pane_usage` whenever a pane's reading changes; the
book gives the reading to the newest job of that pane and checks its budget:

- at 80 % of the budget a ``budget`` attention item is raised (once);
- at 100 % mytty interrupts the worker with Esc through the ``send-key`` path (once, and only
  while the job is still working), and raises a second item saying so.

Each reading's new tokens are priced as they arrive, at the model the transcript names for
them (:mod:`mytty.core.cost.pricing`; the shipped table plus config.toml's ``[prices]``), so a
job's ``costUsd`` is exact and an unknown model makes it null. A dollar budget works like the
token one, and its 80 % warning also reaches the lead agent as a lead notice (at its next
prompt, :mod:`mytty.daemon.jobs.lead_inbox`), whether or not the job has ``--notify-lead``.

A pane that has no job (a lead agent) gets its own cost too, counted from the controller's
start: a lead's cost is its own plus its workers' (``agent list``).

Each job's figures, cost, budget stages and what its lead was told are stored (``job_usage``
in the event store), so a restart keeps them: after a restart the transcripts are read again
from their tails, and only what they gain is added to the stored figures. What they gained is
counted from the pane's reading stored with the figures when the first reading after the
restart covers it (the worker may have written more while the controller was down, or before
its reader's first look), else from that first reading (a file longer than the tail, or one
of several files: never more than the worker spent).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from mytty.core.cost.prices import PRICES, ModelPrice
from mytty.core.cost.pricing import (
    USD_BUDGET_WARN_PERCENT,
    ZERO_USD,
    add_cost,
    total,
    usd,
    usd_budget_stage,
)
from mytty.core.events import AgentProvider
from mytty.core.ids import SurfaceId, stable_uuid
from mytty.core.jobs import tracker as core_jobs
from mytty.core.jobs.tracker import AgentJob
from mytty.core.transcripts.usage import (
    BUDGET_WARN_PERCENT,
    ZERO,
    TokenUsage,
    UsageReading,
    budget_stage,
    count,
)
from mytty.daemon.agents import AgentHub
from mytty.daemon.store import EventStore, StoreError
from mytty.protocol import wire
from mytty.protocol.replies import CostPart, TokenUsageEntry

log = logging.getLogger(__name__)

USAGE_RECORD_VERSION = 1


@dataclass(frozen=True, slots=True)
class JobUsage:
    """One job's figures as ``agent wait/result/list`` report them."""

    tokens: TokenUsage = ZERO
    model: str | None = None
    #: budget_stage already acted on (0 none, 1 warned at 80 %, 2 interrupted at 100 %).
    stage: int = 0
    #: What the figures stood at when they were restored (see the module docstring).
    stored: TokenUsage = ZERO
    #: The pane's reading when the job was restored; None until the first one arrives.
    base: TokenUsage | None = ZERO
    #: The pane's latest reading (stored: after a restart, the base if the first reading
    #: covers it); None when not known (a record from before it was stored).
    reading: TokenUsage | None = None
    #: What the tokens cost so far (None: a model without a price spent some).
    cost: Decimal | None = ZERO_USD
    #: usd_budget_stage already acted on, and the stage its lead was told of.
    usd_stage: int = 0
    usd_told: int = 0


def encode_usage(usage: JobUsage) -> str:
    t, r = usage.tokens, usage.reading
    return json.dumps(
        {
            "v": USAGE_RECORD_VERSION,
            "tokens": [t.input, t.output, t.cache_read, t.cache_write],
            "reading": [r.input, r.output, r.cache_read, r.cache_write] if r is not None else None,
            "model": usage.model,
            "stage": usage.stage,
            "cost": str(usage.cost) if usage.cost is not None else None,
            "usdStage": usage.usd_stage,
            "usdTold": usage.usd_told,
        },
        separators=(",", ":"),
    )


def decode_usage(text: str) -> JobUsage | None:
    """A stored record (restored: its figures are the base new readings add to)."""
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict) or obj.get("v") != USAGE_RECORD_VERSION:
            return None
        tokens = _counters(obj["tokens"])
        if tokens is None:
            return None
        model, stage = obj.get("model"), obj.get("stage")
        return JobUsage(
            tokens=tokens,
            model=model if isinstance(model, str) else None,
            stage=_stage(stage),
            stored=tokens,
            base=None,
            reading=_counters(obj.get("reading")),
            # Records from before costs: none known for the tokens already spent.
            cost=_cost(obj["cost"], tokens) if "cost" in obj else (None if tokens else ZERO_USD),
            usd_stage=_stage(obj.get("usdStage", 0)),
            usd_told=_stage(obj.get("usdTold", 0)),
        )
    except (ValueError, KeyError, TypeError, InvalidOperation):
        return None


def _counters(raw: object) -> TokenUsage | None:
    if not isinstance(raw, list) or len(raw) != 4:
        return None
    return TokenUsage(*(count(v) for v in raw))


def _covers(reading: TokenUsage, earlier: TokenUsage) -> bool:
    """Whether ``reading`` holds at least ``earlier`` in every counter."""
    return (
        reading.input >= earlier.input
        and reading.output >= earlier.output
        and reading.cache_read >= earlier.cache_read
        and reading.cache_write >= earlier.cache_write
    )


def _stage(value: object) -> int:
    return value if isinstance(value, int) and value in (0, 1, 2) else 0


def _cost(value: object, tokens: TokenUsage) -> Decimal | None:
    """A stored cost (a record from before costs has none: unknown once it has tokens)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError("cost is not a decimal text")
    cost = Decimal(value)
    if not cost.is_finite() or cost < 0:
        raise ValueError("cost is not a dollar amount")
    return cost


def _fmt(n: int) -> str:
    return f"{n:,}"


class UsageBook:
    def __init__(
        self,
        *,
        hub: AgentHub,
        newest_job: Callable[[SurfaceId], AgentJob | None],
        interrupt: Callable[[SurfaceId], Awaitable[object]],
        store: EventStore | None = None,
        prices: Callable[[], Mapping[str, ModelPrice]] = lambda: PRICES,
    ) -> None:
        self._hub = hub
        self._newest_job = newest_job
        self._interrupt = interrupt
        self._store = store
        #: The price table in use (the shipped one plus config.toml's [prices]).
        self._prices = prices
        self._jobs: dict[str, JobUsage] = {}
        #: Panes without a job (lead agents): their last reading and what it cost since start.
        self._panes: dict[SurfaceId, tuple[TokenUsage, Decimal | None]] = {}
        self._tasks: set[asyncio.Future[object]] = set()

    # -- startup and spawn ----------------------------------------------------------------------
    def load(self, records: dict[str, str]) -> None:
        for job_id, text in records.items():
            usage = decode_usage(text)
            if usage is not None:
                self._jobs[job_id] = usage

    # -- reads ----------------------------------------------------------------------------------
    def get(self, job_id: str) -> JobUsage | None:
        usage = self._jobs.get(job_id)
        if usage is None or (not usage.tokens and usage.model is None):
            return None
        return usage

    def entry(self, job: AgentJob) -> TokenUsageEntry | None:
        """The job's ``usage`` for its snapshot (None: no figures and no budget yet)."""
        usage = self.get(job.job_id)
        if usage is None and job.budget_tokens is None and job.budget_usd is None:
            return None
        usage = usage or JobUsage()
        budget_usd = float(job.budget_usd) if job.budget_usd is not None else None
        return wire.token_usage(usage.tokens, usage.model, job.budget_tokens, budget_usd)

    def cost(self, job_id: str) -> Decimal | None:
        """What the job's tokens cost so far (0 with none; None: a model without a price)."""
        usage = self._jobs.get(job_id)
        return usage.cost if usage is not None else ZERO_USD

    def cost_entry(self, job: AgentJob) -> CostPart:
        """The job's ``costUsd``, present whenever its ``usage`` is."""
        if self.entry(job) is None:
            return {}
        cost = self.cost(job.job_id)
        return {"costUsd": usd(cost) if cost is not None else None}

    def lead_cost(
        self, lead: SurfaceId, workers: list[AgentJob]
    ) -> tuple[float | None, float | None, float | None]:
        """A lead's own cost (its own job's, else its pane's since the controller started),
        its workers' (jobs without figures, such as Cursor's, add nothing) and the sum."""
        own_job = self._newest_job(lead)
        own = self.cost(own_job.job_id) if own_job is not None else self.pane_cost(lead)
        theirs = total(self.cost(job.job_id) for job in workers)
        both = total([own, theirs])

        def shown(cost: Decimal | None) -> float | None:
            return usd(cost) if cost is not None else None

        return shown(own), shown(theirs), shown(both)

    def pane_cost(self, surface_id: SurfaceId) -> Decimal | None:
        """What a pane without a job (a lead) spent since the controller started."""
        return self._panes.get(surface_id, (ZERO, ZERO_USD))[1]

    # -- the reader's callback ------------------------------------------------------------------
    def pane_usage(self, surface_id: SurfaceId, reading: UsageReading) -> None:
        job = self._newest_job(surface_id)
        if job is None:
            self._lead_usage(surface_id, reading)
            return
        usage = self._jobs.get(job.job_id, JobUsage())
        base = usage.base
        if base is None:  # the first reading since the figures were restored
            known = usage.reading
            base = known if known is not None and _covers(reading.tokens, known) else reading.tokens
        tokens = usage.stored + (reading.tokens - base)
        model = reading.model or usage.model
        cost = add_cost(usage.cost, tokens - usage.tokens, model, self._prices())
        updated = replace(
            usage, tokens=tokens, model=model, base=base, cost=cost, reading=reading.tokens
        )
        updated = self._check_budget(job, updated)
        updated = self._check_usd_budget(job, updated)
        if updated != usage:
            self._set(job.job_id, updated)
            self._hub.bump(surface_id)  # `agent wait` replies carry the figures

    def _lead_usage(self, surface_id: SurfaceId, reading: UsageReading) -> None:
        last, cost = self._panes.get(surface_id, (reading.tokens, ZERO_USD))
        spent = reading.tokens - last
        self._panes[surface_id] = (
            reading.tokens,
            add_cost(cost, spent, reading.model, self._prices()),
        )

    def _check_budget(self, job: AgentJob, usage: JobUsage) -> JobUsage:
        budget = job.budget_tokens
        stage = budget_stage(usage.tokens.total, budget)
        if stage <= usage.stage or budget is None:
            return usage
        total = usage.tokens.total
        provider = job.provider.agent_provider
        now = self._hub.now()
        if stage == 1:  # a jump straight past 100 % raises only the item below
            percent = BUDGET_WARN_PERCENT
            message = f"Token budget {percent}% used: {_fmt(total)} of {_fmt(budget)} tokens"
            self._item(job, provider, str(percent), message, now)
        if stage >= 2:
            working = not core_jobs.is_terminal(job.state)
            message = f"Token budget used up: {_fmt(total)} of {_fmt(budget)} tokens" + (
                "; mytty interrupted the worker (Esc)" if working else ""
            )
            self._item(job, provider, "100", message, now)
            if working:
                log.info(
                    "job %s used its token budget (%d of %d): sending Esc",
                    job.job_id,
                    total,
                    budget,
                )
                self._spawn(self._interrupt(job.surface_id))
        return replace(usage, stage=stage)

    def _check_usd_budget(self, job: AgentJob, usage: JobUsage) -> JobUsage:
        """``--budget-usd``: at 80 % an item and a lead notice, at 100 % Esc and an item."""
        if job.budget_usd is None:
            return usage
        budget = Decimal(job.budget_usd)
        stage = usd_budget_stage(usage.cost, budget)
        if stage <= usage.usd_stage or usage.cost is None:
            return usage
        spent = f"${usd(usage.cost):,.2f} of ${budget:,.2f}"
        provider = job.provider.agent_provider
        now = self._hub.now()
        if stage == 1:
            message = f"Dollar budget {USD_BUDGET_WARN_PERCENT}% used: {spent}"
            self._item(job, provider, f"usd-{USD_BUDGET_WARN_PERCENT}", message, now)
        if stage >= 2:
            working = not core_jobs.is_terminal(job.state)
            message = f"Dollar budget used up: {spent}" + (
                "; mytty interrupted the worker (Esc)" if working else ""
            )
            self._item(job, provider, "usd-100", message, now)
            if working:
                log.info("job %s used its dollar budget (%s): sending Esc", job.job_id, spent)
                self._spawn(self._interrupt(job.surface_id))
        return replace(usage, usd_stage=stage)

    # -- lead notices of dollar budgets -----------------------------------------------------------
    def budget_news(self, jobs: list[AgentJob]) -> list[str]:
        """Lines for a lead notice: the dollar-budget stages of ``jobs`` (the lead's) it has not
        been told, now recorded as told (stored soon)."""
        lines = []
        for job in jobs:
            usage = self._jobs.get(job.job_id)
            if usage is None or job.budget_usd is None or usage.usd_stage <= usage.usd_told:
                continue
            cost = usd(usage.cost) if usage.cost is not None else 0.0
            what = (
                f"has used {USD_BUDGET_WARN_PERCENT}% of its dollar budget"
                if usage.usd_stage == 1
                else "used up its dollar budget and was interrupted"
            )
            label = f' "{job.label}"' if job.label else ""
            lines.append(
                f"- job {job.job_id}{label} ({job.provider.value}) {what}: "
                f"${cost:,.2f} of ${Decimal(job.budget_usd):,.2f}."
            )
            self._set(job.job_id, replace(usage, usd_told=usage.usd_stage))
        return lines

    def _item(
        self, job: AgentJob, provider: AgentProvider, level: str, message: str, now: float
    ) -> None:
        item_id = stable_uuid("attention", "budget", job.job_id, level)
        if self._hub.attention.add_budget_item(
            item_id, job.job_id, job.surface_id, provider, message, now
        ):
            self._hub.bump()

    # -- storage --------------------------------------------------------------------------------
    def _set(self, job_id: str, usage: JobUsage) -> None:
        self._jobs[job_id] = usage
        if self._store is None:
            return
        try:
            fut = self._store.save_usage_soon(job_id, encode_usage(usage))
        except StoreError as exc:
            log.warning("could not store the usage of job %s: %s", job_id, exc)
            return
        self._tasks.add(fut)
        fut.add_done_callback(self._done)

    def _spawn(self, work: Awaitable[object]) -> None:
        task: asyncio.Future[object] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, fut: asyncio.Future[object]) -> None:
        self._tasks.discard(fut)
        if not fut.cancelled() and (exc := fut.exception()) is not None:
            log.warning("usage bookkeeping failed: %s", exc)

    async def flush(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
