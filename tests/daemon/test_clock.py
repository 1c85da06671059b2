"""Time as an input: the controller's timers, driven by a ManualClock instead of waited out.

Covers the clock itself, the test-only timings override, the launch window of a job
(daemon.jobs) and the Cursor approval estimate (daemon.cursor_approval).
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider, WorkerProvider
from mytty.core.ids import RunId, SurfaceId, TmuxPaneId
from mytty.core.jobs.tracker import LAUNCH_WINDOW_SECONDS, AgentJobState
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import (
    CURSOR_APPROVAL_SECONDS,
    DEFAULT_TIMINGS,
    TIMINGS_ENV,
    ManualClock,
    SystemClock,
    Timings,
    timings_from,
)
from mytty.daemon.estimation.cursor_approval import HOOK_NAME, CursorApprovalEstimator
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.jobs.registry import DEADLINE_MARGIN_S, JobRegistry
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.store import EventStore
from tests.core.builders import U, ev

# -- the clock ----------------------------------------------------------------------------------


def test_manual_clock_runs_due_timers_in_order_and_skips_cancelled_ones() -> None:
    clock = ManualClock(start=100.0)
    fired: list[tuple[str, float]] = []
    clock.call_later(5, lambda: fired.append(("five", clock.now())))
    clock.call_later(2, lambda: fired.append(("two", clock.now())))
    cancelled = clock.call_later(3, lambda: fired.append(("three", clock.now())))
    cancelled.cancel()
    assert clock.pending == 2
    clock.advance(1.9)
    assert fired == [] and clock.now() == pytest.approx(101.9)
    clock.advance(10)
    assert fired == [("two", 102.0), ("five", 105.0)]
    assert clock.now() == pytest.approx(111.9) and clock.pending == 0


def test_a_timer_set_by_a_timer_fires_in_the_same_advance() -> None:
    clock = ManualClock(start=0.0)
    fired: list[float] = []

    def again() -> None:
        clock.call_later(1, lambda: fired.append(clock.now()))

    clock.call_later(1, again)
    clock.advance(5)
    assert fired == [2.0]


def test_the_system_clock_is_the_wall_clock_and_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        fired = asyncio.Event()
        SystemClock().call_later(0, fired.set)
        await asyncio.wait_for(fired.wait(), 10)

    asyncio.run(scenario())
    import time

    monkeypatch.setattr(time, "time", lambda: 42.5)
    assert SystemClock().now() == 42.5


# -- durations ------------------------------------------------------------------------------------


def test_production_durations_are_the_seeds() -> None:
    assert Timings(launch_window=30.0, cursor_approval=10.0) == DEFAULT_TIMINGS
    assert LAUNCH_WINDOW_SECONDS == 30.0 and CURSOR_APPROVAL_SECONDS == 10.0
    assert timings_from({}) is DEFAULT_TIMINGS
    assert timings_from({TIMINGS_ENV: " "}) is DEFAULT_TIMINGS


def test_the_test_override_sets_named_durations() -> None:
    got = timings_from({TIMINGS_ENV: "cursor_approval=1.5, launch_window=4"})
    assert got == Timings(launch_window=4.0, cursor_approval=1.5)


@pytest.mark.parametrize(
    "text", ["launch=3", "cursor_approval", "cursor_approval=0", "launch_window=-1", "x=1,"]
)
def test_a_bad_override_refuses_to_start(text: str) -> None:
    with pytest.raises(MyttyError) as err:
        timings_from({TIMINGS_ENV: text})
    assert err.value.code is ErrorCode.INVALID_REQUEST
    assert TIMINGS_ENV in err.value.message


# -- the launch window ------------------------------------------------------------------------------

SURFACE = SurfaceId(U("worker-pane"))


def registry(
    clock: ManualClock, tmp_path: Path, window: float = 30.0
) -> tuple[JobRegistry, AgentHub]:
    hub = AgentHub(EventStore(tmp_path / "events.sqlite3"), clock=clock.now)
    panes = PaneRegistry(b"k" * 32)
    panes.register_created(SURFACE, TmuxPaneId("%1"), 0)

    def nothing_in_front(_pane: Pane) -> tuple[AgentProvider | None, int | None]:
        return None, None

    router = CodexRouter(panes=panes, foreground_agent=nothing_in_front, clock=clock.now)
    jobs = JobRegistry(
        hub=hub,
        panes=panes,
        foreground_agent=nothing_in_front,
        codex_router=router,
        clock=clock,
        launch_window=window,
    )
    return jobs, hub


def test_a_job_without_a_run_fails_when_its_window_closes_not_before(tmp_path: Path) -> None:
    clock = ManualClock()
    jobs, hub = registry(clock, tmp_path)
    job = jobs.start(SURFACE, WorkerProvider.CLAUDE, "w", [])
    assert job.deadline == clock.now() + 30.0
    bumps = hub.version
    clock.advance(29.9)
    assert jobs.current(job.job_id).state is AgentJobState.LAUNCHING
    assert hub.version == bumps and hub.attention.items(clock.now()) == []
    clock.advance(0.1 + DEADLINE_MARGIN_S)  # the timer settles the job: nobody has to look
    assert hub.version > bumps  # the waiters were woken
    [item] = hub.attention.items(clock.now())
    assert (str(item.run_id), item.kind.value) == (job.job_id, "launch-failure")
    failed = jobs.current(job.job_id)
    assert failed.state is AgentJobState.LAUNCH_FAILED
    assert failed.message is not None and "launch window" in failed.message


def test_the_window_is_the_injected_one(tmp_path: Path) -> None:
    clock = ManualClock()
    jobs, _hub = registry(clock, tmp_path, window=3.0)
    job = jobs.start(SURFACE, WorkerProvider.CODEX, None, [])
    clock.advance(2.9)
    assert jobs.current(job.job_id).state is AgentJobState.LAUNCHING
    clock.advance(0.2)
    assert jobs.current(job.job_id).state is AgentJobState.LAUNCH_FAILED


def test_a_run_that_starts_in_the_window_binds_and_the_timer_changes_nothing(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    jobs, hub = registry(clock, tmp_path)
    job = jobs.start(SURFACE, WorkerProvider.CLAUDE, None, [])
    clock.advance(5)
    started = ev(AgentEventKind.STARTED, run=U("run-1"), pane=SURFACE, at=clock.now(), hook="x")
    hub.book.apply(started)
    assert jobs.current(job.job_id).state is AgentJobState.RUNNING
    clock.advance(60)
    assert jobs.current(job.job_id).state is AgentJobState.RUNNING
    assert hub.attention.items(clock.now()) == []


def test_a_follow_up_opens_a_new_window_from_now(tmp_path: Path) -> None:
    clock = ManualClock()
    jobs, hub = registry(clock, tmp_path)
    job = jobs.start(SURFACE, WorkerProvider.CLAUDE, None, [])
    run = U("run-1")
    hub.book.apply(ev(AgentEventKind.STARTED, run=run, pane=SURFACE, at=clock.now() + 1))
    clock.advance(2)
    hub.book.apply(ev(AgentEventKind.SUCCEEDED, run=run, pane=SURFACE, at=clock.now()))
    assert jobs.current(job.job_id).state is AgentJobState.SUCCEEDED
    clock.advance(100)
    again = jobs.re_arm(job.job_id)
    assert again.state is AgentJobState.LAUNCHING and again.deadline == clock.now() + 30.0
    clock.advance(30 + DEADLINE_MARGIN_S)
    assert jobs.current(job.job_id).state is AgentJobState.LAUNCH_FAILED


# -- the Cursor approval estimate -------------------------------------------------------------------


def cursor_event(hook: str, *, at: float, tool: str | None = "t1") -> AgentEvent:
    base = ev(AgentEventKind.RUNNING, run=U("cursor-run"), provider=AgentProvider.CURSOR, at=at)
    return dataclasses.replace(base, hook_name=hook, tool_use_id=tool, tool_name="Shell")


def estimator(clock: ManualClock) -> tuple[CursorApprovalEstimator, list[AgentEvent]]:
    recorded: list[AgentEvent] = []

    async def record(event: AgentEvent) -> bool:
        recorded.append(event)
        return True

    return CursorApprovalEstimator(record, clock, threshold=10.0), recorded


def test_an_unanswered_tool_call_becomes_an_approval_request_at_the_threshold() -> None:
    async def scenario() -> None:
        clock = ManualClock(start=500.0)
        est, recorded = estimator(clock)
        est.observe(cursor_event("preToolUse", at=500.0), True)
        clock.advance(9.99)
        await asyncio.sleep(0)
        assert recorded == []
        clock.advance(0.01)
        await asyncio.sleep(0)
        [synth] = recorded
        assert synth.kind is AgentEventKind.APPROVAL_REQUESTED and synth.synthesized
        assert synth.hook_name == HOOK_NAME and synth.message == "Shell requires approval"
        assert synth.occurred_at == 510.0  # the preToolUse's time plus the threshold
        assert synth.run_id == RunId(U("cursor-run")) and synth.tool_use_id == "t1"

    asyncio.run(scenario())


@pytest.mark.parametrize("answer", ["postToolUse", "postToolUseFailure", "stop"])
def test_an_answer_between_the_timer_and_its_recording_withdraws_the_estimate(answer: str) -> None:
    # The timer fired, and the tool's post event (or the run's end) was taken before the
    # estimate's task ran: recording it then would put a run that went on back in
    # waiting-approval, where its Stop is ignored (seen in the 200-agent truth soak).
    async def scenario() -> None:
        clock = ManualClock(start=0.0)
        est, recorded = estimator(clock)
        est.observe(cursor_event("preToolUse", at=0.0), True)
        clock.advance(10)  # fired: its recording task is scheduled, not run
        est.observe(cursor_event(answer, at=10.0, tool="t1" if answer != "stop" else None), True)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert recorded == []

    asyncio.run(scenario())


@pytest.mark.parametrize("answer", ["postToolUse", "postToolUseFailure", "stop"])
def test_an_answered_tool_call_is_no_approval(answer: str) -> None:
    async def scenario() -> None:
        clock = ManualClock(start=0.0)
        est, recorded = estimator(clock)
        est.observe(cursor_event("preToolUse", at=0.0), True)
        clock.advance(9)
        est.observe(cursor_event(answer, at=9.0, tool="t1" if answer != "stop" else None), True)
        clock.advance(60)
        await asyncio.sleep(0)
        assert recorded == [] and clock.pending == 0

    asyncio.run(scenario())


def test_a_duplicate_pre_tool_use_arms_nothing() -> None:
    clock = ManualClock(start=0.0)
    est, _recorded = estimator(clock)
    est.observe(cursor_event("preToolUse", at=0.0), False)  # already stored: a redelivery
    assert clock.pending == 0
    est.observe(cursor_event("preToolUse", at=0.0), True)
    est.observe(cursor_event("preToolUse", at=0.0), True)
    assert clock.pending == 1
    est.cancel_all()
    assert clock.pending == 0
