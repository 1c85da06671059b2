"""Which runs an explanation reads: few, the important ones first, whatever the pane's history."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.events import AgentEventKind, WorkerProvider
from mytty.core.explain.inputs import (
    MAX_RUNS_READ,
    RECENT_TURNS,
    resume_run_ids,
    runs_to_read,
    shown_run,
)
from mytty.core.ids import JobId
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.tracker import new_job
from mytty.core.runs.book import RunBook
from tests.core.builders import CODEX, PANE, R, ev

K = AgentEventKind


def book_of(n_claude: int, n_codex: int = 0) -> RunBook:
    book = RunBook()
    t = 0.0
    for i in range(n_claude):
        t += 1
        book.apply(ev(K.STARTED, run=R(f"c{i}"), at=t))
        book.apply(ev(K.SUCCEEDED, run=R(f"c{i}"), at=t + 0.5))
    for i in range(n_codex):
        t += 1
        book.apply(ev(K.STARTED, run=R(f"x{i}"), provider=CODEX, at=t))
    return book


def test_a_pane_reads_its_relevant_run_then_its_newest_turns() -> None:
    book = book_of(6, 2)
    runs = book.runs_for_surface(PANE)
    relevant = book.most_relevant(PANE)
    assert relevant is not None and relevant.provider is CODEX
    wanted = runs_to_read(shown_run(runs, None, relevant.id), runs, None)
    assert wanted[0] == relevant.id
    assert wanted[1] == R("x0")  # the other codex run: same provider, newest first
    assert wanted[2:] == [R(f"c{i}") for i in (5, 4, 3, 2, 1, 0)][: MAX_RUNS_READ - 2]


def test_a_job_reads_its_run_and_its_resumptions_first() -> None:
    book = book_of(9)
    runs = book.runs_for_surface(PANE)
    launch = JobLaunch(
        task="t", cwd="/w", worktree_branch=None, access=None, model=None, mode_flags=(), argv=()
    )
    job = replace(
        new_job(JobId("J"), PANE, WorkerProvider.CLAUDE, None, [], 0.0),
        run_id=R("c2"),
        launch=replace(launch, resumed=2),
    )
    resumed = resume_run_ids(job)
    assert len(set(resumed)) == 2
    wanted = runs_to_read(shown_run(runs, job, None), runs, job)
    assert wanted[:3] == [R("c2"), resumed[1], resumed[0]]
    assert wanted[3 : 3 + RECENT_TURNS] == [R("c8"), R("c7"), R("c6")]


def test_an_unbound_job_reads_its_provider_newest_runs() -> None:
    book = book_of(2, 3)
    runs = book.runs_for_surface(PANE)
    job = new_job(JobId("J"), PANE, WorkerProvider.CLAUDE, None, [], 0.0)
    assert shown_run(runs, job, R("x2")) is None  # a job's state is its own run's, not the pane's
    wanted = runs_to_read(None, runs, job)
    assert wanted[:2] == [R("c1"), R("c0")]


@given(st.integers(0, 150), st.integers(0, 150))
def test_never_more_than_the_bound(n_claude: int, n_codex: int) -> None:
    book = book_of(n_claude, n_codex)
    runs = book.runs_for_surface(PANE)
    relevant = book.most_relevant(PANE)
    wanted = runs_to_read(shown_run(runs, None, relevant.id if relevant else None), runs, None)
    assert len(wanted) == min(MAX_RUNS_READ, len(runs)) == len(set(wanted))
    if relevant is not None:
        assert wanted[0] == relevant.id
