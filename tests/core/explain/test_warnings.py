"""Each warning rule, when it speaks and when it keeps quiet."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mytty.core.estimation import epochs
from mytty.core.events import AgentEvent, AgentEventKind, WorkerProvider
from mytty.core.explain.build import explain
from mytty.core.explain.inputs import EpochView, EventWindow, Foreground, Observations, ShellView
from mytty.core.explain.warnings import (
    AGENT_GONE,
    CODES,
    CODEX_UNPLACED,
    EVIDENCE_UNREADABLE,
    HOOK_SILENCE_S,
    HOOKS_SILENT,
    LAUNCH_DEADLINE_NEAR,
    NEEDS_REPAIR,
    OLDER_RUN_ACTIVE,
    PANE_GONE,
    duration,
)
from mytty.core.ids import JobId
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.tracker import AgentJob, AgentJobState, new_job
from tests.core.builders import CLAUDE, CODEX, PANE, R, ev
from tests.core.explain.support import NOW, inputs_for

K = AgentEventKind
SHELL = Foreground(process=None)
CLAUDE_IN_FRONT = Foreground(
    process=4242, command="claude", provider=CLAUDE, agent_pid=4242, agent_started_at=NOW - 600
)


def codes(events: list[AgentEvent], **kw: Any) -> set[str]:
    found = explain(inputs_for(events, **kw)).warnings
    assert {f.code for f in found} <= set(CODES)
    return {f.code for f in found}


def running(at: float = NOW - 60, run: str = R("turn"), **kw: Any) -> AgentEvent:
    return ev(K.STARTED, run=run, hook="UserPromptSubmit", session="s", at=at, **kw)


def test_a_run_whose_agent_left_the_foreground() -> None:
    gone = Observations(pane_alive=True, foreground=SHELL)
    assert AGENT_GONE in codes([running()], observations=gone, integrations={CLAUDE: "installed"})
    here = Observations(pane_alive=True, foreground=CLAUDE_IN_FRONT)
    assert AGENT_GONE not in codes([running()], observations=here)
    # An unnamed process in front may be the agent (a wrapper mytty cannot classify).
    unnamed = Observations(pane_alive=True, foreground=Foreground(process=77, command="node"))
    assert AGENT_GONE not in codes([running()], observations=unnamed)
    # Native estimation will end it; and a run that just moved may still get its hook.
    estimating = replace(gone, epoch=EpochView(CLAUDE, 1, "started", False, False, None, R("e")))
    assert AGENT_GONE not in codes([running()], observations=estimating)
    assert AGENT_GONE not in codes([running(at=NOW - 0.5)], observations=gone)
    # Another agent in front is as good as gone.
    codex = Observations(pane_alive=True, foreground=Foreground(7, "codex", CODEX, 7, None))
    assert AGENT_GONE in codes([running()], observations=codex)


def test_the_shell_exit_is_named_when_it_came_after_the_run() -> None:
    seen = Observations(pane_alive=True, foreground=SHELL, shell=ShellView(137, NOW - 30, 2))
    found = explain(inputs_for([running()], observations=seen)).warnings
    assert "its shell reported exit 137" in found[0].message


def test_an_active_run_of_a_gone_pane() -> None:
    assert PANE_GONE in codes([running()], observations=Observations(pane_alive=False))
    done = [running(), ev(K.SUCCEEDED, run=R("turn"), at=NOW - 30)]
    assert codes(done, observations=Observations(pane_alive=False)) == set()


def lost_job(**launch_changes: Any) -> AgentJob:
    launch = JobLaunch(
        task="t", cwd="/w", worktree_branch=None, access=None, model=None, mode_flags=(), argv=()
    )
    job = new_job(JobId("J"), PANE, WorkerProvider.CLAUDE, None, [], 0.0)
    return replace(
        job, state=AgentJobState.LOST, session_id="s", launch=replace(launch, **launch_changes)
    )


def test_a_lost_job_says_whether_it_can_be_resumed() -> None:
    gone = Observations(pane_alive=False)
    found = explain(inputs_for([], job=lost_job(), observations=gone)).warnings
    assert found[0].code == PANE_GONE and "`mytty resume`" in found[0].message
    closed = explain(inputs_for([], job=lost_job(closed=True), observations=gone)).warnings
    assert "closed on purpose" in closed[0].message


def test_a_launching_job_near_its_deadline() -> None:
    job = new_job(JobId("J"), PANE, WorkerProvider.CLAUDE, None, [], NOW - 25, 30.0)
    here = Observations(pane_alive=True, foreground=CLAUDE_IN_FRONT)
    found = explain(inputs_for([], job=job, observations=here)).warnings
    assert [f.code for f in found] == [LAUNCH_DEADLINE_NEAR]
    assert "closes in 5s" in found[0].message and "its hooks have not" in found[0].message
    early = new_job(JobId("J"), PANE, WorkerProvider.CLAUDE, None, [], NOW - 5, 30.0)
    assert codes([], job=early, observations=here) == set()


def native_turn(n: int, *, hooked: bool = False) -> list[AgentEvent]:
    run, at = R(f"t{n}"), NOW - 100 + 10 * n
    events = [
        ev(K.STARTED, run=run, hook=epochs.TURN_STARTED, at=at),
        ev(K.SUCCEEDED, run=run, hook=epochs.TURN_COMPLETED, at=at + 1),
    ]
    if hooked:
        events.append(ev(K.RUNNING, run=run, hook="PostToolBatch", at=at + 0.5))
    return events


def test_hooks_installed_but_the_last_three_turns_came_natively() -> None:
    three = [e for n in range(3) for e in native_turn(n)]
    assert HOOKS_SILENT in codes(three, integrations={CLAUDE: "installed"})
    assert HOOKS_SILENT not in codes(three, integrations={CLAUDE: "not-installed"})
    assert HOOKS_SILENT not in codes(three[:4], integrations={CLAUDE: "installed"})  # 2 turns
    mixed = three[:4] + native_turn(2, hooked=True)
    assert HOOKS_SILENT not in codes(mixed, integrations={CLAUDE: "installed"})


def test_claude_in_front_and_not_one_hook_since_it_started() -> None:
    here = Observations(pane_alive=True, foreground=CLAUDE_IN_FRONT)
    installed = {CLAUDE: "installed"}
    assert HOOKS_SILENT in codes([], observations=here, integrations=installed)
    before = [running(at=NOW - 900)]  # an earlier process's hook
    assert HOOKS_SILENT in codes(before, observations=here, integrations=installed)
    since = [ev(K.IDLE, run=R("marker"), hook="SessionStart", at=NOW - 590)]
    assert HOOKS_SILENT not in codes(since, observations=here, integrations=installed)
    young = replace(CLAUDE_IN_FRONT, agent_started_at=NOW - HOOK_SILENCE_S + 5)
    young_here = Observations(pane_alive=True, foreground=young)
    assert HOOKS_SILENT not in codes([], observations=young_here, integrations=installed)


def test_an_integration_that_needs_repair() -> None:
    assert NEEDS_REPAIR in codes([running()], integrations={CLAUDE: "needs-repair"})


def test_codex_events_placed_nowhere() -> None:
    codex_run = [running(provider=CODEX)]
    refused = Observations(pane_alive=True, unplaced_codex_events=3)
    assert CODEX_UNPLACED in codes(codex_run, observations=refused)
    placed = replace(refused, codex_session="sess")
    assert CODEX_UNPLACED not in codes(codex_run, observations=placed)
    assert CODEX_UNPLACED not in codes([running()], observations=refused)  # a Claude pane


def test_an_older_active_run_speaks_for_the_pane() -> None:
    events = [
        running(at=NOW - 3600, run=R("old")),
        running(at=NOW - 60, run=R("new"), provider=CODEX),
        ev(K.SUCCEEDED, run=R("new"), provider=CODEX, at=NOW - 50),
    ]
    found = explain(inputs_for(events)).warnings
    assert OLDER_RUN_ACTIVE in {f.code for f in found}
    assert codes(events[:1]) == set()
    # A newer idle run (a SessionStart marker, an interrupt) ended nothing.
    marker = [events[0], ev(K.IDLE, run=R("marker"), hook="SessionStart", at=NOW - 10)]
    assert codes(marker) == set()


def test_an_unreadable_store_is_said() -> None:
    inputs = replace(inputs_for([]), window=EventWindow(error="disk I/O error"))
    assert [f.code for f in explain(inputs).warnings] == [EVIDENCE_UNREADABLE]


def test_durations_read_as_words() -> None:
    assert [duration(s) for s in (-1, 59, 61, 3600 * 3 + 300, 86400 * 2)] == [
        "0s",
        "59s",
        "1m",
        "3h05m",
        "2d",
    ]


def test_quiet_on_a_healthy_hooked_pane() -> None:
    events = [running(), ev(K.SUCCEEDED, run=R("turn"), hook="Stop", at=NOW - 30)]
    here = Observations(pane_alive=True, foreground=CLAUDE_IN_FRONT)
    assert codes(events, observations=here, integrations={CLAUDE: "installed"}) == set()
