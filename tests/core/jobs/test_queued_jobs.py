"""Queued jobs (admission): they wait without binding, wait through `agent wait`, start later."""

from __future__ import annotations

from dataclasses import replace

from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.jobs.tracker import (
    CANCELLED_MESSAGE,
    LAUNCH_WINDOW_SECONDS,
    MEMORY_LIMIT_REASON,
    AgentJobState,
    admitted,
    ended_by_memory_limit,
    is_terminal,
    new_job,
    notice_token,
    queue,
    reconcile,
    satisfies,
    still_queued,
)
from tests.core.jobs.test_jobs import PANE, T0, run

J = AgentJobState


def queued():
    fresh = new_job(JobId("J1"), PANE, WorkerProvider.CLAUDE, "x", [], T0)
    return queue(fresh, "max-workers", 7, "Queued until admitted (max-workers): 2 of 2.")


def test_a_queued_job_never_binds_and_never_fails_its_launch() -> None:
    job = queued()
    assert (job.state, job.queued_because, job.queue_ticket) == (J.QUEUED, "max-workers", 7)
    later = T0 + 10 * LAUNCH_WINDOW_SECONDS  # long past the spawn's window
    assert reconcile(job, [run("r1")], True, later) == job
    assert not is_terminal(job.state) and notice_token(job) is None


def test_agent_wait_waits_through_the_queue() -> None:
    job = queued()
    assert not satisfies(job, "running")
    assert not satisfies(job, "attention")
    assert not satisfies(job, "completed")


def test_a_queued_job_whose_pane_went_is_lost_cancelled() -> None:
    lost = reconcile(queued(), [], False, T0)
    assert lost.state is J.LOST and lost.message == CANCELLED_MESSAGE
    # A late "still queued" of the admission loop does not bring the queue's message back.
    assert still_queued(lost, "memory", "Queued until admitted (memory): …") is lost


def test_admitted_opens_the_window_when_it_starts_and_follows_the_next_run() -> None:
    job = admitted(queued(), [RunId("old")], now=T0 + 500, window=30.0)
    assert (job.state, job.deadline, job.queued_because, job.queue_ticket, job.message) == (
        J.LAUNCHING,
        T0 + 530,
        None,
        None,
        None,
    )
    assert reconcile(job, [run("old")], True, T0 + 501).run_id is None  # the baseline
    bound = reconcile(job, [run("new", started=T0 + 502, updated=T0 + 502)], True, T0 + 502)
    assert (bound.state, bound.run_id) == (J.RUNNING, "new")


def test_a_new_reason_is_a_change_the_same_one_is_not() -> None:
    job = queued()
    assert still_queued(job, "max-workers", job.message or "") is job
    moved = still_queued(job, "memory", "Queued until admitted (memory): …")
    assert (moved.queued_because, moved.queue_ticket) == ("memory", 7)


def test_a_worker_killed_by_its_cap_ends_failed_with_the_reason() -> None:
    running = replace(queued(), state=J.RUNNING)
    job = ended_by_memory_limit(running, 2048)
    assert (job.state, job.end_reason) == (J.FAILED, MEMORY_LIMIT_REASON)
    assert "worker_memory_max_mb = 2048" in (job.message or "")
    assert job.surface_id == SurfaceId(PANE)
