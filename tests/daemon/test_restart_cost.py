"""A restart costs O(kept runs), not O(events ever stored) (issue 15 #6).

Before, every start decoded and replayed every stored event (~49 µs each: 5.2 s at 92.6k
events), and one pane's capability could create any number of runs, all kept in memory and
all listed. These tests fill a real store through the real hub (the path the event socket
takes), restart from it, and count the work: rows read and events replayed, never wall time
(scripts/bench/restart prints the times).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from pathlib import Path

from mytty.core.attention.items import AttentionItem
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId
from mytty.core.runs.retention import MAX_RUNS_PER_PANE
from mytty.core.runs.run import AgentRun
from mytty.daemon.agents import SNAPSHOT_EVERY, AgentHub
from mytty.daemon.store import EventStore

K = AgentEventKind
PANES = [SurfaceId(str(uuid.UUID(int=i + 1)).upper()) for i in range(4)]


def _event(surface: SurfaceId, run: str, kind: AgentEventKind, at: float) -> AgentEvent:
    return AgentEvent(
        id=str(uuid.uuid4()).upper(),
        run_id=RunId(run),
        surface_id=surface,
        provider=AgentProvider.CODEX,
        kind=kind,
        occurred_at=at,
    )


def _flood(runs: int, at: float = 1_000_000.0) -> list[AgentEvent]:
    """``runs`` short runs (started, running, failed) spread over PANES: 3 events each."""
    events: list[AgentEvent] = []
    for i in range(runs):
        surface, run = PANES[i % len(PANES)], str(uuid.uuid4()).upper()
        t = at + i
        events += [
            _event(surface, run, K.STARTED, t),
            _event(surface, run, K.RUNNING, t),
            _event(surface, run, K.FAILED, t),
        ]
    return events


async def _open(path: Path) -> tuple[EventStore, AgentHub, int]:
    store = EventStore(path)
    store.open()
    hub = AgentHub(store, clock=lambda: 1_000_000.0)
    state = store.load_state()
    hub.restore(state)
    store.start_writer(asyncio.get_running_loop())
    return store, hub, state.rows_read


async def _fill(path: Path, events: list[AgentEvent], *, clean_stop: bool) -> AgentHub:
    store, hub, _ = await _open(path)
    for i in range(0, len(events), 512):
        results = await asyncio.gather(*(hub.ingest(e) for e in events[i : i + 512]))
        assert all(results)
    if clean_stop:
        await hub.save_snapshot()  # as the controller does when it stops
    store.close()  # a crash (kill -9) leaves no snapshot beyond the last periodic one
    return hub


async def _restart(path: Path) -> tuple[AgentHub, int]:
    store, hub, rows = await _open(path)
    store.close()
    return hub, rows


def _books(hub: AgentHub) -> tuple[list[AgentRun], list[AttentionItem]]:
    runs = sorted(hub.book.all_runs(), key=lambda r: r.id)
    items = sorted(hub.attention.all_items(), key=lambda i: i.id)
    return runs, items


def test_restart_reads_the_same_rows_at_0_and_100k_stored_events(tmp_path: Path) -> None:
    async def scenario() -> None:
        empty = tmp_path / "empty.sqlite3"
        await _fill(empty, [], clean_stop=True)
        _, rows_empty = await _restart(empty)

        full = tmp_path / "full.sqlite3"
        flood = _flood(34_000)  # 102,000 events
        live = await _fill(full, flood, clean_stop=True)
        hub, rows_full = await _restart(full)
        # Whatever the history, a restart reads the snapshot row and the bounded tail only.
        assert rows_full - rows_empty <= 1, (rows_empty, rows_full)
        assert _books(hub) == _books(live)
        for pane in PANES:
            assert len(hub.book.runs_for_surface(pane)) == MAX_RUNS_PER_PANE
        # Attention after the flood is bounded too (one failure item per kept run).
        assert len(hub.attention) <= MAX_RUNS_PER_PANE * len(PANES)

    asyncio.run(scenario())


def test_after_a_crash_a_restart_replays_only_the_tail(tmp_path: Path) -> None:
    async def scenario() -> None:
        path = tmp_path / "store.sqlite3"
        flood = _flood(20_000)  # 60,000 events, no snapshot at the end (a kill -9)
        live = await _fill(path, flood, clean_stop=False)
        hub, rows = await _restart(path)
        kept = MAX_RUNS_PER_PANE * len(PANES)
        assert rows <= 1 + max(SNAPSHOT_EVERY, kept) + 1, rows
        assert _books(hub) == _books(live)
        # That restart stores a snapshot of its own: the next one reads even less.

    asyncio.run(scenario())


def test_a_retried_old_prompt_closes_nothing_after_a_restart(tmp_path: Path) -> None:
    """The books forget old event ids across a restart; the store still knows them."""

    async def scenario() -> None:
        path = tmp_path / "store.sqlite3"
        pane = PANES[0]

        def claude(run: str, kind: AgentEventKind, at: float) -> AgentEvent:
            return replace(_event(pane, run, kind, at), provider=AgentProvider.CLAUDE_CODE)

        old = claude("A" * 8 + "-0000-5000-8000-" + "0" * 12, K.STARTED, 1_000_001.0)
        await _fill(path, [old], clean_stop=True)
        store, hub, _ = await _open(path)
        newer = claude("B" * 8 + "-0000-5000-8000-" + "0" * 12, K.STARTED, 1_000_002.0)
        assert await hub.ingest(newer)  # supersedes the old run: it is idle now
        running = claude("C" * 8 + "-0000-5000-8000-" + "0" * 12, K.RUNNING, 1_000_003.0)
        assert await hub.ingest(running)
        assert await hub.ingest(old) is False  # a retry of the first prompt's hook
        run = hub.book.get(running.run_id)
        assert run is not None and run.state.value == "running"
        store.close()

    asyncio.run(scenario())
