"""Scenario 8 on Codex: a subagent started with ``spawn_agent`` (its ``multi_agent_v1`` tools).

codex-cli 0.171.0 fires the subagent thread's hooks with the parent's session id, a turn id of
their own and an ``agent_id`` (SubagentStart, its UserPromptSubmit, SubagentStop), and stops
the parent's turn while the subagent still works. Before mytty followed that, the job ended
``succeeded`` at once and the subagent's prompt opened a run that never ended, so the pane read
``running`` for good. Now: one job, one run, ``running`` with one live subagent until its
SubagentStop, then ``succeeded`` with the parent's answer, and the pane reads ``succeeded``.
"""

from __future__ import annotations

import json

from mytty.verify.mock_api import SUBAGENT_TASK
from tests.e2e.jobs_support import agent_result, agent_wait, completed, listed, pane_of, run_id
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser
from tests.support.harness import wait_until


def test_codex_subagent_keeps_the_job_running_until_it_stops(user: RealUser) -> None:
    user.openai.script(Turn.subagent("unused: Codex asks the parent nothing more", delay=6))
    user.enable("codex")  # installs (and records the trust of) SubagentStart/SubagentStop too
    job = user.spawn("codex", "Ask a subagent to look around.")
    running = agent_wait(user.m, job, "running", 60)
    assert running["timedOut"] is False, running
    bound = run_id(running["job"])

    def live() -> bool:
        snapshot = agent_wait(user.m, job, "completed", 0.1)["job"]
        return snapshot.get("liveSubagents") == 1

    wait_until(live, 60, message="the job to report its live subagent")
    # The subagent's own prompt reaches the model: it works while the parent's turn is over.
    # (SubagentStart comes before that request; a busy machine, and the PostModelRequest hook
    # of every model request, can put a moment between them.)
    wait_until(
        lambda: user.requests_with("openai", SUBAGENT_TASK), 20, message="the subagent's prompt"
    )
    busy = agent_wait(user.m, job, "completed", 1)
    assert busy["timedOut"] is True and busy["job"]["state"] == "running", busy

    done = completed(user.m, job, 90)
    assert done["state"] == "succeeded", done
    assert run_id(done) == bound and "liveSubagents" not in done, done
    answer = agent_result(user.m, job)["lastAssistantMessage"]
    assert answer.startswith("Tool finished: ") and "agent_id" in answer, answer
    entry = listed(user.m, pane_of(job))
    assert entry is not None and entry.get("agentState") == "succeeded", json.dumps(entry)
    user.assert_no_leaks("codex")
