"""UsageBook: a job's figures from its pane's readings, budgets (80 % item, Esc at 100 %), and
figures kept across a restart (the real store)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from mytty.core.attention.items import AttentionKind
from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, SurfaceId
from mytty.core.jobs.tracker import AgentJob, AgentJobState, SpawnTags, new_job
from mytty.core.transcripts.usage import TokenUsage, UsageReading
from mytty.daemon.agents import AgentHub
from mytty.daemon.store import EventStore
from mytty.daemon.transcripts.usage import UsageBook

SURFACE = SurfaceId("6F1C2E0A-0B1D-4C55-9B7E-0D1D2A3B4C5D")
JOB = JobId("0A1B2C3D-0000-4000-8000-000000000001")


class World:
    def __init__(self, store: EventStore, job: AgentJob | None = None) -> None:
        self.hub = AgentHub(store, clock=lambda: 1000.0)
        self.job = job or new_job(JOB, SURFACE, WorkerProvider.CLAUDE, "w", (), 0.0)
        self.escapes: list[str] = []
        self.book = UsageBook(
            hub=self.hub,
            newest_job=lambda s: self.job if s == self.job.surface_id else None,
            interrupt=self._escape,
            store=store,
        )

    async def _escape(self, surface: SurfaceId) -> None:
        self.escapes.append(surface)

    def read(self, total_in: int, out: int = 0, model: str | None = "claude-opus-5-5") -> None:
        self.book.pane_usage(SURFACE, UsageReading(TokenUsage(input=total_in, output=out), model))

    def total(self) -> int:
        entry = self.book.entry(self.job)
        assert entry is not None
        return entry["totalTokens"]

    def budget_items(self) -> list[str]:
        return [
            i.message or ""
            for i in self.hub.attention.items(2000.0)
            if i.kind is AttentionKind.BUDGET
        ]


def running(budget: int | None, provider: WorkerProvider = WorkerProvider.CLAUDE) -> AgentJob:
    job = new_job(JOB, SURFACE, provider, None, (), 0.0, tags=SpawnTags(budget_tokens=budget))
    return replace(job, state=AgentJobState.RUNNING)


def open_store(path: Path) -> EventStore:
    store = EventStore(path)
    store.open()
    store.start_writer(asyncio.get_running_loop())
    return store


def test_a_job_has_its_panes_figures_in_the_wire_shape(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = open_store(tmp_path / "s.sqlite3")
        w = World(store)
        assert w.book.entry(w.job) is None
        w.read(20, 10)
        assert w.book.entry(w.job) == {
            "inputTokens": 20,
            "outputTokens": 10,
            "cacheReadTokens": 0,
            "cacheWriteTokens": 0,
            "totalTokens": 30,
            "model": "claude-opus-5-5",
        }
        w.book.pane_usage(SurfaceId("OTHER"), UsageReading(TokenUsage(input=5)))
        assert w.book.entry(w.job)["totalTokens"] == 30  # type: ignore[index]
        await w.book.flush()
        store.close()

    asyncio.run(scenario())


def test_budget_warns_at_80_percent_and_presses_esc_once_at_100(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = open_store(tmp_path / "s.sqlite3")
        w = World(store, running(1000))
        assert w.book.entry(w.job) == {
            "inputTokens": 0,
            "outputTokens": 0,
            "cacheReadTokens": 0,
            "cacheWriteTokens": 0,
            "totalTokens": 0,
            "model": None,
            "budgetTokens": 1000,
        }
        w.read(700)
        assert w.budget_items() == [] and w.escapes == []
        w.read(800)
        assert w.budget_items() == ["Token budget 80% used: 800 of 1,000 tokens"]
        w.read(900)
        assert len(w.budget_items()) == 1
        w.read(1000, 5)
        await w.book.flush()
        assert w.escapes == [SURFACE]
        assert sorted(w.budget_items()) == [
            "Token budget 80% used: 800 of 1,000 tokens",
            "Token budget used up: 1,005 of 1,000 tokens; mytty interrupted the worker (Esc)",
        ]
        w.read(2000, 5)
        await w.book.flush()
        assert w.escapes == [SURFACE]  # once
        store.close()

    asyncio.run(scenario())


def test_a_finished_job_over_budget_is_not_interrupted(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = open_store(tmp_path / "s.sqlite3")
        w = World(store, replace(running(100, WorkerProvider.CODEX), state=AgentJobState.SUCCEEDED))
        w.read(500)
        await w.book.flush()
        assert w.escapes == [] and w.budget_items() == ["Token budget used up: 500 of 100 tokens"]
        store.close()

    asyncio.run(scenario())


def test_figures_and_budget_stage_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"

    async def before() -> None:
        store = open_store(path)
        w = World(store, running(1000))
        w.read(850, 50)
        await w.book.flush()
        store.close()

    async def after() -> None:
        store = open_store(path)
        w = World(store, running(1000))
        w.book.load(store.load_usage())
        entry = w.book.entry(w.job)
        assert entry is not None and entry["totalTokens"] == 900 and entry["budgetTokens"] == 1000
        # The transcript is read again from its tail: only what it gains from now on adds.
        w.read(300, 10)
        assert w.total() == 900
        w.read(350, 10)
        assert w.total() == 950
        assert w.budget_items() == []  # the 80 % item was raised before the restart
        w.read(400, 10)
        await w.book.flush()
        assert w.escapes == [SURFACE]
        store.close()

    asyncio.run(before())
    asyncio.run(after())


def test_what_the_transcript_gained_while_the_controller_was_down_counts_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite3"

    async def before() -> None:
        store = open_store(path)
        w = World(store, running(None))
        w.read(850, 50)
        await w.book.flush()
        store.close()

    async def after() -> None:
        store = open_store(path)
        w = World(store, running(None))
        w.book.load(store.load_usage())
        assert w.total() == 900
        # The first reading after the start covers the stored one: the worker wrote 60 more
        # (while the controller was down, or before the reader's first look).
        w.read(900, 60)
        assert w.total() == 960
        w.read(910, 60)
        assert w.total() == 970
        await w.book.flush()
        store.close()

    async def again() -> None:  # a second restart with nothing new: no double count
        store = open_store(path)
        w = World(store, running(None))
        w.book.load(store.load_usage())
        w.read(910, 60)
        assert w.total() == 970
        store.close()

    asyncio.run(before())
    asyncio.run(after())
    asyncio.run(again())


def test_a_record_without_the_pane_reading_counts_from_the_first_reading() -> None:
    from mytty.daemon.transcripts.usage import decode_usage, encode_usage

    old = decode_usage('{"v":1,"tokens":[10,5,0,0],"model":"claude-sonnet-4-5","stage":0}')
    assert old is not None and old.reading is None
    stored = decode_usage(encode_usage(replace(old, reading=TokenUsage(input=7, output=5))))
    assert stored is not None and stored.reading == TokenUsage(input=7, output=5)
    assert stored.base is None and stored.tokens == TokenUsage(input=10, output=5)
