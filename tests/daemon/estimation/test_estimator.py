"""The native estimator's wiring: detection → epochs → AgentHub, with time on a ManualClock.

The detector is scripted (which agent each pane shows); process exits come from real child
processes through their pidfds, so the exit channel is the real one.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from mytty.core import vocab
from mytty.core.estimation.epochs import epoch_key, epoch_run_id, turn_run_id
from mytty.core.estimation.turn_observation import TurnObservation, TurnPhase, TurnTarget
from mytty.core.events import (
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    AgentRunState,
    WorkerProvider,
)
from mytty.core.ids import RunId, SurfaceId, TmuxPaneId
from mytty.core.jobs.tracker import AgentJobState
from mytty.core.shell.events import ShellEvent
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import ManualClock, Timings
from mytty.daemon.estimation.detect import NOTHING, AgentDetector, Detection
from mytty.daemon.estimation.estimator import NativeEstimator
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.store import EventStore

CLAUDE = AgentProvider.CLAUDE_CODE
SURFACE = SurfaceId("AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE")
PANE_PID = 999_999_001  # no such process: the detector is scripted


class ScriptedDetector(AgentDetector):
    def __init__(self) -> None:
        super().__init__()
        self.shown: dict[int, Detection] = {}
        self.looks = 0

    def detect(self, pane_pid: int) -> Detection:
        self.looks += 1
        return self.shown.get(pane_pid, NOTHING)


class Turns:
    def __init__(self) -> None:
        self.now: TurnObservation | None = None
        self.targets: list[TurnTarget] = []

    def observe(self, target: TurnTarget) -> TurnObservation | None:
        self.targets.append(target)
        return self.now


class World:
    def __init__(self, tmp_path: Path, status: str = vocab.NOT_INSTALLED) -> None:
        self.clock = ManualClock()
        self.store = EventStore(tmp_path / "events.sqlite3")
        self.hub = AgentHub(self.store, clock=self.clock.now)
        self.panes = PaneRegistry(b"s" * 32)
        self.panes.register_created(SURFACE, TmuxPaneId("%1"), PANE_PID)
        self.detector = ScriptedDetector()
        self.status = status
        self.turns = Turns()
        self.est = NativeEstimator(
            hub=self.hub,
            panes=self.panes,
            clock=self.clock,
            integration_status=self.integration_status,
            timings=Timings(native_start_grace=3.0, native_poll=0.5, native_exit_settle=0.25),
            detector=self.detector,
            turns=self.turns,
        )
        self.est.attach()
        self.inserted: list[AgentEvent] = []
        self.hub.add_observer(lambda e, new: self.inserted.append(e) if new else None)

    async def integration_status(self, provider: AgentProvider) -> str:
        return self.status

    def show(self, provider: AgentProvider | None, pid: int | None) -> None:
        self.detector.shown[PANE_PID] = Detection(provider, pid, pid)

    async def settle(self) -> None:
        """Let the loop run what the clock made due, then ingest it."""
        for _ in range(1000):
            await asyncio.sleep(0)
            if not self.est.busy:
                break
        await self.est.drain()

    async def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)
        await self.settle()

    def run(self) -> AgentRunState | None:
        runs = self.hub.book.runs_for(SURFACE, CLAUDE)
        return runs[-1].state if runs else None

    def hook_names(self) -> list[str | None]:
        return [e.hook_name for e in self.inserted]


def scenario(tmp_path: Path, body: Callable[[World], Awaitable[None]], **kw: str) -> None:
    async def main() -> None:
        world = World(tmp_path, **kw)
        world.store.open()
        world.store.start_writer(asyncio.get_running_loop())
        task = asyncio.create_task(world.est.run())
        try:
            await world.settle()
            await body(world)
            assert not task.done(), task  # the loop must survive everything a test does
        finally:
            task.cancel()
            world.est.close()
            world.store.close()

    asyncio.run(main())


def sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def test_a_detected_agent_starts_after_the_grace_and_finishes_by_exit_status(
    tmp_path: Path,
) -> None:
    async def body(w: World) -> None:
        proc = sleeper()
        try:
            w.show(CLAUDE, proc.pid)
            await w.advance(0.5)  # the poll sees it
            assert w.run() is None
            await w.advance(2.9)
            assert w.run() is None  # still in its grace
            await w.advance(0.2)
            assert w.run() is AgentRunState.RUNNING
            w.est.on_shell_event(SURFACE, ShellEvent(True, 0, None, "c" * 64, "/"))
            await w.settle()
            assert w.run() is AgentRunState.SUCCEEDED
        finally:
            proc.kill()
            proc.wait()

    scenario(tmp_path, body)


def test_an_exit_without_a_status_ends_disconnected_after_the_settle(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        proc = sleeper()
        w.show(CLAUDE, proc.pid)
        await w.advance(0.5)
        await w.advance(3.0)
        assert w.run() is AgentRunState.RUNNING
        looks = w.detector.looks
        proc.kill()
        proc.wait()
        w.show(None, None)
        # The pidfd reports the exit without any poll tick.
        for _ in range(200):
            await asyncio.sleep(0.01)
            if w.clock.pending > 1:
                break
        assert w.detector.looks == looks  # no pass ran: it waits for the shell's report
        await w.advance(0.25)
        assert w.run() is AgentRunState.DISCONNECTED
        assert w.hook_names()[-1] == "mytty.native.processExited"

    scenario(tmp_path, body)


def test_a_poll_tick_that_sees_the_agent_gone_waits_for_the_shells_late_report(
    tmp_path: Path,
) -> None:
    # CI, two busy cores: the poll tick saw the agent gone (before its pidfd woke the
    # estimator) and ended the run ``disconnected``; the shell's "exit 1" came 0.3 s later.
    async def body(w: World) -> None:
        w.show(CLAUDE, 4242)  # no such process: only the poll can see it go
        await w.advance(0.5)
        await w.advance(3.0)
        assert w.run() is AgentRunState.RUNNING
        w.show(None, None)
        await w.advance(0.5)  # a full pass sees the shell in front again
        await w.advance(0.2)
        assert w.run() is AgentRunState.RUNNING  # within the settle: not yet disconnected
        w.est.on_shell_event(SURFACE, ShellEvent(True, 1, None, "c" * 64, "/"))
        await w.settle()
        assert w.run() is AgentRunState.FAILED
        await w.advance(1.0)
        assert w.run() is AgentRunState.FAILED
        assert w.hook_names()[-1] == "mytty.native.commandFinished"

    scenario(tmp_path, body)


def test_a_poll_tick_that_sees_the_agent_gone_ends_it_once_the_settle_passed(
    tmp_path: Path,
) -> None:
    async def body(w: World) -> None:
        w.show(CLAUDE, 4242)
        await w.advance(0.5)
        await w.advance(3.0)
        w.show(None, None)
        await w.advance(0.5)
        assert w.run() is AgentRunState.RUNNING
        await w.advance(0.25)  # the settle passed with no report from the shell
        await w.advance(0.5)
        assert w.run() is AgentRunState.DISCONNECTED
        assert w.hook_names()[-1] == "mytty.native.processExited"

    scenario(tmp_path, body)


def test_an_installed_integration_is_not_estimated(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        w.show(CLAUDE, 4242)
        await w.advance(0.5)
        await w.advance(10)
        assert w.run() is None and w.hook_names() == []
        assert w.turns.targets == []  # hooks report it: its transcript is not read here

    scenario(tmp_path, body, status=vocab.INSTALLED)


def test_a_hook_event_silences_the_epoch(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        w.show(CLAUDE, 4242)
        await w.advance(0.5)
        hook = AgentEvent(
            id="11111111-2222-4333-8444-555555555555",
            run_id=RunId("11111111-2222-4333-8444-666666666666"),
            surface_id=SURFACE,
            provider=CLAUDE,
            kind=AgentEventKind.STARTED,
            occurred_at=w.clock.now(),
            session_id="s",
            hook_name="UserPromptSubmit",
        )
        await w.hub.ingest(hook)
        await w.advance(10)
        assert w.hook_names() == ["UserPromptSubmit"]
        w.est.on_shell_event(SURFACE, ShellEvent(True, 0, None, "c" * 64, "/"))
        await w.settle()
        assert w.hook_names() == ["UserPromptSubmit"]

    scenario(tmp_path, body)


def test_turns_are_asked_for_each_pane_with_an_agent(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        w.show(CLAUDE, 4242)
        await w.advance(0.5)
        await w.advance(3.0)
        assert w.turns.targets and w.turns.targets[-1].pid == 4242
        assert w.turns.targets[-1].surface_id == SURFACE
        w.turns.now = TurnObservation("prompt-1", TurnPhase.ACTIVE)
        await w.advance(0.5)
        turn = w.hub.book.get(RunId(epoch_run_id(epoch_key(SURFACE, CLAUDE, 4242, 0))))
        assert turn is not None and turn.state is AgentRunState.IDLE  # handed off
        assert w.hook_names()[-2:] == ["mytty.native.turnHandoff", "mytty.native.turnStarted"]
        w.turns.now = TurnObservation("prompt-1", TurnPhase.COMPLETED)
        await w.advance(0.5)
        assert w.hook_names()[-1] == "mytty.native.turnCompleted"

    scenario(tmp_path, body)


def test_a_pane_that_goes_away_ends_its_run_at_once(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        w.show(CLAUDE, 4242)
        await w.advance(0.5)
        await w.advance(3.0)
        w.est.pane_gone(SURFACE)
        await w.settle()
        assert w.run() is AgentRunState.DISCONNECTED

    scenario(tmp_path, body)


def test_a_restart_keeps_tracking_a_running_agent(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        run = epoch_run_id(epoch_key(SURFACE, CLAUDE, 4242, 0))
        started = AgentEvent(
            id="21111111-2222-4333-8444-555555555555",
            run_id=run,
            surface_id=SURFACE,
            provider=CLAUDE,
            kind=AgentEventKind.STARTED,
            occurred_at=w.clock.now(),
            hook_name="mytty.native.launchObserved",
        )
        await w.hub.ingest(started)
        # A fresh estimator, as after a controller restart.
        est = NativeEstimator(
            hub=w.hub,
            panes=w.panes,
            clock=w.clock,
            integration_status=w.integration_status,
            detector=w.detector,
        )
        w.show(CLAUDE, 4242)
        await est.restore()
        r = w.hub.book.get(run)
        assert r is not None and est.agent_alive(r)
        est.on_shell_event(SURFACE, ShellEvent(True, 1, None, "c" * 64, "/"))
        await est.drain()
        r = w.hub.book.get(run)
        assert r is not None and r.state is AgentRunState.FAILED
        est.close()

    scenario(tmp_path, body)


def test_a_job_bound_to_the_epoch_run_follows_the_hand_off(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        def in_front(_pane: Pane) -> tuple[AgentProvider | None, int | None]:
            return CLAUDE, 4242

        router = CodexRouter(panes=w.panes, foreground_agent=in_front, clock=w.clock.now)
        jobs = JobRegistry(
            hub=w.hub,
            panes=w.panes,
            foreground_agent=in_front,
            codex_router=router,
            clock=w.clock,
            successor_run=w.est.machine.successor,
        )
        job = jobs.start(SURFACE, WorkerProvider.CLAUDE, "w", [])
        w.show(CLAUDE, 4242)
        await w.advance(0.5)
        await w.advance(3.0)
        bound = jobs.current(job.job_id)
        assert bound.state is AgentJobState.RUNNING
        assert bound.run_id == epoch_run_id(epoch_key(SURFACE, CLAUDE, 4242, 0))
        w.turns.now = TurnObservation("prompt-1", TurnPhase.ACTIVE)
        await w.advance(0.5)
        moved = jobs.current(job.job_id)
        assert moved.state is AgentJobState.RUNNING  # not "interrupted" by the hand-off
        assert moved.run_id == turn_run_id(CLAUDE, "prompt-1")
        w.turns.now = TurnObservation("prompt-1", TurnPhase.COMPLETED)
        await w.advance(0.5)
        assert jobs.current(job.job_id).state is AgentJobState.SUCCEEDED

    scenario(tmp_path, body)


def test_exits_elsewhere_never_postpone_the_full_pass(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        for step in range(8):  # a dirty pane every 0.25 s, faster than the 0.5 s poll
            if step == 4:
                w.show(CLAUDE, 4242)  # only a full pass can see it: nothing marks it dirty
            w.est.mark_dirty(SurfaceId("00000000-0000-4000-8000-000000000000"))
            await w.advance(0.25)
        assert w.est.detection(SURFACE) == Detection(CLAUDE, 4242, 4242)

    scenario(tmp_path, body)


def test_a_failure_the_source_emits_while_asked_fails_the_turn_it_first_sees_ended(
    tmp_path: Path,
) -> None:
    """Codex's API error: the reader emits its own ``failed`` event on the turn's run while it
    is asked, and reports the turn "completed". A whole turn between two looks then ends
    ``failed`` with the message (not ``succeeded``: the reader's event came before the start)."""
    codex = AgentProvider.CODEX

    class FailingTurns(Turns):
        def observe(self, target: TurnTarget) -> TurnObservation | None:
            seen = super().observe(target)
            if seen is not None:
                w.est.source_emitted(
                    AgentEvent(
                        id="F" * 8,
                        run_id=turn_run_id(codex, seen.key),
                        surface_id=SURFACE,
                        provider=codex,
                        kind=AgentEventKind.FAILED,
                        occurred_at=0.0,
                        message="unexpected status 400: boom",
                        hook_name="mytty.codexTurnFailed",
                    )
                )
            return seen

    w: World

    async def body(world: World) -> None:
        nonlocal w
        w = world
        w.est.turns = turns = FailingTurns()
        w.show(codex, 4242)
        await w.advance(0.5)  # detected; no turn yet
        turns.now = TurnObservation("t1", TurnPhase.COMPLETED)
        await w.advance(0.5)
        assert w.hook_names() == ["mytty.native.turnStarted", "mytty.native.turnFailed"]
        run = w.hub.book.get(turn_run_id(codex, "t1"))
        assert run is not None and run.state is AgentRunState.FAILED, run
        assert run.message == "unexpected status 400: boom"
        w.est.source_emitted(w.inserted[0])  # not being asked: nothing is kept
        assert w.est._asking is None

    scenario(tmp_path, body)


def test_the_first_look_counts_a_turn_over_before_it_by_the_process_start(
    tmp_path: Path,
) -> None:
    """An agent so quick its first turn is over before the pass that detects it: the turn's
    start (from its transcript) is compared with the real process's start from /proc. One
    that began after it is a run; a resumed session's older turn is not."""

    async def body(w: World) -> None:
        proc = sleeper()
        try:
            w.turns.now = TurnObservation("old", TurnPhase.COMPLETED, started_at=time.time() - 3600)
            w.show(CLAUDE, proc.pid)
            await w.advance(0.5)
            assert w.hook_names() == []  # an old session's turn
        finally:
            proc.kill()
            proc.wait()
        w.show(None, None)
        await w.advance(0.5)
        proc = sleeper()
        try:
            # Wait for the child to be running (its /proc entry), then its turn is over.
            w.turns.now = TurnObservation("p1", TurnPhase.COMPLETED, started_at=time.time())
            w.show(CLAUDE, proc.pid)
            await w.advance(0.5)
            assert w.hook_names()[-2:] == [
                "mytty.native.turnStarted",
                "mytty.native.turnCompleted",
            ]
            run = w.hub.book.get(turn_run_id(CLAUDE, "p1"))
            assert run is not None and run.state is AgentRunState.SUCCEEDED, run
        finally:
            proc.kill()
            proc.wait()

    scenario(tmp_path, body)
