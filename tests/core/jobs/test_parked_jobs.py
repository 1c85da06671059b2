"""A job whose run stops at a usage limit: parked, then going on with its conversation's next run."""

from __future__ import annotations

from dataclasses import replace

from mytty.core.events import AgentProvider, AgentRunState, WorkerProvider
from mytty.core.jobs.tracker import AgentJob, AgentJobState, new_job, reconcile, satisfies
from mytty.core.limits.park import MAX_REPARKS
from tests.core.jobs.test_jobs import JOB_ID, PANE, T0, run, run_ids

J = AgentJobState
R = AgentRunState


def bound(*older: str) -> AgentJob:
    """A job bound to running run A of conversation ``s``."""
    j = new_job(JOB_ID, PANE, WorkerProvider.CLAUDE, "w", run_ids(*older), T0)
    return reconcile(j, [run("A", session="s")], True, T0 + 1)


def test_a_limited_run_parks_its_job() -> None:
    j = bound()
    parked = reconcile(
        j,
        [run("A", R.PARKED, session="s", message="limit", updated=T0 + 5), run("B", R.SUCCEEDED)],
        True,
        T0 + 6,
    )
    assert parked.state is J.PARKED and parked.run_id == "A"
    assert parked.park is not None and parked.park.run_id == "A"
    assert parked.park.parked_at == T0 + 5 and parked.park.streak == 1
    assert parked.message == "limit" and parked.limit_streak == 1
    assert "B" in parked.baseline and "A" not in parked.baseline
    assert not satisfies(parked, "completed") and not satisfies(parked, "attention")


def test_a_parked_job_ignores_what_its_parked_run_does_next() -> None:
    parked = reconcile(bound(), [run("A", R.PARKED, session="s")], True, T0 + 2)
    for later in (R.IDLE, R.DISCONNECTED, R.PARKED):
        assert reconcile(parked, [run("A", later, session="s")], True, T0 + 3) == parked


def test_the_next_run_of_its_conversation_ends_the_park() -> None:
    parked = reconcile(bound(), [run("A", R.PARKED, session="s")], True, T0 + 2)
    other = run("X", R.RUNNING, session="other")  # another conversation in the pane: not it
    assert reconcile(parked, [run("A", R.PARKED), other], True, T0 + 3) == parked
    going = reconcile(parked, [run("A", R.PARKED), run("B", session="s")], True, T0 + 4)
    assert going.state is J.RUNNING and going.run_id == "B" and going.park is None
    assert going.limit_streak == 1  # the streak ends only when a run ends otherwise
    done = reconcile(going, [run("B", R.SUCCEEDED, session="s")], True, T0 + 5)
    assert done.state is J.SUCCEEDED and done.limit_streak == 0


def test_parking_again_right_after_going_on_counts_and_the_last_one_is_held() -> None:
    j = bound()
    runs = [run("A", session="s")]
    for n in range(1, MAX_REPARKS + 2):
        name = "A" if n == 1 else f"N{n}"
        runs = [replace(r, state=R.PARKED) if r.id == name else r for r in runs]
        j = reconcile(j, runs, True, T0 + n)
        assert j.state is J.PARKED and j.park is not None and j.park.streak == n
        assert j.park.held is (n == MAX_REPARKS + 1)
        runs.append(run(f"N{n + 1}", session="s", started=T0 + n + 1))
        j = reconcile(j, runs, True, T0 + n + 0.5) if n <= MAX_REPARKS else j


def test_a_parked_job_whose_pane_went_is_lost() -> None:
    parked = reconcile(bound(), [run("A", R.PARKED, session="s")], True, T0 + 2)
    assert reconcile(parked, [], False, T0 + 3).state is J.LOST


def test_a_first_run_that_is_already_limited_parks_the_launching_job() -> None:
    j = new_job(JOB_ID, PANE, WorkerProvider.CODEX, None, [], T0)
    first = run("A", R.PARKED, started=None, provider=AgentProvider.CODEX)
    parked = reconcile(j, [first], True, T0 + 1)
    assert parked.state is J.PARKED and parked.run_id == "A"
