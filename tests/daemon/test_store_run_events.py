"""``explain`` reads a run's newest stored events through the run index, whatever the history."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from pathlib import Path

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId
from mytty.daemon.store import RUN_EVENTS_SQL, EventStore, StoreError

PANE = SurfaceId(str(uuid.UUID(int=1)).upper())
A, B, C = (RunId(str(uuid.UUID(int=n)).upper()) for n in (10, 11, 12))


def _event(run: str, at: float) -> AgentEvent:
    return AgentEvent(
        id=str(uuid.uuid4()).upper(),
        run_id=RunId(run),
        surface_id=PANE,
        provider=AgentProvider.CLAUDE_CODE,
        kind=AgentEventKind.RUNNING,
        occurred_at=at,
        hook_name="PostToolBatch",
    )


async def _filled(path: Path, runs: dict[str, int]) -> EventStore:
    store = EventStore(path)
    store.open()
    store.start_writer(asyncio.get_running_loop())
    t = 0.0
    # Interleaved, as panes write at once: each run's rows are spread over the table.
    for i in range(max(runs.values())):
        for run, count in runs.items():
            if i < count:
                t += 1
                await store.insert(_event(run, t))
    return store


def test_the_newest_events_of_each_run_oldest_first(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = await _filled(tmp_path / "s.db", {A: 30, B: 3, C: 50})
        try:
            rows, more = await asyncio.to_thread(store.read_run_events, [A, B, A], 20)
        finally:
            store.close()
        sequences = [seq for seq, _ in rows]
        assert sequences == sorted(sequences)
        by_run = {run: [e for _, e in rows if e.run_id == run] for run in (A, B)}
        assert len(by_run[A]) == 20 and len(by_run[B]) == 3
        # The newest 20 of A's 30 (A's i-th event is at 10 + 2 (i - 3) from its 4th on).
        assert [e.occurred_at for e in by_run[A]] == [10.0 + 2 * (i - 3) for i in range(10, 30)]
        assert by_run[A][0].hook_name == "PostToolBatch"  # every field comes back
        assert more == {A}
        assert not any(e.run_id == C for _, e in rows)

    asyncio.run(scenario())


def test_the_read_walks_the_run_index_and_sorts_nothing(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "s.db")
    store.open()
    store.close()
    conn = sqlite3.connect(tmp_path / "s.db")
    try:
        plan = " ".join(
            str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {RUN_EVENTS_SQL}", ("A", 21))
        )
    finally:
        conn.close()
    assert "USING INDEX agent_event_run (run_id=?)" in plan, plan
    assert "TEMP B-TREE" not in plan and "SCAN" not in plan, plan


def test_an_unreadable_store_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    path.write_bytes(b"not a database at all" * 100)
    store = EventStore(path)
    try:
        store.read_run_events([A], 5)
    except StoreError as exc:
        assert "could not read stored events" in str(exc)
    else:
        raise AssertionError("no StoreError")
