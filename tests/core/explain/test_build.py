"""The explanation builder: the state, where it comes from, the evidence with its effects, what
would change it next."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.estimation import epochs
from mytty.core.events import AgentEvent, AgentEventKind, AgentRunState, WorkerProvider
from mytty.core.explain.build import explain
from mytty.core.explain.evidence import MAX_EVIDENCE
from mytty.core.explain.inputs import EpochView, Foreground, Observations, ShellView
from mytty.core.explain.sources import Source
from mytty.core.ids import JobId
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.tracker import (
    AgentJob,
    AgentJobState,
    new_job,
    prepare_for_follow_up,
    reconcile,
)
from mytty.core.runs.book import RunBook
from tests.core.builders import CLAUDE, CODEX, PANE, R, ev
from tests.core.explain.support import NOW, inputs_for, window
from tests.core.runs.support import PANE_POOL, events_strategy

K = AgentEventKind
S = AgentRunState
TURN = R("turn-1")
INSTALLED = {CLAUDE: "installed"}
NOT_INSTALLED = {CLAUDE: "not-installed"}


def hooked_turn() -> list[AgentEvent]:
    return [
        ev(K.IDLE, run=R("marker"), hook="SessionStart", session="s", at=1),
        ev(K.STARTED, run=TURN, hook="UserPromptSubmit", session="s", at=2),
        ev(K.RUNNING, run=TURN, hook="PostToolBatch", session="s", at=3),
        ev(K.SUCCEEDED, run=TURN, hook="Stop", session="s", at=4),
    ]


def job_on(events: list[AgentEvent], **changes: Any) -> AgentJob:
    book = RunBook()
    for e in events:
        book.apply(e)
    job = new_job(JobId("J-1"), PANE, WorkerProvider.CLAUDE, "scan", [], 0.0)
    job = reconcile(job, book.runs_for(PANE, CLAUDE), True, 5.0)
    return replace(job, **changes)


def test_a_hooked_job_shows_its_hooks_and_their_effects() -> None:
    events = hooked_turn()
    job = job_on(events)
    out = explain(inputs_for(events, job=job, integrations=INSTALLED))
    assert out.state == "succeeded" and out.run is not None and out.run.id == TURN
    assert out.summary.startswith("the job follows run ")
    assert "followed by its hooks" in out.summary
    on_run = [e for e in out.evidence if e.on_shown_run]
    assert [(e.source, e.event.hook_name, e.effect) for e in on_run] == [
        (Source.HOOK, "UserPromptSubmit", "unknown → running"),
        (Source.HOOK, "PostToolBatch", "ignored: the run was running"),
        (Source.HOOK, "Stop", "running → succeeded"),
    ]
    assert [(s.kind, s.state) for s in out.next] == [(None, "launching")]
    assert out.warnings == ()


def test_a_pane_shows_its_most_relevant_run() -> None:
    events = [
        *hooked_turn(),
        ev(K.STARTED, run=R("codex"), provider=CODEX, hook="UserPromptSubmit", at=5),
    ]
    out = explain(inputs_for(events, integrations=INSTALLED))
    assert out.state == "running" and out.run is not None and out.run.provider is CODEX
    assert "most relevant run of its 3 runs" in out.summary
    assert {s.state for s in out.next} >= {"succeeded", "waiting-approval", "disconnected"}


def test_an_unbound_job_waits_for_its_run_or_its_deadline() -> None:
    job = new_job(JobId("J-2"), PANE, WorkerProvider.CLAUDE, None, [R("old")], NOW - 10, 30.0)
    out = explain(inputs_for([], job=job, integrations=INSTALLED))
    assert out.state == "launching" and out.run is None
    assert "its 1 older runs there are not its own" in out.summary
    assert "closes in 20s" in out.summary
    assert out.next[0].state == "running" and "the UserPromptSubmit hook" in out.next[0].by
    assert out.next[-1] == out.next[-1].__class__(
        None, "launch-failed", ("no run starting within 20s",)
    )


def test_a_job_carried_on_by_a_follow_up_says_what_it_waits_for_and_gives_back() -> None:
    events = hooked_turn()
    running = job_on(events[:3])
    noted = prepare_for_follow_up(running, [], NOW - 5)
    out = explain(inputs_for(events[:3], job=noted, integrations=INSTALLED))
    assert "a follow-up was sent to it" in out.summary
    book = RunBook()
    for e in events:
        book.apply(e)
    handed = reconcile(noted, book.runs_for(PANE, CLAUDE), True, NOW - 2)
    assert handed.state is AgentJobState.LAUNCHING and handed.follow_through is not None
    out = explain(inputs_for(events, job=handed, integrations=INSTALLED))
    assert out.state == "launching"
    assert "while a follow-up sent to it was pending" in out.summary and "in 8s" in out.summary
    assert out.next[-1].state == "succeeded" and out.next[0].state == "running"


def test_a_lost_job_can_be_resumed_when_mytty_knows_how() -> None:
    events = hooked_turn()
    launch = JobLaunch(
        task="t", cwd="/w", worktree_branch=None, access=None, model=None, mode_flags=(), argv=()
    )
    job = job_on(events, state=AgentJobState.LOST, session_id="s", launch=launch)
    gone = Observations(pane_alive=False)
    out = explain(inputs_for(events, job=job, observations=gone, integrations=INSTALLED))
    assert [s.by for s in out.next] == [("`mytty resume`",)]
    closed = job_on(events, state=AgentJobState.LOST, session_id="s", launch=launch.closed_now())
    out = explain(inputs_for(events, job=closed, observations=gone, integrations=INSTALLED))
    assert out.next == ()


def test_an_idle_run_ends_the_job_disconnected_in_what_comes_next() -> None:
    events = hooked_turn()[:3]
    job = job_on(events)
    out = explain(inputs_for(events, job=job, integrations=INSTALLED))
    by_state = {s.kind: s.state for s in out.next}
    assert by_state[K.SUCCEEDED] == "succeeded"
    assert by_state[K.IDLE] == "disconnected"  # a bound run going idle ends the job so


def test_native_evidence_says_what_it_saw() -> None:
    epoch_run = R("epoch")
    events = [
        ev(K.STARTED, run=epoch_run, hook=epochs.LAUNCH_OBSERVED, at=10),
        ev(K.FAILED, run=epoch_run, hook=epochs.COMMAND_FINISHED, at=20),
    ]
    seen = Observations(
        pane_alive=True,
        foreground=Foreground(process=None),
        epoch=EpochView(CLAUDE, 4242, "ended", False, False, None, epoch_run),
        shell=ShellView(last_exit_status=3, last_exit_at=20.5, command_count=4),
    )
    out = explain(inputs_for(events, observations=seen, integrations=NOT_INSTALLED))
    first, last = out.evidence
    assert first.source is Source.NATIVE and first.what.endswith(
        "start grace: claude-code pid 4242"
    )
    assert last.what.endswith("a non-zero exit (OSC 133 D): exit 3"), last.what
    assert last.effect == "running → failed"
    assert "native estimation (per process" in out.summary


def test_a_truncated_run_shows_no_effects() -> None:
    events = hooked_turn()
    inputs = inputs_for(events, integrations=INSTALLED)
    inputs = replace(inputs, window=window(events, truncated=[TURN]))
    out = explain(inputs)
    assert all(e.effect is None for e in out.evidence if e.on_shown_run)
    assert next(e for e in out.evidence if not e.on_shown_run).effect == "unknown → idle"


def test_evidence_is_bounded_and_keeps_the_shown_run() -> None:
    noisy = [ev(K.RUNNING, run=R("other"), at=float(i)) for i in range(100)]
    events = [ev(K.STARTED, run=TURN, at=0.5), *noisy, ev(K.STARTED, run=R("last"), at=200)]
    job = job_on(events[:1])
    out = explain(inputs_for(events, job=job))
    assert len(out.evidence) == MAX_EVIDENCE
    assert out.evidence[0].on_shown_run and out.evidence[0].event.run_id == TURN
    assert out.evidence[-1].event.run_id == R("last")


def stored(events: list[AgentEvent]) -> list[AgentEvent]:
    """As the store keeps them: the first of each id, schema 1 only."""
    seen: set[str] = set()
    out = []
    for e in events:
        if e.id not in seen and e.schema_version == 1:
            seen.add(e.id)
            out.append(e)
    return out


@settings(max_examples=200)
@given(events_strategy, st.booleans())
def test_effects_end_in_each_runs_state(raw: list[AgentEvent], read_all: bool) -> None:
    events = stored(raw)
    pane = PANE_POOL[0]
    out = explain(inputs_for(events, pane=pane, read_all=read_all))
    book = RunBook()
    for e in events:
        book.apply(e)
    for run in book.runs_for_surface(pane):
        moved = [
            e.effect
            for e in out.evidence
            if e.event.run_id == run.id and e.effect and "→" in e.effect
        ]
        if run.accepted_event_count == 0:
            assert moved == [], (run, moved)
        elif read_all and len(events) <= MAX_EVIDENCE:
            assert moved, run  # every event was read: the effects replay to its state
        if moved:
            assert moved[-1].endswith(f"→ {run.state.value}"), (run, moved)
    assert out.state == (out.run.state.value if out.run is not None else None)


def test_a_parked_job_says_why_and_that_only_its_next_turn_ends_the_park() -> None:
    events = [
        *hooked_turn()[:3],
        ev(K.LIMIT_REACHED, run=TURN, hook="StopFailure", session="s", at=4),
    ]
    job = job_on(events)
    assert job.state is AgentJobState.PARKED
    job = replace(job, message="Parked at its usage limit (five_hour) until …")
    out = explain(inputs_for(events, job=job, integrations=INSTALLED))
    assert out.state == "parked" and out.summary.startswith("Parked at its usage limit")
    effects = [e.effect for e in out.evidence if e.on_shown_run]
    assert effects[-1] == "running → parked"
    [step] = out.next
    assert step.state == "running" and "`mytty limits resume`" in step.by
