"""UsageBook's dollars: each reading's new tokens priced at its model, exactly; an unknown
model makes the cost null; a lead's own cost and its workers'; the dollar budget's items, Esc
and lead notice; all kept across a restart (the real store)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from mytty.core.cost.prices import PRICES
from mytty.core.cost.pricing import cost_of
from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, SurfaceId
from mytty.core.jobs.tracker import AgentJob, AgentJobState, SpawnTags, new_job
from mytty.core.transcripts.usage import TokenUsage, UsageReading
from mytty.daemon.jobs.lead_inbox import notice_text
from tests.daemon.transcripts.test_transcripts_usage import SURFACE, World, open_store

SONNET = "claude-sonnet-4-5-20250929"
LEAD = SurfaceId("1EAD0000-0000-4000-8000-000000000000")


def dollar_job(budget: str | None = None) -> AgentJob:
    job = new_job(
        JobId("0A1B2C3D-0000-4000-8000-000000000002"),
        SURFACE,
        WorkerProvider.CLAUDE,
        "w",
        (),
        0.0,
        tags=SpawnTags(budget_usd=budget, lead=LEAD),
    )
    return replace(job, state=AgentJobState.RUNNING)


def reading(out: int, cache_read: int = 0, model: str | None = SONNET) -> UsageReading:
    return UsageReading(TokenUsage(input=100, output=out, cache_read=cache_read), model)


def test_the_cost_is_the_table_times_the_tokens_and_unknown_is_null(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = open_store(tmp_path / "s.sqlite3")
        w = World(store, dollar_job())
        assert w.book.cost_entry(w.job) == {}  # no figures yet: no cost either
        w.book.pane_usage(SURFACE, reading(1000, 40_000))
        w.book.pane_usage(SURFACE, reading(3000, 90_000))
        exact = cost_of(
            TokenUsage(input=100, output=3000, cache_read=90_000), PRICES["claude-sonnet-4-5"]
        )
        assert w.book.cost(w.job.job_id) == exact
        assert w.book.cost_entry(w.job) == {"costUsd": float(round(exact, 6))}
        w.book.pane_usage(SURFACE, reading(3500, 90_000, model="claude-mystery"))
        assert w.book.cost_entry(w.job) == {"costUsd": None}
        await w.book.flush()
        store.close()

    asyncio.run(scenario())


def test_a_dollar_budget_warns_tells_the_lead_once_and_presses_esc(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = open_store(tmp_path / "s.sqlite3")
        w = World(store, dollar_job("0.1"))
        assert w.book.entry(w.job)["budgetUsd"] == 0.1  # type: ignore[index]
        # $15 per million output tokens: 5,400 cost $0.081 (81 %).
        w.book.pane_usage(SURFACE, UsageReading(TokenUsage(output=5_400), SONNET))
        items = [i.message for i in w.hub.attention.items(2000.0) if i.kind.value == "budget"]
        assert items == ["Dollar budget 80% used: $0.08 of $0.10"]
        assert w.escapes == []
        lines = w.book.budget_news([w.job])
        assert lines == [
            f'- job {w.job.job_id} "w" (claude) has used 80% of its dollar budget: $0.08 of $0.10.'
        ]
        assert w.book.budget_news([w.job]) == []  # told once
        assert "dollar budgets of workers you spawned" in notice_text([], budgets=lines)
        w.book.pane_usage(SURFACE, UsageReading(TokenUsage(output=7_000), SONNET))
        await w.book.flush()
        assert w.escapes == [SURFACE]
        assert "used up its dollar budget" in w.book.budget_news([w.job])[0]
        store.close()

    asyncio.run(scenario())


def test_cost_stages_and_told_stages_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"

    async def before() -> None:
        store = open_store(path)
        w = World(store, dollar_job("1"))
        w.book.pane_usage(SURFACE, UsageReading(TokenUsage(output=60_000), SONNET))  # $0.90
        assert len(w.book.budget_news([w.job])) == 1
        await w.book.flush()
        store.close()

    async def after() -> None:
        store = open_store(path)
        w = World(store, dollar_job("1"))
        w.book.load(store.load_usage())
        assert w.book.cost(w.job.job_id) == Decimal("0.9")
        assert w.book.budget_news([w.job]) == []  # the lead was told before the restart
        w.book.pane_usage(SURFACE, UsageReading(TokenUsage(output=1_000), SONNET))  # a fresh tail
        w.book.pane_usage(SURFACE, UsageReading(TokenUsage(output=8_000), SONNET))  # +$0.105
        await w.book.flush()
        assert w.escapes == [SURFACE]
        store.close()

    asyncio.run(before())
    asyncio.run(after())


def test_a_leads_cost_is_its_own_plus_its_workers(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = open_store(tmp_path / "s.sqlite3")
        w = World(store, dollar_job())
        # The lead's pane has no job: its own agent's spending counts from the first reading.
        w.book.pane_usage(LEAD, UsageReading(TokenUsage(output=1_000), SONNET))
        w.book.pane_usage(LEAD, UsageReading(TokenUsage(output=3_000), SONNET))  # +2,000: $0.03
        w.book.pane_usage(SURFACE, UsageReading(TokenUsage(output=10_000), SONNET))  # $0.15
        assert w.book.lead_cost(LEAD, [w.job]) == (0.03, 0.15, 0.18)
        w.book.pane_usage(LEAD, UsageReading(TokenUsage(output=4_000), "claude-mystery"))
        assert w.book.lead_cost(LEAD, [w.job]) == (None, 0.15, None)
        await w.book.flush()
        store.close()

    asyncio.run(scenario())


def test_a_record_from_before_costs_has_an_unknown_cost_for_its_tokens() -> None:
    from mytty.daemon.transcripts.usage import decode_usage

    old = '{"v":1,"tokens":[10,5,0,0],"model":"claude-sonnet-4-5","stage":0}'
    usage = decode_usage(old)
    assert usage is not None and usage.cost is None
    empty = decode_usage('{"v":1,"tokens":[0,0,0,0],"model":null,"stage":0}')
    assert empty is not None and empty.cost == 0
