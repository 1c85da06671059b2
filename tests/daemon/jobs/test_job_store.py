"""Jobs in the store: committed before spawn returns, every change stored in order, read back
by a restart (unfinished ones and the newest finished ones), older finished ones by id."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider, WorkerProvider
from mytty.core.ids import JobId, RunId, SurfaceId, TmuxPaneId
from mytty.core.jobs.tracker import AgentJob, AgentJobState, new_job
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import ManualClock
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.store import EventStore
from tests.core.builders import U

LIVE = SurfaceId(U("live-pane"))
GONE = SurfaceId(U("gone-pane"))


def _job(n: int, state: AgentJobState = AgentJobState.LAUNCHING) -> AgentJob:
    job = new_job(JobId(U(f"job-{n}")), LIVE, WorkerProvider.CLAUDE, f"w{n}", [], 100.0 + n)
    return replace(job, state=state, run_id=RunId(U(f"run-{n}")) if n % 2 else None)


def _registry(store: EventStore, clock: ManualClock, finished: int = 500) -> JobRegistry:
    panes = PaneRegistry(b"k" * 32)
    panes.register_created(LIVE, TmuxPaneId("%1"), 0)

    def nothing(_pane: Pane) -> tuple[AgentProvider | None, int | None]:
        return None, None

    return JobRegistry(
        hub=AgentHub(store, clock=clock.now),
        panes=panes,
        foreground_agent=nothing,
        codex_router=CodexRouter(panes=panes, foreground_agent=nothing, clock=clock.now),
        clock=clock,
        store=store,
        finished_in_memory=finished,
    )


def _with_store(db: Path, body: Callable[[EventStore], Awaitable[None]]) -> None:
    async def main() -> None:
        store = EventStore(db)
        store.open()
        store.start_writer(asyncio.get_running_loop())
        try:
            await body(store)
        finally:
            store.close()

    asyncio.run(main())


def test_stored_jobs_read_back_unfinished_and_newest_finished_in_creation_order(
    tmp_path: Path,
) -> None:
    db = tmp_path / "events.sqlite3"
    finished_states = [AgentJobState.SUCCEEDED, AgentJobState.LOST, AgentJobState.FAILED]
    jobs = [_job(0), *(_job(i + 1, s) for i, s in enumerate(finished_states)), _job(4)]

    async def write(store: EventStore) -> None:
        for job in jobs:
            await store.save_job(replace(job, state=AgentJobState.LAUNCHING))
        for job in jobs:  # a change replaces the row and keeps the job's place
            await store.save_job(job)

    _with_store(db, write)
    store = EventStore(db)
    store.open()
    try:
        # Unfinished 0 and 4, and the two newest finished (2, 3); 1 stays in the store only.
        assert store.load_jobs(2) == [jobs[0], jobs[2], jobs[3], jobs[4]]
        assert store.load_jobs(0) == [jobs[0], jobs[4]]
        assert store.read_job(jobs[1].job_id) == jobs[1]
        assert store.read_job(U("never")) is None
    finally:
        store.close()
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_spawn_commits_the_job_and_every_change_is_stored(tmp_path: Path) -> None:
    clock = ManualClock(start=1000.0)

    async def body(store: EventStore) -> None:
        jobs = _registry(store, clock)
        job = await jobs.spawn(LIVE, WorkerProvider.CODEX, "w", [RunId(U("old"))])
        assert store.read_job(job.job_id) == job  # committed before spawn returned
        gone = await jobs.spawn(GONE, WorkerProvider.CLAUDE, None, [])
        assert jobs.current(gone.job_id).state is AgentJobState.LOST
        await jobs.flush()
        stored = store.read_job(gone.job_id)
        assert stored is not None and stored.state is AgentJobState.LOST

    _with_store(tmp_path / "events.sqlite3", body)


def test_a_failing_store_write_leaves_no_job(tmp_path: Path) -> None:
    async def body() -> None:
        store = EventStore(tmp_path / "events.sqlite3")
        store.open()  # the writer never started: every write fails
        try:
            jobs = _registry(store, ManualClock())
            with pytest.raises(MyttyError) as err:
                await jobs.spawn(LIVE, WorkerProvider.CLAUDE, "w", [])
            assert err.value.code is ErrorCode.SPAWN_FAILED
            assert "could not store the new job" in err.value.message
            assert jobs.ids() == []
            assert store.load_jobs(10) == []
        finally:
            store.close()

    asyncio.run(body())


def test_old_finished_jobs_leave_memory_but_answer_from_the_store(tmp_path: Path) -> None:
    clock = ManualClock()

    async def body(store: EventStore) -> None:
        jobs = _registry(store, clock, finished=2)
        lost = [await jobs.spawn(GONE, WorkerProvider.CLAUDE, str(i), []) for i in range(4)]
        for job in lost:
            jobs.current(job.job_id)
        await jobs.flush()
        live = await jobs.spawn(LIVE, WorkerProvider.CLAUDE, "live", [])
        assert jobs.ids() == [lost[2].job_id, lost[3].job_id, live.job_id]
        old = jobs.current(lost[0].job_id)  # out of memory, still known
        assert old.state is AgentJobState.LOST and old.label == "0"
        assert jobs.ids() == [lost[2].job_id, lost[3].job_id, live.job_id]
        with pytest.raises(MyttyError) as err:
            jobs.current(U("never-spawned"))
        assert err.value.code is ErrorCode.JOB_NOT_FOUND

    _with_store(tmp_path / "events.sqlite3", body)


def test_keyed_jobs_read_back_by_key_through_its_index(tmp_path: Path) -> None:
    """``read_keyed_jobs`` finds a key's jobs among all stored ones, without scanning them
    (it runs on the event loop): the query plan uses the key's index."""
    db = tmp_path / "events.sqlite3"
    jobs = [replace(_job(i), key=key) for i, key in enumerate(["a", None, "b", "a"])]

    async def write(store: EventStore) -> None:
        for job in jobs:
            await store.save_job(job)

    _with_store(db, write)
    store = EventStore(db)
    store.open()
    try:
        assert store.read_keyed_jobs("a") == [jobs[0], jobs[3]]
        assert store.read_keyed_jobs("b") == [jobs[2]]
        assert store.read_keyed_jobs("c") == []
        assert store._conn is not None
        plan = store._conn.execute(
            "EXPLAIN QUERY PLAN SELECT payload FROM agent_job "
            "WHERE json_extract(payload, '$.key') = ? ORDER BY seq",
            ("a",),
        ).fetchall()
        assert any("USING INDEX agent_job_key" in str(row[-1]) for row in plan), plan
    finally:
        store.close()


def test_a_key_finds_its_finished_job_after_it_left_memory(tmp_path: Path) -> None:
    clock = ManualClock()
    done = AgentJobState.SUCCEEDED
    keyed = replace(_job(1, done), key="k", lead=LIVE)
    lost = replace(_job(3, AgentJobState.LOST), key="gone", lead=LIVE)
    newer = [_job(5, done), _job(7, done)]

    async def body(store: EventStore) -> None:
        for job in (keyed, lost, *newer):
            await store.save_job(job)
        jobs = _registry(store, clock, finished=1)
        jobs.load([keyed, lost, *newer])
        assert keyed.job_id not in jobs.ids()  # only the newest finished job stays in memory
        assert jobs.keyed(LIVE, "k") == keyed  # read back from the store
        assert jobs.keyed(None, "k") is None  # another lead's scope
        assert jobs.keyed(LIVE, "gone") is None  # a lost job frees its key

    _with_store(tmp_path / "events.sqlite3", body)


def test_a_restart_judges_no_job_before_the_panes_are_listed(tmp_path: Path) -> None:
    # Found by scripts/bench/truth: a loaded job's launch timer is due at once; fired while
    # tmux was still being listed, it found no pane and made a live worker's job lost for good.
    clock = ManualClock()
    running = replace(_job(1), state=AgentJobState.RUNNING)  # bound, its deadline long past

    async def body(store: EventStore) -> None:
        await store.save_job(running)
        jobs = _registry(store, clock)
        jobs._panes.reset()  # a restarted controller: no pane known yet
        jobs.load([running])
        clock.advance(1.0)  # the timer fires before the panes are listed
        assert jobs._jobs[running.job_id].state is AgentJobState.RUNNING  # not reconciled
        jobs._panes.register_created(LIVE, TmuxPaneId("%1"), 0)  # tmux listed: the pane is there
        await jobs.sweep()
        assert jobs.current(running.job_id).state is AgentJobState.RUNNING
        gone = replace(_job(3), state=AgentJobState.RUNNING, surface_id=GONE)
        jobs.load([gone])
        await jobs.sweep()  # a pane really gone still makes its job lost
        assert jobs.current(gone.job_id).state is AgentJobState.LOST

    _with_store(tmp_path / "events.sqlite3", body)


def test_a_job_is_named_by_a_prefix_only_it_starts(tmp_path: Path) -> None:
    """``mytty ls`` and the web view show a job's first 8 characters: typed back, they name it
    (any case, hyphens optional); a prefix two jobs share says so, and names neither."""

    async def body(store: EventStore) -> None:
        jobs = _registry(store, ManualClock())
        first = _job(1)
        twin = replace(_job(2), job_id=JobId(first.job_id[:9] + "0" * 4 + first.job_id[13:]))
        if twin.job_id == first.job_id:
            twin = replace(twin, job_id=JobId(first.job_id[:9] + "1" * 4 + first.job_id[13:]))
        head = "F" if first.job_id[0] != "F" else "E"
        other = replace(_job(3), job_id=JobId(head + first.job_id[1:]))
        for job in (first, twin, other):
            jobs.add(job)
        assert jobs.current(other.job_id[:8]).job_id == other.job_id
        assert jobs.current(other.job_id[:8].lower()).job_id == other.job_id
        assert jobs.current(first.job_id[:16]).job_id == first.job_id  # past the first hyphen
        assert jobs.current(first.job_id[:19].replace("-", "")).job_id == first.job_id
        with pytest.raises(MyttyError) as err:
            jobs.current(first.job_id[:8])
        assert err.value.code is ErrorCode.INVALID_REQUEST
        assert "starts 2 jobs" in err.value.message
        for nothing in ("", "-", "---", "0" * 35 if first.job_id[0] != "0" else "9" * 35):
            with pytest.raises(MyttyError) as err:
                jobs.current(nothing)
            assert err.value.code is ErrorCode.JOB_NOT_FOUND, nothing

    _with_store(tmp_path / "events.sqlite3", body)
