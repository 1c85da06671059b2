"""Scenario 9: the controller restarts while a real Claude worker is mid-turn.

The worker's turn outlives the controller (the mock holds the model's reply); after ``stop`` and
a fresh start the job has the same id and run and ends ``succeeded`` from the hooks that fire
once the reply arrives.
"""

from __future__ import annotations

from tests.e2e.jobs_support import agent_result, agent_wait, completed, job_id, run_id, spawn
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser

ANSWER = "Answered after the controller came back."


def test_claude_worker_keeps_its_job_across_a_controller_restart(user: RealUser) -> None:
    user.anthropic.script(Turn.answer(ANSWER, delay=15))
    user.enable("claude")
    job = spawn(
        user.m,
        "--provider",
        "claude",
        "--task",
        "Say hello.",
        "--anchor",
        user.anchor(),
        "--cwd",
        str(user.work),
    )
    running = agent_wait(user.m, job, "running", 60)
    assert running["timedOut"] is False and running["job"]["state"] == "running", running
    before = running["job"]
    user.m.stop()
    user.m.start()
    after = agent_wait(user.m, job, "running", 5)["job"]
    assert job_id(after) == job_id(before) and run_id(after) == run_id(before), (before, after)
    assert after["state"] == "running", after
    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    assert run_id(done) == run_id(before)
    assert agent_result(user.m, job)["lastAssistantMessage"] == ANSWER
    user.assert_no_leaks("claude")
