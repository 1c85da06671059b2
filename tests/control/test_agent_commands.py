"""Agent commands against the fake port: spawn's validation order, job lookups and lost jobs."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

import pytest

from mytty.core.events import AgentEventKind, AgentProvider, WorkerProvider
from mytty.core.ids import SurfaceId
from tests.control.conftest import event, failure, run, uuid
from tests.control.fakes import FakeController, FakePane

K = AgentEventKind


def spawn(pane: FakePane | None, **fields: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"type": "spawnAgent", "provider": "claude", "task": "look around"}
    if pane is not None:
        request["anchorPaneID"] = pane.surface_id
        request["direction"] = "right"
    request.update(fields)
    return request


async def spawned(c: FakeController, pane: FakePane | None, **fields: Any) -> dict[str, Any]:
    reply = await c.request(spawn(pane, **fields))
    assert reply["type"] == "agentJob", reply
    job: dict[str, Any] = reply["job"]
    return job


# -- spawn --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"provider": "gemini"}, "invalid-request"),
        ({"direction": "sideways"}, "invalid-request"),
        ({"access": "root"}, "invalid-request"),
        ({"anchorPaneID": "00000000-0000-4000-8000-000000000000"}, "pane-not-found"),
        ({"task": ""}, "invalid-task"),
        ({"task": 7}, "invalid-request"),
        ({"label": "two\nlines"}, "invalid-label"),
        ({"model": "son net"}, "invalid-model"),
        ({"cwd": "relative"}, "invalid-cwd"),
        ({"worktreeBranch": "bad..branch"}, "invalid-worktree-branch"),
        ({"worktreeBranch": "feature"}, "not-a-git-repository"),
    ],
)
def test_spawn_refuses_bad_input_before_creating_a_pane(fields: dict[str, Any], code: str) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        assert failure(await c.request(spawn(pane, **fields))) == code
        assert c.created == []

    run(scenario)


def test_spawn_reports_the_first_problem_in_the_documented_order() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        # anchor before task before label before model before integration before cwd
        everything_wrong = spawn(
            pane, anchorPaneID=uuid(), task="", label="a\nb", model="", cwd="rel"
        )
        assert failure(await c.request(everything_wrong)) == "pane-not-found"
        del everything_wrong["anchorPaneID"]
        assert failure(await c.request(everything_wrong)) == "invalid-task"
        everything_wrong["task"] = "ok"
        assert failure(await c.request(everything_wrong)) == "invalid-label"
        del everything_wrong["label"]
        assert failure(await c.request(everything_wrong)) == "invalid-model"
        del everything_wrong["model"]
        c.integrations.statuses[AgentProvider.CLAUDE_CODE] = "needs-repair"
        assert failure(await c.request(everything_wrong)) == "provider-integration-needs-repair"
        c.integrations.statuses[AgentProvider.CLAUDE_CODE] = "installed"
        assert failure(await c.request(everything_wrong)) == "invalid-cwd"
        assert c.created == []

    run(scenario)


def test_spawn_with_a_provider_binary_on_no_path() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.missing_binaries.add(WorkerProvider.CODEX)
        reply = await c.request(spawn(pane, provider="codex"))
        assert failure(reply) == "provider-binary-not-found"
        assert c.created == []

    run(scenario)


def test_spawn_starts_a_launching_job_in_a_new_pane() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane, label="scan-a", cwd="/")
        (made,) = c.created
        assert job["paneID"] == {"rawValue": made.surface_id}
        assert (job["provider"], job["label"], job["state"]) == ("claude", "scan-a", "launching")
        assert (job["runID"], job["message"]) == (None, None)
        # A Claude worker's conversation id is mytty's choice, passed as --session-id.
        session = job["sessionID"]
        assert session is not None and str(UUID(session)) == session
        assert made.command is not None and f"--session-id {session} --" in made.command
        assert (made.split_from, made.direction, made.cwd) == (pane.surface_id, "right", "/")
        # The worker's argv runs from a launch file: the command names the provider and task.
        assert made.command is not None and "claude" in made.command
        assert "look around" in made.command and "--fake-access=default" in made.command

    run(scenario)


def test_spawn_into_a_worktree_uses_its_directory() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.worktrees["/tmp"] = "/"
        await spawned(c, pane, worktreeBranch="feature/x")
        assert c.created[0].cwd == "/"

    run(scenario)


def test_spawn_without_an_anchor_opens_a_window_in_the_mytty_session() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        await spawned(c, None, cwd="/")
        (made,) = c.created
        assert (made.split_from, made.session) == (None, "mytty")

    run(scenario)


def test_spawn_while_tmux_is_down() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.port_up = False
        assert failure(await c.request(spawn(None, cwd="/"))) == "tmux-unavailable"

    run(scenario)


# -- wait / result / send / focus / close -----------------------------------------------------


@pytest.mark.parametrize(
    "request_type", ["waitAgent", "agentResult", "sendAgent", "focusAgent", "closeAgent"]
)
def test_every_agent_command_knows_no_such_job(request_type: str) -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        request = {
            "type": request_type,
            "jobID": {"rawValue": uuid()},
            "until": "completed",
            "text": "more",
            "timeoutSeconds": 0,
        }
        assert failure(await c.request(request)) == "job-not-found"
        malformed = {**request, "jobID": 5}
        assert failure(await c.request(malformed)) == "invalid-request"

    run(scenario)


def test_agent_wait_validates_until_and_follows_the_jobs_own_run() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane)
        job_id = job["jobID"]
        worker = SurfaceId(job["paneID"]["rawValue"])
        bad = {"type": "waitAgent", "jobID": job_id, "until": "idle"}
        assert failure(await c.request(bad)) == "invalid-request"
        now = {"type": "waitAgent", "jobID": job_id, "until": "running", "timeoutSeconds": 0}
        reply = await c.request(now)
        assert (reply["type"], reply["timedOut"], reply["job"]["state"]) == (
            "agentWaitResult",
            True,
            "launching",
        )
        request = {**now, "timeoutSeconds": 30}
        waiting = asyncio.ensure_future(c.request(request))
        await asyncio.sleep(0)
        c.hub.ingest(event(pane.surface_id, K.STARTED))  # another pane's run: not the job's
        await asyncio.sleep(0)
        assert not waiting.done()
        run_id = uuid()
        c.hub.ingest(event(worker, K.STARTED, run=run_id))
        reply = await waiting
        assert reply["timedOut"] is False
        assert reply["job"]["state"] == "running" and reply["job"]["runID"] == {"rawValue": run_id}

    run(scenario)


def test_agent_wait_for_attention_needs_the_providers_hooks() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane)
        c.integrations.statuses[AgentProvider.CLAUDE_CODE] = "not-installed"
        request = {"type": "waitAgent", "jobID": job["jobID"], "until": "attention"}
        assert failure(await c.request(request)) == "provider-integration-not-installed"

    run(scenario)


def test_a_job_whose_pane_is_gone_is_lost_everywhere() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane)
        worker = job["paneID"]["rawValue"]
        c.hub.ingest(event(SurfaceId(worker), K.STARTED))
        assert await c.request({"type": "closePane", "paneID": worker}) == {"type": "ok"}
        result = await c.request({"type": "agentResult", "jobID": job["jobID"]})
        assert result["job"]["state"] == "lost"
        assert result["content"] == {
            "paneID": worker,
            "text": "",
            "cursorRow": None,
            "cursorColumn": None,
        }
        send = {"type": "sendAgent", "jobID": job["jobID"], "text": "more"}
        assert failure(await c.request(send)) == "job-lost"
        focus = {"type": "focusAgent", "jobID": job["jobID"]}
        assert failure(await c.request(focus)) == "job-lost"
        # close of a lost job is still ok: the job is lost either way
        assert await c.request({"type": "closeAgent", "jobID": job["jobID"]}) == {"type": "ok"}

    run(scenario)


def test_agent_send_reaches_the_workers_pane_and_re_arms_a_finished_job() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane)
        worker = SurfaceId(job["paneID"]["rawValue"])
        first = uuid()
        c.hub.ingest(event(worker, K.STARTED, run=first))
        c.hub.ingest(event(worker, K.SUCCEEDED, run=first, at=1_000_001.0))
        result = await c.request({"type": "agentResult", "jobID": job["jobID"]})
        assert result["job"]["state"] == "succeeded"
        send = {"type": "sendAgent", "jobID": job["jobID"], "text": "and the tests"}
        assert await c.request(send) == {"type": "ok"}
        target = c.panes.get(worker)
        assert target is not None
        assert c.tmux.pane(target.tmux_id).sent == [("text", "and the tests")]
        again = await c.request({"type": "agentResult", "jobID": job["jobID"]})
        assert again["job"]["state"] == "launching" and again["job"]["runID"] is None

    run(scenario)


def test_agent_close_closes_the_pane_and_the_job_is_lost() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane)
        assert await c.request({"type": "closeAgent", "jobID": job["jobID"]}) == {"type": "ok"}
        assert c.panes.get(job["paneID"]["rawValue"]) is None
        wait = {"type": "waitAgent", "jobID": job["jobID"], "until": "completed"}
        reply = await c.request(wait)
        assert (reply["timedOut"], reply["job"]["state"]) == (False, "lost")

    run(scenario)


def test_spawn_with_a_worktree_remembers_the_job_there() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.worktrees["/tmp"] = "/"
        assert await spawned(c, pane) and c.worktree_jobs == []  # no --worktree: nothing noted
        job = await spawned(c, pane, worktreeBranch="feat")
        assert c.worktree_jobs == [("/", job["jobID"]["rawValue"])]

    run(scenario)


def test_agent_close_remove_worktree_reports_what_happened() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane)
        job_id = job["jobID"]["rawValue"]
        close = {"type": "closeAgent", "jobID": job["jobID"], "removeWorktree": True}
        # No worktree mytty created for this job: said so, still ok.
        assert await c.request(close) == {"type": "ok", "worktree": None}
        kept: Any = {
            "path": "/w",
            "branch": "b",
            "removed": False,
            "reason": "dirty",
            "detail": "it has uncommitted changes or untracked files",
            "archiveRef": None,
            "branchDeleted": False,
        }
        c.worktree_removals[job_id] = kept
        assert await c.request(close) == {"type": "ok", "worktree": kept}
        bad = {"type": "closeAgent", "jobID": job["jobID"], "removeWorktree": "yes"}
        assert failure(await c.request(bad)) == "invalid-request"

    run(scenario)


def test_spawn_records_the_launch_and_close_marks_it_closed_for_resume() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane, label="keep", cwd="/", access="review")
        stored = c.jobs.current(job["jobID"]["rawValue"])
        launch = stored.launch
        assert launch is not None
        assert (launch.task, launch.cwd, launch.access, launch.closed) == (
            "look around",
            "/",
            "review",
            False,
        )
        assert launch.mode_flags == ("--fake-access=review",)
        assert launch.argv[0] == "claude" and launch.argv[-2] == "--"
        assert launch.argv[launch.argv.index("--session-id") + 1] == job["sessionID"]
        assert await c.request({"type": "closeAgent", "jobID": job["jobID"]}) == {"type": "ok"}
        closed = c.jobs.current(job["jobID"]["rawValue"]).launch
        assert closed is not None and closed.closed

    run(scenario)


def test_resume_requests_reach_the_controller_and_unknown_jobs_are_refused() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        reply = await c.request({"type": "resumeJobs", "dryRun": True})
        assert reply == {"type": "resume", "dryRun": True, "jobs": []}
        unknown = {"type": "resumeJobs", "jobIDs": [{"rawValue": uuid()}]}
        assert failure(await c.request(unknown)) == "job-not-found"
        assert failure(await c.request({"type": "resumeJobs", "dryRun": "yes"})) == (
            "invalid-request"
        )
        assert c.resume_requests == [(None, True)]

    run(scenario)


def test_spawned_workers_carry_the_worker_mark_and_the_guard_but_tabs_do_not() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await spawned(c, pane)
        worker = c.panes.get(job["paneID"]["rawValue"])
        assert worker is not None
        env = c.tmux.pane(worker.tmux_id).env
        assert (env["MYTTY_WORKER"], env["MYTTY_TMUX_GUARD"]) == ("1", "/fake/tmux.sock")
        assert env["MYTTY_SURFACE_ID"] == worker.surface_id  # the pane environment is kept
        tab = await c.request({"type": "newTab"})
        plain = c.panes.get(tab["paneID"])
        assert plain is not None and "MYTTY_WORKER" not in c.tmux.pane(plain.tmux_id).env

    run(scenario)


def test_a_workers_first_run_reported_while_its_pane_is_set_up_is_the_jobs_run() -> None:
    # Found by scripts/bench/truth: under load the worker's first hook can reach the controller
    # before its job is stored; that run must not count as the pane's baseline (the job would
    # never bind and end launch-failed while its worker works).
    run_id = uuid()

    async def scenario(c: FakeController, pane: FakePane) -> None:
        create = c.create_pane

        async def create_and_report(**kwargs: Any) -> FakePane:
            made = await create(**kwargs)
            c.hub.ingest(event(made.surface_id, K.STARTED, run=run_id))
            return made

        c.create_pane = create_and_report  # type: ignore[method-assign]
        job = await spawned(c, pane)
        wait = {"type": "waitAgent", "jobID": job["jobID"], "until": "running", "timeoutSeconds": 5}
        reply = await c.request(wait)
        assert reply["timedOut"] is False
        assert reply["job"]["state"] == "running"
        assert reply["job"]["runID"] == {"rawValue": run_id}

    run(scenario)
