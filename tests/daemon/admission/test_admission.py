"""Admission over a real job registry and store, with a manual clock and a fake machine:
spawns judged and held, the queue started in order when something frees, resumed workers paced
and stopped after three failed starts, the queue kept across a restart."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from mytty.core.admission.accounts import NO_ACCOUNT_LIMITS, AccountLimit
from mytty.core.config import AdmissionSettings
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider, WorkerProvider
from mytty.core.ids import JobId, SurfaceId, TmuxPaneId
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.tracker import AgentJob, AgentJobState, QueuedAs
from mytty.daemon.admission.controller import Admission, Slot
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import ManualClock
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.jobs.registry import JobRegistry
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.resources.sampler import ResourceSampler
from mytty.daemon.store import EventStore
from tests.core.builders import U

CLAUDE, CODEX = WorkerProvider.CLAUDE, WorkerProvider.CODEX
LEAD = SurfaceId(U("lead"))
LAUNCH = JobLaunch(
    task="t",
    cwd="/",
    worktree_branch=None,
    access=None,
    model=None,
    mode_flags=(),
    argv=("claude", "--", "t"),
)


@dataclass
class Machine:
    """Everything admission touches, with the parts a test steers."""

    store: EventStore
    clock: ManualClock = field(default_factory=lambda: ManualClock(1000.0))
    settings: AdmissionSettings = field(default_factory=AdmissionSettings)
    memory_mb: float = 8000.0
    limits: dict[WorkerProvider, AccountLimit] = field(default_factory=dict)
    started: list[str] = field(default_factory=list)
    fail_starts: bool = False
    given_up: list[str] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)
    panes: PaneRegistry = field(default_factory=lambda: PaneRegistry(b"k" * 32))

    def __post_init__(self) -> None:
        def nothing(_pane: Pane) -> tuple[AgentProvider | None, int | None]:
            return None, None

        self.hub = AgentHub(self.store, clock=self.clock.now)
        self.jobs = JobRegistry(
            hub=self.hub,
            panes=self.panes,
            foreground_agent=nothing,
            codex_router=CodexRouter(
                panes=self.panes, foreground_agent=nothing, clock=self.clock.now
            ),
            clock=self.clock,
            store=self.store,
        )
        self.sampler = ResourceSampler(targets=dict, table=dict)
        machine = self

        class Accounts:
            def limit(self, provider: WorkerProvider, now: float) -> AccountLimit | None:
                limit = machine.limits.get(provider)
                return limit if limit is not None and (limit.until or 1e18) > now else None

        self.admission = Admission(
            jobs=self.jobs,
            hub=self.hub,
            clock=self.clock,
            settings=lambda: self.settings,
            sampler=self.sampler,
            start=self._start,
            give_up=self._give_up,
            stopped=lambda job, why: self.stopped.append(why),
            accounts=Accounts(),
            memory=lambda: self.memory_mb,
        )

    async def _start(self, job: AgentJob) -> None:
        if self.fail_starts:
            raise MyttyError(ErrorCode.SPAWN_FAILED, "no pane")
        self.started.append(job.job_id)
        self.jobs.started(job.job_id)

    async def _give_up(self, job: AgentJob, message: str) -> None:
        self.given_up.append(job.job_id)
        self.jobs.unqueued(job.job_id, message)

    async def spawn(
        self, n: int, provider: WorkerProvider = CLAUDE, *, paced: bool = False
    ) -> tuple[AgentJob, Slot]:
        """What agent spawn does: claim, make the pane and the job (queued or not), release."""
        surface = SurfaceId(U(f"pane-{n}"))
        self.panes.register_created(surface, TmuxPaneId(f"%{n}"), 0)
        slot = self.admission.claim(provider, LEAD, paced=paced)
        why = slot.waiting
        queued = QueuedAs(why.reason.value, why.detail, slot.ticket, paced) if why else None
        job = await self.jobs.spawn(
            surface,
            provider,
            f"w{n}",
            [],
            launch=LAUNCH,
            job_id=JobId(U(f"job-{n}")),
            queued=queued,
        )
        self.admission.release(slot.ticket, job)
        return job, slot

    def close(self, job: AgentJob) -> None:
        """The job's pane went (agent close): the job is lost, a live worker less."""
        pane = self.panes.by_surface.pop(job.surface_id)
        self.panes.by_tmux.pop(pane.tmux_id)
        self.jobs.current(job.job_id)

    def states(self, jobs: list[AgentJob]) -> list[str]:
        return [self.jobs.current(j.job_id).state.value for j in jobs]


def run(tmp_path: Path, body: Callable[[Machine], Awaitable[None]], **kw: object) -> None:
    async def main() -> None:
        store = EventStore(tmp_path / "events.sqlite3")
        store.open()
        store.start_writer(asyncio.get_running_loop())
        try:
            await body(Machine(store, **kw))  # type: ignore[arg-type]
        finally:
            store.close()

    asyncio.run(main())


def test_max_workers_queues_the_rest_and_starts_them_in_order_as_workers_end(
    tmp_path: Path,
) -> None:
    async def body(m: Machine) -> None:
        m.settings = AdmissionSettings(max_workers=2)
        jobs = [(await m.spawn(n))[0] for n in range(5)]
        assert m.states(jobs) == ["launching", "launching", "queued", "queued", "queued"]
        assert [m.jobs.queue_position(m.jobs.current(j.job_id)) for j in jobs[2:]] == [1, 2, 3]
        assert jobs[2].queued_because == "max-workers"
        await m.admission.plan_now()
        assert m.started == []  # nothing freed
        m.close(jobs[0])
        await m.admission.plan_now()
        assert m.started == [jobs[2].job_id]  # the first in line, and only it
        assert m.states(jobs) == ["lost", "launching", "launching", "queued", "queued"]
        # The launch window opens when it starts, not when it was queued.
        assert m.jobs.current(jobs[2].job_id).deadline == m.clock.now() + 30.0
        m.close(jobs[1])
        m.close(jobs[2])
        await m.admission.plan_now()
        assert m.started == [j.job_id for j in jobs[2:]]

    run(tmp_path, body)


def test_memory_counts_starting_workers_and_a_freed_worker_lets_exactly_the_next_start(
    tmp_path: Path,
) -> None:
    async def body(m: Machine) -> None:
        # 3,000 MB available, keep 2,000; a starting claude worker is expected at 512 MB.
        m.settings = AdmissionSettings(min_available_memory_mb=2000)
        m.memory_mb = 3000.0
        jobs = [(await m.spawn(n))[0] for n in range(4)]
        assert m.states(jobs) == ["launching", "launching", "queued", "queued"]
        assert jobs[2].queued_because == "memory"
        assert "below min_available_memory_mb = 2,000" in (jobs[2].message or "")
        # The two started and now hold their memory (no longer starting: say they bound).
        for job in jobs[:2]:
            m.jobs._jobs[job.job_id] = replace(
                m.jobs._jobs[job.job_id], state=AgentJobState.RUNNING
            )
        m.memory_mb = 1900.0
        m.clock.advance(1.0)  # memory is read at most once a second for the queue
        await m.admission.plan_now()
        assert m.started == []
        m.close(jobs[0])
        m.memory_mb = 2400.0  # its memory came back
        await m.admission.plan_now()
        assert m.started == []  # the reading is less than a second old
        m.clock.advance(1.0)
        await m.admission.plan_now()
        # The next one starts; 2,400 less the 512 it is expected to take is below 2,000.
        assert m.started == [jobs[2].job_id]
        assert m.jobs.current(jobs[3].job_id).queued_because == "memory"

    run(tmp_path, body)


def test_a_provider_limit_lets_another_provider_pass(tmp_path: Path) -> None:
    async def body(m: Machine) -> None:
        m.settings = AdmissionSettings(max_workers_per_provider=(("claude", 1),))
        first, _ = await m.spawn(0)
        second, _ = await m.spawn(1)
        codex, _ = await m.spawn(2, CODEX)
        assert m.states([first, second, codex]) == ["launching", "queued", "launching"]
        assert second.queued_because == "max-workers-per-provider"

    run(tmp_path, body)


def test_a_limited_account_waits_until_its_limit_ends(tmp_path: Path) -> None:
    async def body(m: Machine) -> None:
        m.limits[CODEX] = AccountLimit(until=m.clock.now() + 60.0, detail="5-hour limit")
        job, _ = await m.spawn(0, CODEX)
        assert (job.state.value, job.queued_because) == ("queued", "usage-limit")
        await m.admission.plan_now()
        assert m.started == [] and m.clock.pending >= 1  # a timer for the limit's end
        m.clock.advance(61.0)
        await m.admission.plan_now()
        assert m.started == [job.job_id]

    run(tmp_path, body)


def test_resumed_workers_start_in_bursts_and_three_failed_starts_stop_the_rest(
    tmp_path: Path,
) -> None:
    async def body(m: Machine) -> None:
        m.settings = AdmissionSettings(start_burst=1, start_interval_seconds=10.0)
        m.fail_starts = True
        jobs = [(await m.spawn(n, paced=True))[0] for n in range(5)]
        # The first starts at once (it is not a queued start), the others wait for the pacing.
        assert m.states(jobs) == ["launching"] + ["queued"] * 4
        assert jobs[1].queued_because == "start-burst"
        await m.admission.plan_now()
        assert m.started == []  # still within the interval, and the first is still starting
        # The first's launch window closes without a run: a failed start.
        m.clock.advance(31.0)
        assert m.jobs.current(jobs[0].job_id).state is AgentJobState.LAUNCH_FAILED
        await m.admission.plan_now()  # next burst: its start fails (failure 2)
        assert m.jobs.current(jobs[1].job_id).state is AgentJobState.LAUNCH_FAILED
        m.clock.advance(11.0)
        await m.admission.plan_now()  # failure 3: the resumption stops
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert m.jobs.current(jobs[2].job_id).state is AgentJobState.LAUNCH_FAILED
        assert len(m.stopped) == 1 and "3 failed starts in a row" in m.stopped[0]
        assert m.given_up == [jobs[3].job_id, jobs[4].job_id]
        assert m.states(jobs[3:]) == ["lost", "lost"]
        # A new resumption may go again.
        m.admission.resumption_started()
        m.fail_starts = False
        m.clock.advance(11.0)  # past the last burst's interval
        again, _ = await m.spawn(9, paced=True)
        assert again.state is AgentJobState.LAUNCHING

    run(tmp_path, body)


def test_a_restart_keeps_the_queue_in_order_and_tickets_go_on(tmp_path: Path) -> None:
    async def first(m: Machine) -> None:
        m.settings = AdmissionSettings(max_workers=1)
        for n in range(4):
            await m.spawn(n)
        await m.jobs.flush()

    run(tmp_path, first)

    async def second(m: Machine) -> None:
        m.settings = AdmissionSettings(max_workers=1)
        for n in range(4):
            m.panes.register_created(SurfaceId(U(f"pane-{n}")), TmuxPaneId(f"%{n}"), 0)
        m.jobs.load(m.store.load_jobs(500))
        m.admission.restore()
        queued = m.jobs.queued()
        assert [j.label for j in queued] == ["w1", "w2", "w3"]
        later, slot = await m.spawn(7)
        assert slot.ticket > max(j.queue_ticket or 0 for j in queued)
        assert m.jobs.queue_position(m.jobs.current(later.job_id)) == 4

    run(tmp_path, second)


def test_without_limits_a_claim_costs_no_plan(tmp_path: Path) -> None:
    async def body(m: Machine) -> None:
        m.admission.accounts = NO_ACCOUNT_LIMITS  # the default: no usage-limit port plugged in
        slot = m.admission.claim(CLAUDE, LEAD)
        assert slot.waiting is None and m.admission.plans == 0
        m.admission.release(slot.ticket)

    run(tmp_path, body)


def test_a_worker_killed_by_its_cap_ends_failed_with_reason_memory_limit(tmp_path: Path) -> None:
    from mytty.core.shell.events import ShellEvent
    from mytty.daemon.resources import memcap
    from mytty.daemon.resources.caps import MemoryCaps, MemoryCapWatch
    from mytty.daemon.resources.memcap import CapSupport
    from tests.daemon.resources.test_memcap import FakeSystemd

    async def body(m: Machine) -> None:
        surface = SurfaceId(U("capped"))
        m.panes.register_created(surface, TmuxPaneId("%9"), 0)
        capped = await m.jobs.spawn(
            surface, CLAUDE, "big", [], launch=LAUNCH, memory_cap=(512, "mytty-worker-x-0")
        )
        m.jobs._jobs[capped.job_id] = replace(capped, state=AgentJobState.RUNNING)
        fake = FakeSystemd(works=True, result="oom-kill")
        caps = MemoryCaps(
            limit_mb=lambda: 512, probe=lambda: CapSupport(memcap.SYSTEMD, None, "ok"), run=fake
        )
        watch = MemoryCapWatch(
            caps=caps,
            newest_job=m.jobs.newest_in_pane,
            ended_by_memory_limit=m.jobs.ended_by_memory_limit,
        )
        watch.on_shell_event(surface, ShellEvent(False, None, None, "c", "/"))  # a prompt: nothing
        await watch.flush()
        assert fake.calls == []
        watch.on_shell_event(surface, ShellEvent(True, 137, None, "c", "/"))  # the command ended
        await watch.flush()
        job = m.jobs.current(capped.job_id)
        assert (job.state, job.end_reason) == (AgentJobState.FAILED, "memory-limit")
        assert m.jobs.snapshot(job)["reason"] == "memory-limit"
        # A worker that ended for another reason keeps its outcome.
        fake.result = "exit-code"
        other = await m.spawn(1)
        m.jobs._jobs[other[0].job_id] = replace(other[0], memory_cap_mb=512, memory_cap="u-1")
        watch.on_shell_event(other[0].surface_id, ShellEvent(True, 1, None, "c", "/"))
        await watch.flush()
        assert m.jobs.current(other[0].job_id).end_reason is None

    run(tmp_path, body)
