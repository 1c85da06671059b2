"""The limits service on the controller's clock: parks filled in, continued one account at a
time, re-parks backing off, the agent's own continuation not doubled, held sends delivered in
order, a restart keeping every park and timer (ManualClock: time is moved, never waited out)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from mytty.core.attention.items import AttentionKind
from mytty.core.config import LimitSettings
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider, WorkerProvider
from mytty.core.ids import RunId, SurfaceId, TmuxPaneId, stable_uuid
from mytty.core.jobs.tracker import AgentJob, AgentJobState
from mytty.core.limits.facts import LimitFacts
from mytty.core.limits.park import DEFAULT_CONTINUATION
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import ManualClock
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.limits.service import LimitService, ParkedAccounts
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.store import EventStore
from mytty.protocol.replies import ResumeEntry
from mytty.tmux.port import ScreenCapture

T0 = 1_800_000_000.0
RESET = T0 + 600.0
MARGIN, STAGGER, WINDOW = 120.0, 5.0, 30.0
CLAUDE = AgentProvider.CLAUDE_CODE
J = AgentJobState


class Port:
    """What the service asks of tmux: typing, keys, the screen (recorded with the time)."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.typed: list[tuple[float, str, str]] = []  # (time, tmux pane, text or <key>)
        self.screens: dict[str, list[str]] = {}  # tmux pane -> screens, the last one repeats

    async def send_text(self, pane_id: TmuxPaneId, text: str) -> None:
        self.typed.append((self.clock.now(), pane_id, text))

    async def send_key(self, pane_id: TmuxPaneId, key: str) -> None:
        self.typed.append((self.clock.now(), pane_id, f"<{key}>"))

    async def capture(self, pane_id: TmuxPaneId) -> ScreenCapture:
        """The screens set for the pane (the last one repeats), under what was typed into it
        (a terminal's echo)."""
        screens = self.screens.get(pane_id) or [""]
        text = screens.pop(0) if len(screens) > 1 else screens[0]
        return ScreenCapture("\n".join([text, *self.prompts(pane_id)]), None, None)

    def prompts(self, pane: str | None = None) -> list[str]:
        return [t for _, p, t in self.typed if (pane is None or p == pane) and t[0] != "<"]


@dataclass
class Restarts:
    asked: list[tuple[str, str]] = field(default_factory=list)
    refuse: str | None = None

    async def restart(self, job_id: str, prompt: str) -> ResumeEntry:
        self.asked.append((job_id, prompt))
        entry: ResumeEntry = {
            "jobID": {"rawValue": job_id},
            "provider": "claude",
            "state": "launching",
            "sessionID": "s",
            "cwd": "/w",
            "argv": None if self.refuse else ["claude", "--resume", "s"],
            "resumed": self.refuse is None,
        }
        if self.refuse:
            entry["skipped"] = self.refuse
        return entry


class World:
    def __init__(self, store: EventStore, clock: ManualClock, settings: LimitSettings) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings
        self.port = Port(clock)
        self.panes = PaneRegistry(b"k" * 32)
        self.hub = AgentHub(store, clock=clock.now)
        self.facts: dict[RunId, LimitFacts] = {}
        self.alive: set[SurfaceId] = set()
        self.items: list[Any] = []
        self.restarts = Restarts()
        self._locks: dict[str, asyncio.Lock] = {}
        self._events = 0
        #: The provider of every worker here.
        self.provider = CLAUDE
        self.jobs = JobRegistry(
            hub=self.hub,
            panes=self.panes,
            foreground_agent=self.agent_in,
            codex_router=CodexRouter(
                panes=self.panes, foreground_agent=self.agent_in, clock=clock.now
            ),
            clock=clock,
            launch_window=WINDOW,
            store=store,
            after_reconcile=lambda b, a: self.limits.after_reconcile(b, a),
            resumes_at=lambda j: self.limits.resumes_at(j),
        )
        self.limits = LimitService(
            self,
            restarter=self.restarts,
            clock=clock,
            settings=lambda: self.settings,
            limit_facts=lambda _s, run: self.facts.get(run),
            notify_item=self.items.append,
            launch_window=WINDOW,
            environment={"HOME": "/home/u", "ANTHROPIC_API_KEY": "sk-one"},
            dialog_close_s=0.2,
        )
        self.hub.add_observer(self.limits.observe)

    # -- LimitContext ---------------------------------------------------------------------------
    def require_port(self) -> Any:
        return self.port

    def pane_lock(self, surface_id: str) -> asyncio.Lock:
        return self._locks.setdefault(surface_id, asyncio.Lock())

    def agent_in(self, pane: Pane) -> tuple[AgentProvider | None, int | None]:
        return (self.provider, None) if pane.surface_id in self.alive else (None, None)

    # -- driving --------------------------------------------------------------------------------
    def pane(self, n: int) -> SurfaceId:
        surface = SurfaceId(stable_uuid("pane", str(n)))
        if surface not in self.panes.by_surface:
            self.panes.register_created(surface, TmuxPaneId(f"%{n}"), 1000 + n)
            self.alive.add(surface)
        return surface

    async def event(self, surface: SurfaceId, run: RunId, kind: AgentEventKind) -> None:
        self._events += 1
        await self.hub.ingest(
            AgentEvent(
                id=stable_uuid("event", str(self._events)),
                run_id=run,
                surface_id=surface,
                provider=self.provider,
                kind=kind,
                occurred_at=self.clock.now(),
                session_id="sess-" + surface[:8],
            )
        )
        await self.settle()

    async def settle(self) -> None:
        for _ in range(3):
            await asyncio.sleep(0)  # the service plans on the next turn of the loop
        await self.limits.wait_idle()
        await self.jobs.flush()

    async def turn(self, surface: SurfaceId) -> RunId:
        """The agent starts a new turn of its conversation (whoever asked for it)."""
        run = RunId(stable_uuid("run", surface, str(self._events)))
        await self.event(surface, run, AgentEventKind.STARTED)
        return run

    async def spawned(self, n: int) -> AgentJob:
        worker = (
            WorkerProvider.CODEX if self.provider is AgentProvider.CODEX else WorkerProvider.CLAUDE
        )
        job = self.jobs.start(self.pane(n), worker, f"w{n}", [])
        await self.turn(job.surface_id)
        return self.job(job)

    def job(self, job: AgentJob) -> AgentJob:
        return self.jobs.current(job.job_id)

    async def limit(
        self, job: AgentJob, until: float | None, window: str = "five_hour"
    ) -> AgentJob:
        """The job's current run stops at the usage limit (facts as its transcript gives)."""
        run = self.job(job).run_id
        assert run is not None
        self.facts[run] = LimitFacts(until, window if until else None, "You've hit your limit")
        await self.event(job.surface_id, run, AgentEventKind.LIMIT_REACHED)
        return self.job(job)

    async def finish(self, job: AgentJob) -> None:
        run = self.job(job).run_id
        assert run is not None
        await self.event(job.surface_id, run, AgentEventKind.SUCCEEDED)

    async def advance_to(self, at: float) -> None:
        self.clock.advance(max(0.0, at - self.clock.now()))
        await self.settle()


def with_world(body: Any, settings: LimitSettings | None = None, tmp: Path | None = None) -> None:
    async def main() -> None:
        assert tmp is not None
        store = EventStore(tmp / "events.sqlite3")
        store.open()
        store.start_writer(asyncio.get_running_loop())
        try:
            world = World(store, ManualClock(T0), settings or RULES)
            world.limits.start()
            await body(world)
            await world.limits.close()
        finally:
            store.close()

    asyncio.run(main())


RULES = LimitSettings(resume_margin_seconds=MARGIN, stagger_seconds=STAGGER)


def test_a_limit_parks_the_job_with_its_reset_account_and_one_item(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        parked = await w.limit(job, RESET)
        assert parked.state is J.PARKED and parked.park is not None
        assert parked.park.until == RESET and parked.park.limit == "five_hour"
        assert parked.park.account is not None and parked.park.account.startswith("claude-code:")
        assert w.limits.resumes_at(parked) == RESET + MARGIN
        assert "continues it on its conversation at" in (parked.message or "")
        snap = w.jobs.snapshot(parked)
        assert snap["state"] == "parked" and snap["parkedUntil"] is not None
        assert snap["resumesAt"] is not None and snap["limit"] == "five_hour"
        items = [i for i in w.hub.attention.items(w.clock.now()) if i.surface_id == job.surface_id]
        assert [i.kind for i in items] == [AttentionKind.USAGE_LIMIT]  # one item, no failure
        report = w.limits.report()
        assert [a["account"] for a in report["accounts"]] == [parked.park.account]
        assert report["jobs"][0]["jobID"] == {"rawValue": job.job_id}

    with_world(body, tmp=tmp_path)


def test_four_parked_jobs_of_one_account_go_on_in_order_stagger_apart(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        jobs = [await w.spawned(n) for n in range(4)]
        for job in reversed(jobs):  # parked last to first
            w.clock.advance(1)
            await w.limit(job, RESET)
        await w.advance_to(RESET + MARGIN - 0.25)
        assert w.port.prompts() == []
        order = []

        def continued() -> list[tuple[float, str]]:
            return [(t, p) for t, p, text in w.port.typed if text == DEFAULT_CONTINUATION]

        for k in range(4):
            # The next one goes a stagger after the last one reached its agent: step the
            # clock until it does (at most a stagger and a bit), never two at once.
            for _ in range(int(STAGGER / 0.25) + 4):
                if len(continued()) > k:
                    break
                await w.advance_to(w.clock.now() + 0.25)
            typed = continued()
            assert len(typed) == k + 1  # one at a time
            order.append(typed[-1])
            pane = typed[-1][1]
            going = next(j for j in jobs if w.panes.by_surface[j.surface_id].tmux_id == pane)
            await w.turn(going.surface_id)  # the continuation starts its next turn
            assert w.job(going).state is J.RUNNING
        panes = [p for _, p in order]
        parked_order = [w.panes.by_surface[j.surface_id].tmux_id for j in reversed(jobs)]
        assert panes == parked_order  # in the order they parked
        times = [t for t, _ in order]
        assert all(b - a >= STAGGER - 0.02 for a, b in itertools.pairwise(times))

    with_world(body, tmp=tmp_path)


def test_a_job_parked_again_right_after_going_on_backs_off_then_stays(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        until = RESET
        for streak in (1, 2, 3):
            parked = await w.limit(job, until)
            assert parked.park is not None and parked.park.streak == streak
            due = until + MARGIN * 2 ** (streak - 1)
            assert w.limits.resumes_at(parked) == due
            await w.advance_to(due - 1)
            assert len(w.port.prompts()) == streak - 1
            await w.advance_to(due + 0.1)
            assert len(w.port.prompts()) == streak
            await w.turn(job.surface_id)  # it goes on ... and hits the limit again at once
            until = w.clock.now() + 60
        held = await w.limit(job, until)
        assert held.park is not None and held.park.held and held.park.streak == 4
        assert w.limits.resumes_at(held) is None
        assert any(i.kind is AttentionKind.USAGE_LIMIT and i.run_id == job.job_id for i in w.items)
        await w.advance_to(until + 10_000)
        assert len(w.port.prompts()) == 3  # held: never continued again by itself
        w.limits.resume_now([job.job_id])
        await w.settle()
        assert len(w.port.prompts()) == 4
        await w.turn(job.surface_id)
        await w.finish(job)
        assert w.job(job).state is J.SUCCEEDED and w.job(job).limit_streak == 0

    with_world(body, tmp=tmp_path)


def test_the_agents_own_continuation_is_not_doubled(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        await w.limit(job, RESET)
        await w.advance_to(RESET + 60)  # Claude's own continuation, 30 to 90 s after the reset
        await w.turn(job.surface_id)
        assert w.job(job).state is J.RUNNING and w.job(job).park is None
        await w.advance_to(RESET + MARGIN + 3600)
        assert w.port.prompts() == []  # mytty sent nothing
        await w.finish(job)
        assert w.job(job).state is J.SUCCEEDED

    with_world(body, tmp=tmp_path)


def test_a_park_without_a_reset_waits_for_limits_resume(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        parked = await w.limit(job, None)
        assert parked.park is not None and parked.park.until is None
        assert "gave no reset time" in (parked.message or "")
        assert w.jobs.snapshot(parked)["parkedUntil"] is None
        await w.advance_to(T0 + 7 * 86400)
        assert w.port.prompts() == [] and w.job(job).state is J.PARKED
        w.limits.resume_now(None)  # --all
        await w.settle()
        assert w.port.prompts() == [DEFAULT_CONTINUATION]

    with_world(body, tmp=tmp_path)


def test_held_sends_are_delivered_in_order_after_it_went_on(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        await w.limit(job, RESET)
        assert w.limits.hold_send(job.job_id, "first", True)
        assert w.limits.hold_send(job.job_id, "second", True)
        assert w.jobs.snapshot(w.job(job))["heldSends"] == 2
        assert w.port.prompts() == []  # nothing typed while parked
        await w.advance_to(RESET + MARGIN + 1)
        await w.turn(job.surface_id)  # the continuation's turn
        assert w.limits.hold_send(job.job_id, "third", False)  # behind the held ones
        for expected in ("first", "second", "third"):
            await w.finish(job)
            assert w.job(job).state is J.LAUNCHING  # never terminal while sends wait
            assert w.port.prompts()[-1] == expected
            await w.turn(job.surface_id)
        await w.finish(job)
        done = w.job(job)
        assert done.state is J.SUCCEEDED and done.held_sends == ()
        assert w.port.prompts() == [DEFAULT_CONTINUATION, "first", "second", "third"]
        enters = [t for _, _, t in w.port.typed if t == "<Enter>"]
        assert len(enters) == 3  # third was sent without --enter

    with_world(body, tmp=tmp_path)


def test_a_restart_keeps_the_park_and_its_timer(tmp_path: Path) -> None:
    state: dict[str, Any] = {}

    async def before(w: World) -> None:
        job = await w.spawned(1)
        await w.limit(job, RESET)
        assert w.limits.hold_send(job.job_id, "later", True)
        state["job"] = job.job_id
        state["surface"] = job.surface_id

    async def after(w: World) -> None:
        w.pane(1)
        w.jobs.load(w.store.load_jobs(500))
        await w.jobs.sweep()
        w.limits.start()
        job = w.jobs.current(state["job"])
        assert job.state is J.PARKED and job.park is not None and job.park.until == RESET
        assert job.held_sends and w.limits.resumes_at(job) == RESET + MARGIN
        await w.advance_to(RESET + MARGIN + 0.5)
        assert w.port.prompts() == [DEFAULT_CONTINUATION]

    with_world(before, tmp=tmp_path)
    with_world(after, tmp=tmp_path)


def test_a_gone_process_is_restarted_on_its_conversation(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        await w.limit(job, RESET)
        w.alive.discard(job.surface_id)  # the agent exited; its pane is at the shell
        await w.advance_to(RESET + MARGIN + 1)
        assert w.restarts.asked == [(job.job_id, DEFAULT_CONTINUATION)]
        assert w.port.prompts() == []

    with_world(body, tmp=tmp_path)


def test_a_restart_that_cannot_be_made_holds_the_job_and_says_why(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        w.restarts.refuse = "mytty never learned its conversation (no session id)"
        job = await w.spawned(1)
        await w.limit(job, RESET)
        w.alive.discard(job.surface_id)
        await w.advance_to(RESET + MARGIN + 1)
        held = w.job(job)
        assert held.state is J.PARKED and held.park is not None and held.park.held
        assert "no session id" in (held.message or "")
        assert any(i.kind is AttentionKind.USAGE_LIMIT for i in w.items)

    with_world(body, tmp=tmp_path)


def test_a_codex_switch_model_dialog_is_closed_before_typing(tmp_path: Path) -> None:
    modal = (
        "Approaching rate limits\n  Switch to gpt-6-luna for lower credit usage?\n"
        "\u203a 1. Switch to gpt-6-luna\n  2. Keep current model\n"
        "  3. Keep current model (never show again)\n  enter select · esc back"
    )

    async def body(w: World) -> None:
        w.provider = AgentProvider.CODEX
        job = await w.spawned(1)
        await w.limit(job, RESET)
        tmux = w.panes.by_surface[job.surface_id].tmux_id
        w.port.screens[tmux] = [modal, "\u203a ready"]
        await w.advance_to(RESET + MARGIN + 1)
        # "2" keeps the model (a blind Enter would switch it), then the continuation.
        assert [t for _, _, t in w.port.typed] == ["2", DEFAULT_CONTINUATION, "<Enter>"]

    with_world(body, tmp=tmp_path)


def test_a_dialog_that_stays_open_holds_the_job_and_nothing_is_typed(tmp_path: Path) -> None:
    modal = "What do you want to do?\n\u276f 1. Stop and wait for limit to reset\n  2. Wait here"

    async def body(w: World) -> None:
        job = await w.spawned(1)
        await w.limit(job, RESET)
        w.port.screens[w.panes.by_surface[job.surface_id].tmux_id] = [modal]
        await w.advance_to(RESET + MARGIN + 1)
        assert w.port.prompts() == []  # only Esc, tried once
        assert [t for _, _, t in w.port.typed] == ["<Escape>"]
        held = w.job(job)
        assert held.park is not None and held.park.held and "did not close" in (held.message or "")

    with_world(body, tmp=tmp_path)


def test_a_continuation_that_starts_no_turn_counts_as_a_re_park(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        await w.limit(job, RESET)
        await w.advance_to(RESET + MARGIN + 1)
        assert len(w.port.prompts()) == 1
        await w.advance_to(RESET + MARGIN + 1 + WINDOW + 1)
        job_now = w.job(job)
        assert job_now.state is J.PARKED and job_now.park is not None
        assert job_now.park.streak == 2 and job_now.park.continued_at is None
        # Backed off from when it was found not taken: twice the margin.
        assert w.limits.resumes_at(job_now) == pytest.approx(RESET + MARGIN + WINDOW + 240, abs=1)

    with_world(body, tmp=tmp_path)


def test_hold_keeps_it_parked_past_its_reset(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        await w.limit(job, RESET)
        report = w.limits.hold([job.job_id])
        assert report["jobs"][0]["held"] is True and report["jobs"][0]["resumesAt"] is None
        await w.advance_to(RESET + 86400)
        assert w.port.prompts() == []
        other = await w.spawned(2)
        with pytest.raises(Exception) as info:
            w.limits.hold([other.job_id])
        assert getattr(info.value, "code", None) is not None
        assert info.value.code.value == "job-not-parked"  # type: ignore[attr-defined]

    with_world(body, tmp=tmp_path)


def test_a_parked_account_is_what_a_new_spawn_of_it_waits_for(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        assert w.limits.limited(WorkerProvider.CLAUDE, w.clock.now()) is None
        job = await w.spawned(1)
        await w.limit(job, RESET)
        limited = w.limits.limited(WorkerProvider.CLAUDE, w.clock.now())
        assert limited is not None and limited.until == RESET and limited.parked_jobs == 1
        assert limited.next_resume == RESET + MARGIN
        assert limited.clears_at == RESET + MARGIN + STAGGER  # after the parked one went on
        assert "usage limit until" in limited.detail
        assert w.limits.limited(WorkerProvider.CODEX, w.clock.now()) is None
        port = ParkedAccounts(w.limits)  # what the admission check asks
        asked = port.limit(WorkerProvider.CLAUDE, w.clock.now())
        assert asked is not None and asked.until == RESET + MARGIN + STAGGER
        assert asked.detail == limited.detail
        await w.advance_to(RESET + MARGIN + 1)
        await w.turn(job.surface_id)  # it went on
        # New workers of the account start one stagger after the last parked one went on
        # (its continuation reached the agent).
        (reached,) = [t for t, _pane, text in w.port.typed if text == DEFAULT_CONTINUATION]
        after = port.limit(WorkerProvider.CLAUDE, w.clock.now())
        assert after is not None and after.until == pytest.approx(reached + STAGGER), after
        assert "went on" in after.detail
        assert port.limit(WorkerProvider.CLAUDE, reached + STAGGER + 0.01) is None

    with_world(body, tmp=tmp_path)


def test_the_reset_read_after_the_hook_settles_the_park(tmp_path: Path) -> None:
    """A hook says "limit" a moment before the record with the reset is read."""

    async def body(w: World) -> None:
        job = await w.spawned(1)
        run = w.job(job).run_id
        assert run is not None
        await w.event(job.surface_id, run, AgentEventKind.LIMIT_REACHED)  # the hook: no facts
        early = w.job(job)
        assert early.park is not None and not early.park.settled and early.park.until is None
        w.facts[run] = LimitFacts(RESET, "seven_day", "text")
        await w.event(job.surface_id, run, AgentEventKind.LIMIT_REACHED)  # the reader's event
        late = w.job(job)
        assert late.park is not None and late.park.settled
        assert (late.park.until, late.park.limit) == (RESET, "seven_day")
        assert w.limits.resumes_at(late) == RESET + MARGIN

    with_world(body, tmp=tmp_path)


def test_without_a_record_the_park_settles_with_no_reset(tmp_path: Path) -> None:
    async def body(w: World) -> None:
        job = await w.spawned(1)
        run = w.job(job).run_id
        assert run is not None
        await w.event(job.surface_id, run, AgentEventKind.LIMIT_REACHED)
        assert w.job(job).park is not None and not w.job(job).park.settled  # type: ignore[union-attr]
        await w.advance_to(w.clock.now() + 3.1)
        settled = w.job(job)
        assert settled.park is not None and settled.park.settled and settled.park.until is None
        assert w.limits.resumes_at(settled) is None

    with_world(body, tmp=tmp_path)
