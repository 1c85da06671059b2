"""``mytty resume`` on the real CLIs: after ``tmux kill-server`` cut two workers off mid-turn,
each comes back on its own conversation, proven by what the model is sent next.

Each worker is told a word no other conversation holds; their model replies are held, then the
tmux server is killed under them (the jobs read ``lost``). ``mytty resume`` starts each agent
again with ``--resume <its session id>`` (Codex: ``resume <id>``) and the prompt to carry on.
The model request of that prompt carries the agent's session id in a header (Claude
``x-claude-code-session-id``, Codex ``session-id``): for each job, the request of its own
session holds its own word and not the other's, and the job follows the new turn to its end.
"""

from __future__ import annotations

import json
import subprocess
from functools import partial
from typing import Any

import pytest

from mytty.core.jobs.launch import RESUME_PROMPT
from mytty.verify.mock_api import Logged
from tests.e2e.jobs_support import agent_result, agent_wait, completed, job_id, pane_of
from tests.e2e.test_lifecycle import kill_tmux_server
from tests.realagents.mocks.servers import Turn
from tests.realagents.support import RealUser
from tests.support.harness import MYTTY, wait_until

WORDS = ("PELICAN-7731", "HERON-2265")
ANSWER = "Carried on after the restart."
SESSION_HEADER = {"anthropic": "x-claude-code-session-id", "openai": "session-id"}


def _resume(user: RealUser) -> dict[str, Any]:
    out = subprocess.run(
        [MYTTY, "resume", "--json"],
        env=user.m.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    reply: dict[str, Any] = json.loads(out.stdout)
    return reply


def _resumed_request(user: RealUser, api: str, session: str) -> Logged | None:
    for request in user.requests_with(api, RESUME_PROMPT[:40]):
        if request.headers.get(SESSION_HEADER[api]) == session:
            return request
    return None


@pytest.mark.parametrize(("provider", "api"), [("claude", "anthropic"), ("codex", "openai")])
def test_workers_cut_off_by_kill_server_resume_their_own_conversations(
    user: RealUser, provider: str, api: str
) -> None:
    mock = user.anthropic if api == "anthropic" else user.openai
    mock.script(Turn.answer("never sent: the server dies first", delay=120))
    user.enable(provider)
    jobs = [user.spawn(provider, f"Remember the word {word}, then say OK.") for word in WORDS]
    for job, word in zip(jobs, WORDS, strict=True):
        assert agent_wait(user.m, job, "running", 60)["job"]["state"] == "running"
        wait_until(partial(user.requests_with, api, word), 60, message=f"{word} at the mock")
    listing = {job_id(j): j for j in user.m.ctl("agent", "list", "--all").json["jobs"]}
    sessions = [listing[job_id(job)]["sessionID"] for job in jobs]
    assert all(sessions) and len(set(sessions)) == 2, sessions

    kill_tmux_server(user.m)
    for job in jobs:
        assert completed(user.m, job, 30)["state"] == "lost"

    mock.script(Turn.answer(ANSWER))
    entries = {e["jobID"]["rawValue"]: e for e in _resume(user)["jobs"]}
    flag = "resume" if provider == "codex" else "--resume"
    for job, word, session in zip(jobs, WORDS, sessions, strict=True):
        entry = entries[job_id(job)]
        assert entry["resumed"] is True, entry
        argv = entry["argv"]
        assert argv[argv.index(flag) + 1] == session
        assert "--continue" not in argv and "--last" not in argv
        # The model gets the prompt to carry on with this session's own conversation from
        # before the server died: its word, never the other worker's.
        asked = wait_until(
            partial(_resumed_request, user, api, session),
            90,
            message=f"the resumed {session} at the mock model",
        )
        body = json.dumps(asked.body)
        (other,) = set(WORDS) - {word}
        assert word in body and other not in body, body
        done = completed(user.m, job_id(job), 90)
        assert done["state"] == "succeeded", done
        assert pane_of(done) == entry["paneID"]["rawValue"] != pane_of(job)
        assert agent_result(user.m, job_id(job))["lastAssistantMessage"] == ANSWER
    user.assert_no_leaks(provider)
