"""AgentHub waiters: woken only by changes to what they watch, bounded, abandonable.

Issue 15 defect 3: every event re-ran every waiter's probe (~30 µs per waiter per event).
A waiter names the pane whose state it reads; an event wakes that pane's waiters and the
ones that watch every change, nobody else. Real store (SQLite in a temp dir), real loop.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId
from mytty.daemon import agents
from mytty.daemon.agents import AgentHub
from mytty.daemon.store import EventStore

PANE_A = SurfaceId(str(uuid.UUID(int=0xA)).upper())
PANE_B = SurfaceId(str(uuid.UUID(int=0xB)).upper())


def event(surface: SurfaceId, kind: AgentEventKind = AgentEventKind.STARTED) -> AgentEvent:
    return AgentEvent(
        id=str(uuid.uuid4()).upper(),
        run_id=RunId(str(uuid.uuid4()).upper()),
        surface_id=surface,
        provider=AgentProvider.CLAUDE_CODE,
        kind=kind,
        occurred_at=time.time(),
    )


def with_hub(tmp_path: Path, scenario: Callable[[AgentHub], Coroutine[Any, Any, None]]) -> None:
    async def main() -> None:
        store = EventStore(tmp_path / "events.sqlite3")
        store.open()
        store.start_writer(asyncio.get_running_loop())
        try:
            await asyncio.wait_for(scenario(AgentHub(store)), 30)
        finally:
            store.close()

    asyncio.run(main())


class CountingProbe:
    """A probe that counts its calls and is satisfied once its pane has a run."""

    def __init__(self, hub: AgentHub, surface: SurfaceId) -> None:
        self.hub = hub
        self.surface = surface
        self.calls = 0

    def __call__(self) -> str | None:
        self.calls += 1
        run = self.hub.book.most_relevant(self.surface)
        return run.state.value if run is not None else None


async def neighbour(hub: AgentHub, surface: SurfaceId | None) -> asyncio.Future[Any]:
    """A waiter parked on ``surface`` (None: on every change) that ends when it is woken.

    Awaiting it after an event is how a test knows that event's wake-ups were handed out and
    run: the hub wakes every waiter of one change at once, so when this one has looked again,
    any other waiter that change woke has looked again too.
    """
    looks = [0]

    def probe() -> bool | None:
        looks[0] += 1
        return True if looks[0] > 1 else None

    waiter = asyncio.ensure_future(hub.wait_until(probe, 20, surface_id=surface))
    await asyncio.sleep(0)
    assert looks[0] == 1, "the neighbour did not park"
    return waiter


def test_a_waiter_on_pane_a_is_not_woken_by_events_on_pane_b(tmp_path: Path) -> None:
    async def scenario(hub: AgentHub) -> None:
        probe = CountingProbe(hub, PANE_A)
        waiter = asyncio.ensure_future(hub.wait_until(probe, 20, surface_id=PANE_A))
        await asyncio.sleep(0)
        assert probe.calls == 1  # parked after its first look
        for _ in range(49):
            assert await hub.ingest(event(PANE_B))
        on_b = await neighbour(hub, PANE_B)
        assert await hub.ingest(event(PANE_B))
        assert await on_b == (True, False)
        assert probe.calls == 1, "events on pane B re-ran pane A's probe"
        assert not waiter.done()
        assert await hub.ingest(event(PANE_A))
        assert await waiter == ("running", False)
        assert probe.calls == 2
        assert hub.waiter_count() == 0

    with_hub(tmp_path, scenario)


def test_a_wait_on_several_panes_is_woken_by_those_panes_only(tmp_path: Path) -> None:
    """``agent wait A B --any|--all``: one waiter registered on each job's pane, not on all."""
    pane_c = SurfaceId(str(uuid.UUID(int=0xC)).upper())

    async def scenario(hub: AgentHub) -> None:
        calls = [0]

        def probe() -> str | None:
            calls[0] += 1
            both = [hub.book.most_relevant(p) for p in (PANE_A, PANE_B)]
            return "both" if all(r is not None for r in both) else None

        waiter = asyncio.ensure_future(
            hub.wait_until(probe, 20, surface_ids=[PANE_A, PANE_B, PANE_A])
        )
        await asyncio.sleep(0)
        assert calls[0] == 1
        for _ in range(19):
            assert await hub.ingest(event(pane_c))
        on_c = await neighbour(hub, pane_c)
        assert await hub.ingest(event(pane_c))
        assert await on_c == (True, False)
        assert calls[0] == 1, "events on another pane re-ran the probe"
        on_a = await neighbour(hub, PANE_A)
        assert await hub.ingest(event(PANE_A))
        assert await on_a == (True, False)
        assert calls[0] == 2 and not waiter.done()
        assert await hub.ingest(event(PANE_B))
        assert await waiter == ("both", False)
        assert hub.waiter_count() == 0

    with_hub(tmp_path, scenario)


def test_a_waiter_without_a_pane_sees_every_event(tmp_path: Path) -> None:
    async def scenario(hub: AgentHub) -> None:
        seen: list[int] = []

        def probe() -> int | None:
            seen.append(len(hub.ledger.query(0).records))
            return 1 if len(seen) > 3 else None

        waiter = asyncio.ensure_future(hub.wait_until(probe, 20))
        await asyncio.sleep(0)
        for surface in (PANE_A, PANE_B, PANE_B):
            await hub.ingest(event(surface))
            await asyncio.sleep(0)
        assert await waiter == (1, False)
        assert seen == [0, 1, 2, 3]

    with_hub(tmp_path, scenario)


def test_a_pane_change_wakes_every_waiter(tmp_path: Path) -> None:
    async def scenario(hub: AgentHub) -> None:
        probes = [CountingProbe(hub, PANE_A), CountingProbe(hub, PANE_B)]
        waiters = [
            asyncio.ensure_future(hub.wait_until(p, 20, surface_id=p.surface)) for p in probes
        ]
        await asyncio.sleep(0)
        elsewhere = await neighbour(hub, SurfaceId(str(uuid.UUID(int=0xC)).upper()))
        hub.bump()  # a pane appeared or went: nobody can tell whose probe it affects
        assert await elsewhere == (True, False)
        assert [p.calls for p in probes] == [2, 2]
        for w in waiters:
            w.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)
        assert hub.waiter_count() == 0

    with_hub(tmp_path, scenario)


def test_no_wait_outlasts_the_server_side_ceiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(agents, "MAX_WAIT_S", 0.05)

    async def scenario(hub: AgentHub) -> None:
        probe = CountingProbe(hub, PANE_A)
        assert await hub.wait_until(probe, 1e300, surface_id=PANE_A) == (None, True)

    with_hub(tmp_path, scenario)


def test_a_ledger_waiter_is_woken_only_once_the_tip_passes_its_cursor(tmp_path: Path) -> None:
    """``events`` with a cursor ahead of the tip (one from before a restart) waits quietly.

    Found by tests/reliability/test_hostile_clients.py: 500 such polls re-ran their probes on
    every event, which multiplied the event socket's p99 by ~8.
    """

    async def scenario(hub: AgentHub) -> None:
        calls: list[int] = []
        after = 40

        def probe() -> int | None:
            calls.append(hub.ledger.latest_sequence)
            return hub.ledger.latest_sequence if hub.ledger.has_records_after(after) else None

        waiter = asyncio.ensure_future(hub.wait_until(probe, 20, after_sequence=after))
        await asyncio.sleep(0)
        run = event(PANE_B).run_id  # one run: no sweep events in between, one record each
        for _ in range(after - 1):
            assert await hub.ingest(replace(event(PANE_B, AgentEventKind.RUNNING), run_id=run))
        on_b = await neighbour(hub, PANE_B)
        assert await hub.ingest(replace(event(PANE_B, AgentEventKind.RUNNING), run_id=run))
        assert await on_b == (True, False)
        assert calls == [0], "events before the cursor re-ran the probe"
        assert not waiter.done()
        assert await hub.ingest(event(PANE_A))
        assert await waiter == (after + 1, False)
        assert calls == [0, after + 1]
        assert hub.waiter_count() == 0

    with_hub(tmp_path, scenario)


def test_abandoned_ledger_waiters_leave_nothing_behind(tmp_path: Path) -> None:
    async def scenario(hub: AgentHub) -> None:
        waiters = [
            asyncio.ensure_future(hub.wait_until(lambda: None, 20, after_sequence=10**9 + i))
            for i in range(500)
        ]
        await asyncio.sleep(0)
        assert hub.waiter_count() == 500
        for w in waiters:
            w.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)
        assert hub.waiter_count() == 0
        assert hub.ledger_waiters.thresholds() <= 64  # the heap is rebuilt, not left to grow

    with_hub(tmp_path, scenario)
