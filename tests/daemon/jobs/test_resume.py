"""Which jobs ``mytty resume`` restarts, with which argv, and why it leaves the others alone."""

from __future__ import annotations

from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, SurfaceId, stable_uuid
from mytty.core.jobs.launch import RESUME_PROMPT
from mytty.core.jobs.launch_record import JobLaunch
from mytty.core.jobs.tracker import AgentJob, AgentJobState
from mytty.daemon.jobs.resume import plan

J = AgentJobState


def job(
    name: str,
    state: AgentJobState = J.LOST,
    *,
    provider: WorkerProvider = WorkerProvider.CLAUDE,
    session: str | None = "sess-",
    launch: bool = True,
    closed: bool = False,
    cwd: str | None = None,
) -> AgentJob:
    record = JobLaunch(
        task="t",
        cwd=cwd or f"/work/{name}",
        worktree_branch=None,
        access="review",
        model="opus" if provider is WorkerProvider.CLAUDE else None,
        mode_flags=("--permission-mode", "plan")
        if provider is WorkerProvider.CLAUDE
        else ("-s", "read-only", "-a", "never"),
        argv=("claude",),
        closed=closed,
    )
    return AgentJob(
        job_id=JobId(stable_uuid("job", name)),
        surface_id=SurfaceId(stable_uuid("pane", name)),
        provider=provider,
        label=name,
        state=state,
        run_id=None,
        session_id=None if session is None else session + name,
        message=None,
        baseline=frozenset(),
        deadline=0.0,
        launch=record if launch else None,
    )


def exists(path: str) -> bool:
    return path != "/work/gone"


def test_each_lost_job_resumes_its_own_session_with_its_launch_flags() -> None:
    a, b = job("a"), job("b", provider=WorkerProvider.CODEX)
    steps = plan([a, b], None, dir_exists=exists)
    assert [s.job for s in steps] == [a, b]
    assert steps[0].argv == [
        "claude", "--model", "opus", "--permission-mode", "plan",
        "--teammate-mode", "in-process", "--resume", "sess-a", "--", RESUME_PROMPT,
    ]  # fmt: skip
    assert steps[1].argv == [
        "codex", "--no-daemon", "-s", "read-only", "-a", "never",
        "resume", "sess-b", "--", RESUME_PROMPT,
    ]  # fmt: skip


def test_by_default_only_lost_jobs_not_closed_on_purpose() -> None:
    jobs = [
        job("live", J.RUNNING),
        job("done", J.SUCCEEDED),
        job("closed", closed=True),
        job("lost"),
    ]
    assert [s.job.label for s in plan(jobs, None, dir_exists=exists)] == ["lost"]


def test_named_jobs_say_why_they_are_not_resumed() -> None:
    jobs = [
        job("live", J.RUNNING),
        job("done", J.SUCCEEDED),
        job("closed", closed=True),
        job("nosession", session=None),
        job("old", launch=False),
        job("gone", cwd="/work/gone"),
        job("other"),
    ]
    named = [j.job_id for j in jobs if j.label != "other"]
    steps = {s.job.label: s for s in plan(jobs, named, dir_exists=exists)}
    named_labels = [j.label for j in jobs if j.label != "other"]
    assert set(steps) == set(named_labels)
    assert steps["closed"].argv is not None  # named: closed on purpose, resumed on purpose
    reasons = {label: steps[label].skipped for label in named_labels if label != "closed"}
    assert reasons == {
        "live": "still running in its pane",
        "done": "already succeeded",
        "nosession": "mytty never learned its conversation (no session id)",
        "old": "spawned before mytty recorded how workers start",
        "gone": "its directory /work/gone is gone",
    }
    assert all(steps[label].argv is None for label in reasons)
