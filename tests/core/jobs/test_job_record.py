"""A job's stored record decodes to the same job; anything else decodes to None."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.record import decode_job, encode_job
from mytty.core.jobs.tracker import AgentJob, AgentJobState
from mytty.core.limits.park import HeldSend, Park

ids = st.uuids().map(lambda u: str(u).upper())
texts = st.none() | st.text(max_size=40)
words = st.lists(st.text(max_size=12), max_size=4).map(tuple)

launches = st.builds(
    JobLaunch,
    task=st.text(max_size=60),
    cwd=st.text(min_size=1, max_size=30),
    worktree_branch=texts,
    access=texts,
    model=texts,
    mode_flags=words,
    argv=words,
    resumed=st.integers(0, 9),
    resumed_at=st.none() | st.floats(min_value=0, max_value=4e9, allow_nan=False),
    closed=st.booleans(),
)

jobs = st.builds(
    AgentJob,
    job_id=ids.map(JobId),
    surface_id=ids.map(SurfaceId),
    provider=st.sampled_from(WorkerProvider),
    label=texts,
    state=st.sampled_from(AgentJobState),
    run_id=st.none() | ids.map(RunId),
    session_id=texts,
    message=texts,
    baseline=st.frozensets(ids.map(RunId), max_size=5),
    deadline=st.floats(min_value=0, max_value=4e9, allow_nan=False),
    bound_completed_by_idle=st.booleans(),
    live_subagents=st.integers(0, 5),
    launch=st.none() | launches,
    key=texts,
    spawn_digest=texts,
    lead=st.none() | ids.map(SurfaceId),
    notify_lead=st.booleans(),
    notified=texts,
    budget_tokens=st.none() | st.integers(1, 10**9),
    budget_usd=st.none() | st.decimals(0, 10**6, places=2).map(str),
    queued_because=texts,
    queue_ticket=st.none() | st.integers(0, 10**9),
    paced=st.booleans(),
    end_reason=texts,
    memory_cap_mb=st.none() | st.integers(16, 10**6),
    memory_cap=texts,
    park=st.none()
    | st.builds(
        Park,
        run_id=ids.map(RunId),
        parked_at=st.floats(min_value=0, max_value=4e9, allow_nan=False),
        until=st.none() | st.floats(min_value=0, max_value=4e9, allow_nan=False),
        limit=texts,
        account=texts,
        account_label=texts,
        streak=st.integers(1, 6),
        held=st.booleans(),
        resume_now_at=st.none() | st.floats(min_value=0, max_value=4e9, allow_nan=False),
        continued_at=st.none() | st.floats(min_value=0, max_value=4e9, allow_nan=False),
    ),
    held_sends=st.lists(st.builds(HeldSend, st.text(max_size=20), st.booleans()), max_size=3).map(
        tuple
    ),
    limit_streak=st.integers(0, 6),
)


@given(jobs)
def test_a_job_round_trips_through_its_record(job: AgentJob) -> None:
    assert decode_job(encode_job(job)) == job


def test_records_of_another_version_or_shape_decode_to_none() -> None:
    job = decode_job(encode_job(_job()))
    assert job is not None
    good = encode_job(job)
    assert decode_job(good.replace('"v":1', '"v":2')) is None
    assert decode_job(good.replace('"state":"running"', '"state":"napping"')) is None
    assert decode_job(good.replace('"baseline":[]', '"baseline":7')) is None
    for text in ("", "[]", "{}", "not json", '{"v":1}'):
        assert decode_job(text) is None
    assert decode_job(good.replace('"live":0', '"live":-1')) is None


def test_a_record_without_the_live_count_has_no_live_subagents() -> None:
    # Records stored before subagent tracking existed.
    old = encode_job(_job()).replace(',"live":0', "")
    assert '"live"' not in old
    job = decode_job(old)
    assert job is not None and job.live_subagents == 0


def test_a_record_from_before_usage_limits_was_never_parked() -> None:
    text = encode_job(_job())
    old = text.replace(',"park":null', "").replace(',"held":[]', "").replace(',"streak":0', "")
    assert '"park"' not in old and '"held"' not in old and '"streak"' not in old
    assert decode_job(old) == _job()


def test_a_record_from_before_keys_and_lead_notices_has_none() -> None:
    text = encode_job(_job())
    for key in ("key", "digest", "lead", "notified"):
        text = text.replace(f',"{key}":null', "")
    old = text.replace(',"notify":false', "")
    assert '"key"' not in old and '"notify"' not in old
    job = decode_job(old)
    assert job is not None and job == _job()


def _job() -> AgentJob:
    return AgentJob(
        job_id=JobId("J"),
        surface_id=SurfaceId("S"),
        provider=WorkerProvider.CODEX,
        label=None,
        state=AgentJobState.RUNNING,
        run_id=None,
        session_id=None,
        message=None,
        baseline=frozenset(),
        deadline=1.0,
    )


def test_a_record_without_a_launch_has_none_and_a_bad_launch_is_refused() -> None:
    old = encode_job(_job()).replace(',"launch":null', "")
    assert '"launch"' not in old
    job = decode_job(old)
    assert job is not None and job.launch is None
    launch = JobLaunch("t", "/w", None, None, None, (), ("claude",))
    good = encode_job(dataclasses.replace(_job(), launch=launch))
    assert decode_job(good) is not None
    assert decode_job(good.replace('"resumed":0', '"resumed":-1')) is None
    assert decode_job(good.replace('"argv":["claude"]', '"argv":"claude"')) is None


def test_a_record_from_before_admission_has_no_queue_and_no_dollar_budget() -> None:
    old = encode_job(_job())
    for key in (
        '"budgetUsd":null',
        '"queued":null',
        '"ticket":null',
        '"paced":false',
        '"endReason":null',
    ):
        assert key in old
        old = old.replace("," + key, "")
    job = decode_job(old)
    assert job is not None
    assert (job.budget_usd, job.queued_because, job.queue_ticket, job.paced, job.end_reason) == (
        None,
        None,
        None,
        False,
        None,
    )
