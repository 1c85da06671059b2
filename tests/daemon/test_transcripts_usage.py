"""UsageBook: a job's figures from its pane's readings, budgets (80 % item, Esc at 100 %), and
figures kept across a restart (the real store)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from mytty.core.attention import AttentionKind
from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, SurfaceId
from mytty.core.jobs import AgentJob, AgentJobState, new_job
from mytty.core.usage import TokenUsage, UsageReading
from mytty.daemon.agents import AgentHub
from mytty.daemon.store import EventStore
from mytty.daemon.transcripts_usage import UsageBook

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

    def budget_items(self) -> list[str]:
        return [
            i.message or ""
            for i in self.hub.attention.items(2000.0)
            if i.kind is AttentionKind.BUDGET
        ]


def open_store(path: Path) -> EventStore:
    store = EventStore(path)
    store.open()
    store.start_writer(asyncio.get_running_loop())
    return store


def test_a_job_has_its_panes_figures_in_the_wire_shape(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = open_store(tmp_path / "s.sqlite3")
        w = World(store)
        assert w.book.entry(JOB) is None
        w.read(20, 10)
        assert w.book.entry(JOB) == {
            "inputTokens": 20,
            "outputTokens": 10,
            "cacheReadTokens": 0,
            "cacheWriteTokens": 0,
            "totalTokens": 30,
            "model": "claude-opus-5-5",
        }
        w.book.pane_usage(SurfaceId("OTHER"), UsageReading(TokenUsage(input=5)))
        assert w.book.total([JOB, "unknown"]) == {
            "inputTokens": 20,
            "outputTokens": 10,
            "cacheReadTokens": 0,
            "cacheWriteTokens": 0,
            "totalTokens": 30,
            "model": None,
        }
        await w.book.flush()
        store.close()

    asyncio.run(scenario())


def test_budget_warns_at_80_percent_and_presses_esc_once_at_100(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = open_store(tmp_path / "s.sqlite3")
        w = World(
            store,
            replace(
                new_job(JOB, SURFACE, WorkerProvider.CLAUDE, None, (), 0.0),
                state=AgentJobState.RUNNING,
            ),
        )
        w.book.set_budget(JOB, 1000)
        assert w.book.entry(JOB) is not None and w.book.entry(JOB)["budgetTokens"] == 1000  # type: ignore[index]
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
        job = replace(
            new_job(JOB, SURFACE, WorkerProvider.CODEX, None, (), 0.0),
            state=AgentJobState.SUCCEEDED,
        )
        w = World(store, job)
        w.book.set_budget(JOB, 100)
        w.read(500)
        await w.book.flush()
        assert w.escapes == [] and w.budget_items() == ["Token budget used up: 500 of 100 tokens"]
        store.close()

    asyncio.run(scenario())


def test_figures_and_budget_stage_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"

    async def before() -> None:
        store = open_store(path)
        w = World(
            store,
            replace(
                new_job(JOB, SURFACE, WorkerProvider.CLAUDE, None, (), 0.0),
                state=AgentJobState.RUNNING,
            ),
        )
        w.book.set_budget(JOB, 1000)
        w.read(850, 50)
        await w.book.flush()
        store.close()

    async def after() -> None:
        store = open_store(path)
        w = World(
            store,
            replace(
                new_job(JOB, SURFACE, WorkerProvider.CLAUDE, None, (), 0.0),
                state=AgentJobState.RUNNING,
            ),
        )
        w.book.load(store.load_usage())
        entry = w.book.entry(JOB)
        assert entry is not None and entry["totalTokens"] == 900 and entry["budgetTokens"] == 1000
        # The transcript is read again from its tail: only what it gains from now on adds.
        w.read(300, 10)
        assert w.book.entry(JOB)["totalTokens"] == 900  # type: ignore[index]
        w.read(350, 10)
        assert w.book.entry(JOB)["totalTokens"] == 950  # type: ignore[index]
        assert w.budget_items() == []  # the 80 % item was raised before the restart
        w.read(400, 10)
        await w.book.flush()
        assert w.escapes == [SURFACE]
        store.close()

    asyncio.run(before())
    asyncio.run(after())
