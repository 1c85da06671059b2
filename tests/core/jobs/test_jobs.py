"""The agent job tracker: binding, state mapping, deadlines, follow-ups, snapshots, invariants."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.events import (
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    AgentRunState,
    WorkerProvider,
)
from mytty.core.ids import JobId, RunId, SurfaceId, stable_uuid
from mytty.core.jobs.record import decode_job, encode_job
from mytty.core.jobs.tracker import (
    FOLLOW_THROUGH_WINDOW_SECONDS,
    INTERRUPTED_MESSAGE,
    LAUNCH_WINDOW_SECONDS,
    TERMINAL_JOB_STATES,
    AgentJob,
    AgentJobState,
    LaunchClues,
    bind_order,
    is_terminal,
    needs_clues,
    new_job,
    prepare_for_follow_up,
    reconcile,
    satisfies,
)
from mytty.core.runs.book import RunBook
from mytty.core.runs.run import AgentRun
from tests.core.builders import ev

J = AgentJobState
R = AgentRunState
PANE = SurfaceId(stable_uuid("pane", "1"))
OTHER_PANE = SurfaceId(stable_uuid("pane", "2"))
JOB_ID = JobId(stable_uuid("job", "1"))
T0 = 1_000_000.0


def run(
    rid: str,
    state: AgentRunState = R.RUNNING,
    *,
    started: float | None = T0 + 1,
    updated: float | None = T0 + 1,
    pane: str = PANE,
    provider: AgentProvider = AgentProvider.CLAUDE_CODE,
    session: str | None = None,
    message: str | None = None,
) -> AgentRun:
    return AgentRun(
        id=RunId(rid),
        surface_id=SurfaceId(pane),
        provider=provider,
        session_id=session,
        state=state,
        started_at=started,
        updated_at=updated,
        message=message,
        accepted_event_count=1,
    )


def job(
    baseline: tuple[str, ...] = (), provider: WorkerProvider = WorkerProvider.CLAUDE
) -> AgentJob:
    return new_job(JOB_ID, PANE, provider, "worker-a", run_ids(*baseline), T0)


def run_ids(*names: str) -> list[RunId]:
    return [RunId(name) for name in names]


# --------------------------------------------------------------------------------------------
# Creation and binding
# --------------------------------------------------------------------------------------------


def test_new_job() -> None:
    j = job(("OLD",))
    assert j.state == J.LAUNCHING
    assert j.run_id is None and j.session_id is None and j.message is None
    assert j.baseline == frozenset({"OLD"})
    assert j.deadline == T0 + LAUNCH_WINDOW_SECONDS == T0 + 30
    assert not j.bound_completed_by_idle
    assert (
        new_job(
            JobId("J"), SurfaceId("P"), WorkerProvider.CODEX, None, [], 5.0, window=2.0
        ).deadline
        == 7.0
    )


def test_binds_to_a_new_started_run() -> None:
    j = reconcile(job(), [run("A", session="s1", message="m")], True, T0 + 2)
    assert (j.run_id, j.state, j.session_id, j.message) == ("A", J.RUNNING, "s1", "m")


@pytest.mark.parametrize(
    "candidate",
    [
        run("OLD"),  # in the baseline
        run("U", R.UNKNOWN, started=None),  # never started
        run("I", R.IDLE),  # SessionStart marker
        run("P", pane=OTHER_PANE),
        run("C", provider=AgentProvider.CODEX),
    ],
    ids=["baseline", "unknown", "idle", "other-pane", "other-provider"],
)
def test_ineligible_runs_are_never_bound(candidate: AgentRun) -> None:
    j = reconcile(job(("OLD",)), [candidate], True, T0 + 2)
    assert j.run_id is None
    assert j.state == J.LAUNCHING


def test_a_job_that_knows_its_session_binds_only_to_that_conversation() -> None:
    mine = replace(job(), session_id="s-mine")
    other = run("A", session="s-other", started=T0 + 1)
    ours = run("B", session="s-mine", started=T0 + 2)
    assert reconcile(mine, [other], True, T0 + 3).run_id is None
    assert reconcile(mine, [other, ours], True, T0 + 3).run_id == "B"
    # A run without a session (a native estimate) is still the pane's own.
    assert reconcile(mine, [run("N", session=None)], True, T0 + 3).run_id == "N"
    # Without a known session the earliest run wins, whatever its session.
    assert reconcile(job(), [other, ours], True, T0 + 3).run_id == "A"


def test_pane_ids_compare_case_insensitively() -> None:
    j = reconcile(job(), [run("A", pane=PANE.lower())], True, T0 + 2)
    assert j.run_id == "A"


def test_bind_order_earliest_start_then_update_then_id() -> None:
    runs = [
        run("Z", started=T0 + 5, updated=T0 + 5),
        run("Y", started=None, updated=T0 + 1),
        run("X", started=T0 + 3, updated=T0 + 9),
        run("W", started=T0 + 3, updated=T0 + 4),
        run("V", started=T0 + 3, updated=T0 + 4),
    ]
    assert reconcile(job(), runs, True, T0 + 10).run_id == "V"
    assert [r.id for r in sorted(runs, key=bind_order)] == ["V", "W", "X", "Z", "Y"]
    assert reconcile(job(), [run("B", updated=None), run("C", updated=T0)], True, T0).run_id == "C"


def test_every_run_state_maps_to_a_job_state() -> None:
    expected = {
        R.RUNNING: J.RUNNING,
        R.WAITING_INPUT: J.WAITING_INPUT,
        R.WAITING_APPROVAL: J.WAITING_APPROVAL,
        R.SUCCEEDED: J.SUCCEEDED,
        R.FAILED: J.FAILED,
        R.DISCONNECTED: J.DISCONNECTED,
    }
    for run_state, job_state in expected.items():
        bound = reconcile(job(), [run("A", R.RUNNING)], True, T0 + 1)
        assert reconcile(bound, [run("A", run_state)], True, T0 + 2).state == job_state


def test_session_is_sticky_and_message_follows_the_run() -> None:
    j = reconcile(job(), [run("A", session="s1", message="hello")], True, T0 + 1)
    j = reconcile(j, [run("A", R.WAITING_INPUT, session=None, message=None)], True, T0 + 2)
    assert (j.state, j.session_id, j.message) == (J.WAITING_INPUT, "s1", None)
    j = reconcile(j, [run("A", R.RUNNING, session=None, message="busy")], True, T0 + 3)
    assert (j.session_id, j.message) == ("s1", "busy")


def test_approval_message_goes_away_when_the_run_moves_on() -> None:
    """The reported bug: a succeeded job still said "Bash requires approval"."""
    book = RunBook()
    j = job()
    steps = [
        (AgentEventKind.STARTED, None, J.RUNNING, None),
        (
            AgentEventKind.APPROVAL_REQUESTED,
            "Bash requires approval",
            J.WAITING_APPROVAL,
            "Bash requires approval",
        ),
        (AgentEventKind.RUNNING, None, J.RUNNING, None),
        (AgentEventKind.SUCCEEDED, None, J.SUCCEEDED, None),
    ]
    for n, (kind, message, state, expected) in enumerate(steps):
        book.apply(ev(kind, run="A", pane=PANE, at=T0 + n + 1, message=message))
        j = reconcile(j, book.runs_for(PANE, AgentProvider.CLAUDE_CODE), True, T0 + n + 1)
        assert (j.state, j.message) == (state, expected)
    assert j.message is None


def test_a_bound_job_never_rebinds_and_keeps_its_state_when_the_run_is_missing() -> None:
    j = reconcile(job(), [run("A", R.WAITING_APPROVAL)], True, T0 + 1)
    later = reconcile(j, [run("B", R.RUNNING, started=T0)], True, T0 + 100)
    assert later.run_id == "A"
    assert later.state == J.WAITING_APPROVAL


# --------------------------------------------------------------------------------------------
# Deadline, lost, terminal stickiness
# --------------------------------------------------------------------------------------------


def test_launch_fails_at_the_deadline() -> None:
    j = job()
    assert reconcile(j, [], True, T0 + 29.9).state == J.LAUNCHING
    failed = reconcile(j, [], True, T0 + 30)
    assert failed.state == J.LAUNCH_FAILED
    assert failed.message is not None
    assert failed.message.startswith("No claude run was observed within the launch window")
    assert "claude-code hook integration" in failed.message
    codex = reconcile(job(provider=WorkerProvider.CODEX), [], True, T0 + 31)
    assert codex.message is not None
    assert codex.message.startswith("No codex run was observed within the launch window")
    assert "codex hook integration" in codex.message


def test_launch_failed_is_one_way() -> None:
    failed = reconcile(job(), [], True, T0 + 30)
    again = reconcile(failed, [run("A")], True, T0 + 31)
    assert again.state == J.LAUNCH_FAILED and again.run_id is None
    assert reconcile(failed, [], False, T0 + 31).state == J.LAUNCH_FAILED


def test_a_bound_job_ignores_the_deadline() -> None:
    j = reconcile(job(), [run("A")], True, T0 + 1)
    assert reconcile(j, [run("A")], True, T0 + 1000).state == J.RUNNING


def test_a_late_run_binds_before_the_deadline_check() -> None:
    assert reconcile(job(), [run("A")], True, T0 + 45).state == J.RUNNING


def test_missing_pane_loses_a_live_job_but_keeps_a_finished_one() -> None:
    assert reconcile(job(), [], False, T0).state == J.LOST
    live = reconcile(job(), [run("A")], True, T0 + 1)
    lost = reconcile(live, [run("A")], False, T0 + 2)
    assert lost.state == J.LOST
    assert reconcile(lost, [run("A")], True, T0 + 3).state == J.LOST
    done = reconcile(live, [run("A", R.SUCCEEDED)], True, T0 + 2)
    assert reconcile(done, [], False, T0 + 3).state == J.SUCCEEDED


def test_terminal_states_stay_put() -> None:
    done = reconcile(
        reconcile(job(), [run("A")], True, T0 + 1), [run("A", R.SUCCEEDED)], True, T0 + 2
    )
    for later_state in (R.RUNNING, R.IDLE, R.DISCONNECTED, R.FAILED):
        assert reconcile(done, [run("A", later_state)], True, T0 + 3).state == J.SUCCEEDED


# --------------------------------------------------------------------------------------------
# The issue fix: a bound run that goes idle
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("before", [R.RUNNING, R.WAITING_INPUT, R.WAITING_APPROVAL])
def test_bound_run_going_idle_ends_the_job_as_interrupted(before: AgentRunState) -> None:
    j = reconcile(job(), [run("A", before, session="s1", message="m")], True, T0 + 1)
    ended = reconcile(j, [run("A", R.IDLE)], True, T0 + 2)
    assert ended.state == J.DISCONNECTED
    assert ended.message == INTERRUPTED_MESSAGE
    assert ended.bound_completed_by_idle
    assert ended.run_id == "A"
    assert ended.session_id == "s1"
    assert satisfies(ended, "completed")


def test_bound_run_going_idle_after_success_stays_succeeded() -> None:
    j = reconcile(job(), [run("A")], True, T0 + 1)
    done = reconcile(j, [run("A", R.SUCCEEDED, message="all good")], True, T0 + 2)
    after = reconcile(done, [run("A", R.IDLE)], True, T0 + 3)
    assert (after.state, after.message, after.bound_completed_by_idle) == (
        J.SUCCEEDED,
        "all good",
        False,
    )


def test_idle_ended_job_does_not_follow_the_run_that_replaces_it() -> None:
    j = reconcile(job(), [run("A")], True, T0 + 1)
    ended = reconcile(j, [run("A", R.IDLE), run("B", started=T0 + 2)], True, T0 + 3)
    assert ended.run_id == "A" and ended.state == J.DISCONNECTED
    # … but a follow-up re-arms it, and the next run is then picked up
    rearmed = prepare_for_follow_up(ended, run_ids("A", "B"), T0 + 4)
    assert rearmed.state == J.LAUNCHING and not rearmed.bound_completed_by_idle
    nxt = reconcile(rearmed, [run("A", R.IDLE), run("B"), run("C", started=T0 + 5)], True, T0 + 6)
    assert nxt.run_id == "C"


# --------------------------------------------------------------------------------------------
# Follow-ups
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("final", [R.SUCCEEDED, R.FAILED, R.DISCONNECTED])
def test_follow_up_rearms_a_finished_job(final: AgentRunState) -> None:
    j = reconcile(job(("OLD",)), [run("A", session="s1")], True, T0 + 1)
    done = reconcile(j, [run("A", final, message="finished")], True, T0 + 2)
    rearmed = prepare_for_follow_up(done, run_ids("A", "X"), T0 + 50)
    assert rearmed.state == J.LAUNCHING
    assert rearmed.run_id is None
    assert rearmed.baseline == {"OLD", "A", "X"}
    assert rearmed.deadline == T0 + 80
    assert rearmed.message is None
    assert rearmed.session_id == "s1"
    # the old run coming back to life can't capture the job
    assert reconcile(rearmed, [run("A", R.RUNNING)], True, T0 + 51).run_id is None
    assert reconcile(rearmed, [run("A"), run("N", started=T0 + 51)], True, T0 + 52).run_id == "N"
    assert reconcile(rearmed, [], True, T0 + 80).state == J.LAUNCH_FAILED


def test_follow_up_keeps_the_old_run_in_the_baseline_even_if_not_listed() -> None:
    done = reconcile(
        reconcile(job(), [run("A")], True, T0 + 1), [run("A", R.SUCCEEDED)], True, T0 + 2
    )
    rearmed = prepare_for_follow_up(done, [], T0 + 3)
    assert "A" in rearmed.baseline


@pytest.mark.parametrize(
    "state", [J.LAUNCHING, J.WAITING_INPUT, J.WAITING_APPROVAL, J.LOST, J.LAUNCH_FAILED, J.PARKED]
)
def test_follow_up_leaves_other_states_alone(state: AgentJobState) -> None:
    j = replace(job(), state=state, run_id=RunId("A") if state != J.LAUNCHING else None)
    assert prepare_for_follow_up(j, run_ids("A", "B"), T0 + 99) == j


def test_follow_up_to_a_running_run_is_noted_not_rearmed() -> None:
    j = replace(job(), state=J.RUNNING, run_id=RunId("A"))
    noted = prepare_for_follow_up(j, run_ids("A", "B"), T0 + 99)
    assert noted == replace(j, follow_up_at=T0 + 99)


def _running_with_follow_up() -> AgentJob:
    bound = reconcile(job(), [run("A")], True, T0 + 1)
    assert bound.run_id == "A" and bound.state == J.RUNNING
    return prepare_for_follow_up(bound, run_ids("A"), T0 + 2)


@pytest.mark.parametrize("final", [R.SUCCEEDED, R.FAILED])
def test_a_run_ending_with_a_follow_up_pending_hands_the_job_to_the_next_run(
    final: AgentRunState,
) -> None:
    ended = reconcile(_running_with_follow_up(), [run("A", final, message="first")], True, T0 + 3)
    assert ended.state == J.LAUNCHING and ended.run_id is None
    assert ended.follow_up_at is None and ended.follow_through is not None
    assert ended.deadline == T0 + 3 + FOLLOW_THROUGH_WINDOW_SECONDS
    assert not satisfies(ended, "completed")  # the wait goes on to the follow-up's run
    nxt = run("B", started=T0 + 4, updated=T0 + 4)
    bound = reconcile(ended, [run("A", final), nxt], True, T0 + 4)
    assert bound.run_id == "B" and bound.state == J.RUNNING and bound.follow_through is None
    done = reconcile(
        bound, [run("A", final), replace(nxt, state=R.SUCCEEDED, message="second")], True, T0 + 5
    )
    assert done.state == J.SUCCEEDED and done.message == "second"  # the last answer, not "first"


def test_both_runs_heard_at_once_the_follow_ups_run_is_bound() -> None:
    # mytty heard the first run end and the follow-up's run start in one pass (native lag).
    runs = [run("A", R.SUCCEEDED), run("B", started=T0 + 3)]
    handed = reconcile(_running_with_follow_up(), runs, True, T0 + 4)
    assert handed.state == J.LAUNCHING
    assert reconcile(handed, runs, True, T0 + 4).run_id == "B"


def test_a_follow_up_taken_into_the_same_turn_gives_back_the_runs_outcome() -> None:
    ended = reconcile(
        _running_with_follow_up(), [run("A", R.SUCCEEDED, message="all done")], True, T0 + 3
    )
    runs = [run("A", R.SUCCEEDED, message="all done")]
    waiting = reconcile(ended, runs, True, T0 + 3 + FOLLOW_THROUGH_WINDOW_SECONDS - 0.1)
    assert waiting.state == J.LAUNCHING
    back = reconcile(ended, runs, True, T0 + 3 + FOLLOW_THROUGH_WINDOW_SECONDS)
    assert back.state == J.SUCCEEDED and back.run_id == "A" and back.message == "all done"
    assert back.follow_through is None  # never launch-failed: the work was done


def test_a_follow_up_to_a_worker_that_then_exits_gives_back_the_outcome_at_once() -> None:
    ended = reconcile(_running_with_follow_up(), [run("A", R.SUCCEEDED)], True, T0 + 3)
    clues = LaunchClues(exited="bye", exit_status=0)
    back = reconcile(ended, [run("A", R.SUCCEEDED)], True, T0 + 4, clues)
    assert back.state == J.SUCCEEDED and back.run_id == "A"


def test_a_follow_up_pending_survives_the_store() -> None:
    ended = reconcile(_running_with_follow_up(), [run("A", R.FAILED, message="x")], True, T0 + 3)
    for j in (_running_with_follow_up(), ended):
        assert decode_job(encode_job(j)) == j


# --------------------------------------------------------------------------------------------
# Waits and snapshots
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "running", "attention", "completed"),
    [
        (J.LAUNCHING, False, False, False),
        (J.RUNNING, True, False, False),
        (J.WAITING_INPUT, True, True, False),
        (J.WAITING_APPROVAL, True, True, False),
        (J.PARKED, True, False, False),  # it goes on by itself: nothing to wait out
        (J.SUCCEEDED, True, True, True),  # attention: an ended job ends the wait
        (J.FAILED, True, True, True),  # attention: an ended job ends the wait
        (J.DISCONNECTED, True, True, True),  # attention: an ended job ends the wait
        (J.LAUNCH_FAILED, True, True, True),  # attention: an ended job ends the wait
        (J.LOST, True, True, True),  # attention: an ended job ends the wait
    ],
)
def test_wait_conditions(
    state: AgentJobState, running: bool, attention: bool, completed: bool
) -> None:
    j = replace(job(), state=state)
    assert satisfies(j, "running") is running
    assert satisfies(j, "attention") is attention
    assert satisfies(j, "completed") is completed
    assert is_terminal(state) is completed
    with pytest.raises(ValueError):
        satisfies(j, "idle")  # type: ignore[arg-type]


def test_state_wire_values() -> None:
    assert [s.value for s in AgentJobState] == [
        "queued",  # a mytty addition (admission)
        "launching",
        "running",
        "waiting-input",
        "waiting-approval",
        "parked",
        "succeeded",
        "failed",
        "disconnected",
        "launch-failed",
        "lost",
    ]
    assert {s.value for s in TERMINAL_JOB_STATES} == {
        "succeeded",
        "failed",
        "disconnected",
        "launch-failed",
        "lost",
    }


# --------------------------------------------------------------------------------------------
# Invariants under arbitrary histories
# --------------------------------------------------------------------------------------------

RUN_IDS = ["R0", "R1", "R2", "R3"]
ONE_WAY = {J.LAUNCH_FAILED, J.LOST}

run_updates = st.builds(
    run,
    st.sampled_from(RUN_IDS),
    st.sampled_from(list(AgentRunState)),
    started=st.none() | st.floats(T0, T0 + 100),
    updated=st.none() | st.floats(T0, T0 + 100),
    pane=st.sampled_from([PANE, PANE, OTHER_PANE]),
    provider=st.sampled_from(
        [AgentProvider.CLAUDE_CODE, AgentProvider.CLAUDE_CODE, AgentProvider.CODEX]
    ),
    session=st.none() | st.just("s"),
    message=st.none() | st.just("msg"),
)

steps = st.one_of(
    st.tuples(st.just("update"), run_updates),
    st.tuples(st.just("tick"), st.floats(0, 20)),
    st.tuples(st.just("pane-gone"), st.none()),
    st.tuples(st.just("follow-up"), st.none()),
    st.tuples(st.just("prune"), st.sampled_from(RUN_IDS)),
)


def _check_step(before: AgentJob, after: AgentJob, *, rearmed: bool) -> None:
    if after.run_id is not None:
        # never bound to a baseline run (a lapsed follow-up's given-back run included)
        assert after.run_id not in after.baseline
        assert after.state != J.LAUNCHING  # a bound job never reads launching (the issue)
    if before.state in ONE_WAY:
        assert after == before
    if not rearmed:
        following = before.follow_up_at is not None or before.follow_through is not None
        if before.run_id is not None and before.state is not J.PARKED and not following:
            assert after.run_id == before.run_id  # never rebinds (a park ends by rebinding)
        if is_terminal(before.state):
            assert after == before
    # The baseline only grows, but for the run a lapsed follow-up gives back: bound again.
    through = before.follow_through
    given_back = through is not None and after.follow_through is None
    kept = before.baseline - {through.run_id} if given_back and through else before.baseline
    assert after.baseline >= kept


@settings(max_examples=300)
@given(st.sets(st.sampled_from(RUN_IDS), max_size=2), st.lists(steps, max_size=30))
def test_tracker_invariants(baseline: set[str], history: list[tuple[str, object]]) -> None:
    runs: dict[RunId, AgentRun] = {}
    pane_exists = True
    now = T0
    j = new_job(JOB_ID, PANE, WorkerProvider.CLAUDE, "w", run_ids(*baseline), now)
    for kind, arg in history:
        rearmed = False
        before = j
        if kind == "update":
            assert isinstance(arg, AgentRun)
            runs[arg.id] = arg
        elif kind == "tick":
            assert isinstance(arg, float)
            now += arg
        elif kind == "pane-gone":
            pane_exists = False
        elif kind == "prune":
            assert isinstance(arg, str)
            runs.pop(RunId(arg), None)
        else:
            j = prepare_for_follow_up(j, runs.keys(), now)
            rearmed = j.state is not before.state
            if rearmed:
                assert before.state in (J.SUCCEEDED, J.FAILED, J.DISCONNECTED)
                assert j.state == J.LAUNCHING and j.run_id is None
            elif j is not before:  # an active run: the follow-up is only noted
                assert j == replace(before, follow_up_at=now)
        _check_step(before, j, rearmed=rearmed)
        mid = j
        j = reconcile(j, list(runs.values()), pane_exists, now)
        _check_step(mid, j, rearmed=False)
        if j.run_id is not None and j.run_id != before.run_id:
            # a fresh binding only ever lands on a run that was eligible
            bound = runs[j.run_id]
            assert bound.surface_id == PANE and bound.provider == AgentProvider.CLAUDE_CODE
            assert bound.state not in (R.UNKNOWN, R.IDLE)
            assert bound.id not in baseline


kinds = st.sampled_from(list(AgentEventKind))


@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(RUN_IDS),
            kinds,
            st.sampled_from([PANE, OTHER_PANE]),
            st.booleans(),
            st.none() | st.sampled_from(["Bash requires approval", "note"]),
        ),
        max_size=25,
    ),
    st.sets(st.sampled_from(RUN_IDS), max_size=1),
)
def test_tracker_invariants_through_the_real_reducer(
    events: list[tuple[str, AgentEventKind, str, bool, str | None]], baseline: set[str]
) -> None:
    """Feed random hook events through RunBook, reconciling after each one."""
    book = RunBook()
    j = new_job(JOB_ID, PANE, WorkerProvider.CLAUDE, None, run_ids(*baseline), T0)
    for n, (rid, kind, pane, follow_up, message) in enumerate(events):
        now = T0 + n
        book.apply(
            AgentEvent(
                id=stable_uuid("e", str(n)),
                run_id=RunId(rid),
                surface_id=SurfaceId(pane),
                provider=AgentProvider.CLAUDE_CODE,
                kind=kind,
                occurred_at=now,
                message=message,
            )
        )
        before = j
        runs = book.runs_for(PANE, AgentProvider.CLAUDE_CODE)
        j = reconcile(j, runs, True, now)
        _check_step(before, j, rearmed=False)
        bound = book.get(j.run_id) if j.run_id is not None else None
        if bound is not None and not is_terminal(j.state) and j.state is not J.PARKED:
            # a live job always mirrors its run's state, and its message (never an older one);
            # a parked one waits for the next run, whatever the parked run does meanwhile
            assert j.state.value == bound.state.value
            assert j.message == bound.message
        if follow_up:
            before = j
            j = prepare_for_follow_up(j, [r.id for r in runs], now)
            _check_step(before, j, rearmed=j is not before)


# --------------------------------------------------------------------------------------------
# Why a launch failed
# --------------------------------------------------------------------------------------------


def test_needs_clues_only_for_an_unbound_launching_job_past_its_deadline() -> None:
    j = job()
    assert not needs_clues(j, T0 + LAUNCH_WINDOW_SECONDS - 1)
    assert needs_clues(j, T0 + LAUNCH_WINDOW_SECONDS)
    bound = reconcile(j, [run("A")], True, T0 + 1)
    assert not needs_clues(bound, T0 + 100)
    failed = reconcile(j, [], True, T0 + LAUNCH_WINDOW_SECONDS)
    assert not needs_clues(failed, T0 + 100)


def test_launch_failed_message_names_the_likely_cause() -> None:
    late = T0 + LAUNCH_WINDOW_SECONDS
    silent = reconcile(job(), [], True, late, LaunchClues(agent_running=True))
    assert silent.state == J.LAUNCH_FAILED and silent.message is not None
    assert silent.message.startswith("No claude run was observed within the launch window")
    assert "claude is running in the worker's pane: its hooks did not report" in silent.message
    assert "mytty integrations list" in silent.message and "MYTTY_EVENT_SOCKET" in silent.message
    assert "background server" not in silent.message

    codex = job(provider=WorkerProvider.CODEX)
    silent_codex = reconcile(codex, [], True, late, LaunchClues(agent_running=True))
    assert "codex app-server daemon stop" in (silent_codex.message or "")

    refused = reconcile(codex, [], True, late, LaunchClues(agent_running=True, unplaced_events=3))
    assert refused.message is not None
    assert "refused 3 codex hook event(s)" in refused.message
    assert "background server" in refused.message and "--no-daemon" in refused.message

    absent = reconcile(job(), [], True, late, LaunchClues())
    assert absent.message == reconcile(job(), [], True, late).message
    assert "did the agent start" in (absent.message or "")


@given(st.booleans(), st.integers(0, 5), st.sampled_from(list(WorkerProvider)))
def test_clues_never_change_anything_but_a_launch_failure_message(
    running: bool, unplaced: int, provider: WorkerProvider
) -> None:
    clues = LaunchClues(agent_running=running, unplaced_events=unplaced)
    j = new_job(JOB_ID, PANE, provider, None, (), T0)
    for runs, now in (([], T0 + 1), ([run("A", provider=provider.agent_provider)], T0 + 1)):
        assert reconcile(j, runs, True, now, clues) == reconcile(j, runs, True, now)
    failed = reconcile(j, [], True, T0 + LAUNCH_WINDOW_SECONDS, clues)
    plain = reconcile(j, [], True, T0 + LAUNCH_WINDOW_SECONDS)
    assert replace(failed, message=None) == replace(plain, message=None)
    assert failed.message and failed.message.startswith(f"No {provider.value} run was observed")


# --------------------------------------------------------------------------------------------
# Lead notices (agent spawn --notify-lead)
# --------------------------------------------------------------------------------------------


def test_a_notify_lead_job_has_news_once_per_outcome_of_each_run() -> None:
    from mytty.core.jobs.tracker import notice_token, pending_notice

    lead = SurfaceId("11111111-1111-4111-8111-111111111111")
    j = replace(job(), notify_lead=True, lead=lead)
    assert not pending_notice(j)  # launching: nothing to tell
    running = replace(j, state=J.RUNNING, run_id=RunId("R1"))
    assert not pending_notice(running)
    asking = replace(running, state=J.WAITING_APPROVAL)
    assert pending_notice(asking)
    told = replace(asking, notified=notice_token(asking))
    assert not pending_notice(told)
    done = replace(told, state=J.SUCCEEDED)
    assert pending_notice(done)  # a new outcome of the same run
    done = replace(done, notified=notice_token(done))
    assert not pending_notice(done)
    next_run = replace(done, run_id=RunId("R2"))
    assert pending_notice(next_run)  # a re-armed job's next run is news again
    assert not pending_notice(replace(next_run, notify_lead=False))
    assert not pending_notice(replace(next_run, lead=None))


def test_keys_hold_until_the_job_is_lost_and_the_digest_names_task_and_provider() -> None:
    from mytty.core.jobs.tracker import holds_key, spawn_digest

    keyed = replace(job(), key="k")
    assert holds_key(keyed) and holds_key(replace(keyed, state=J.SUCCEEDED))
    assert not holds_key(replace(keyed, state=J.LOST)) and not holds_key(job())
    claude = spawn_digest(WorkerProvider.CLAUDE, "task")
    assert claude == spawn_digest(WorkerProvider.CLAUDE, "task")
    assert claude != spawn_digest(WorkerProvider.CODEX, "task")
    assert claude != spawn_digest(WorkerProvider.CLAUDE, "task ")
