"""Token usage per job, and ``agent spawn --budget-tokens`` (issue 13 item 5).

A job's figures are its pane's: ``agent spawn`` always opens a fresh pane, so whatever the
transcripts read in that pane (:class:`~mytty.daemon.transcripts.reader.TranscriptReader`) is the
worker's. The reader calls :meth:`UsageBook.pane_usage` whenever a pane's reading changes; the
book gives the reading to the newest job of that pane and checks its budget:

- at 80 % of the budget a ``budget`` attention item is raised (once);
- at 100 % mytty interrupts the worker with Esc through the ``send-key`` path (once, and only
  while the job is still working), and raises a second item saying so.

Each job's figures, budget and budget stage are stored (``job_usage`` in the event store), so a
restart keeps them: after a restart the transcripts are read again from their tails, and only
what they gain from then on is added to the stored figures.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

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
from mytty.protocol.replies import TokenUsageEntry

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


def encode_usage(usage: JobUsage) -> str:
    t = usage.tokens
    return json.dumps(
        {
            "v": USAGE_RECORD_VERSION,
            "tokens": [t.input, t.output, t.cache_read, t.cache_write],
            "model": usage.model,
            "stage": usage.stage,
        },
        separators=(",", ":"),
    )


def decode_usage(text: str) -> JobUsage | None:
    """A stored record (restored: its figures are the base new readings add to)."""
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict) or obj.get("v") != USAGE_RECORD_VERSION:
            return None
        raw = obj["tokens"]
        if not isinstance(raw, list) or len(raw) != 4:
            return None
        tokens = TokenUsage(*(count(v) for v in raw))
        model, stage = obj.get("model"), obj.get("stage")
        return JobUsage(
            tokens=tokens,
            model=model if isinstance(model, str) else None,
            stage=stage if isinstance(stage, int) and stage in (0, 1, 2) else 0,
            stored=tokens,
            base=None,
        )
    except (ValueError, KeyError, TypeError):
        return None


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
    ) -> None:
        self._hub = hub
        self._newest_job = newest_job
        self._interrupt = interrupt
        self._store = store
        self._jobs: dict[str, JobUsage] = {}
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
        if usage is None and job.budget_tokens is None:
            return None
        usage = usage or JobUsage()
        return wire.token_usage(usage.tokens, usage.model, job.budget_tokens)

    # -- the reader's callback ------------------------------------------------------------------
    def pane_usage(self, surface_id: SurfaceId, reading: UsageReading) -> None:
        job = self._newest_job(surface_id)
        if job is None:
            return
        usage = self._jobs.get(job.job_id, JobUsage())
        base = usage.base if usage.base is not None else reading.tokens
        tokens = usage.stored + (reading.tokens - base)
        updated = replace(usage, tokens=tokens, model=reading.model or usage.model, base=base)
        updated = self._check_budget(job, updated)
        if updated != usage:
            self._set(job.job_id, updated)
            self._hub.bump(surface_id)  # `agent wait` replies carry the figures

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
