"""The tmux server killed and restarted, again and again, under running jobs (issue 15).

tests/e2e/test_tmux_server_gone.py checks one death: capabilities revoked, a running job
``lost``. Here the server dies CYCLES times, each time under freshly spawned running workers
and a pane whose run is active, and comes back as a new server on the same socket. Each time
the controller survives and says so in its log, every job of the dead server ends ``lost``,
the active run is closed (``disconnected``, synthesized), a new worker spawned on the new
server runs, and no surface id is ever handed out twice (the new server's ``%N`` pane ids are
recycled, the ids mytty gives them are not).
"""

from __future__ import annotations

import pytest

from tests.e2e.events_support import K, error_reply, new_id, open_agent_pane, send_event
from tests.e2e.jobs_support import agent_wait, job_id, new_anchor, spawn, team
from tests.e2e.test_lifecycle import kill_tmux_server, listed_ids, start_tmux_server
from tests.reliability import counts
from tests.support.harness import Mytty, wait_until

pytestmark = [pytest.mark.tmux, pytest.mark.reliability]

CYCLES = 3
WORKERS = 2


def busy_worker(m: Mytty, anchor: str) -> dict[str, object]:
    job = spawn(
        m, "--provider", "claude", "--task", "work\n@standin: sleep 300", "--anchor", anchor
    )
    assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
    return job


def test_tmux_server_killed_and_restarted_under_running_jobs(mytty: Mytty) -> None:
    m = team(mytty, providers=("claude",))
    every_id: set[str] = set(listed_ids(m) or ())
    for cycle in range(CYCLES):
        anchor = new_anchor(m)
        jobs = [busy_worker(m, anchor) for _ in range(WORKERS)]
        agent = open_agent_pane(m)
        run = new_id()
        agent.send(K.STARTED, run_id=run)
        ids = listed_ids(m)
        assert ids is not None
        assert not (ids - every_id) & every_id
        every_id |= ids

        gone_before = m.log().count("lost the tmux")
        kill_tmux_server(m)
        for job in jobs:
            done = agent_wait(m, job, "completed", 20)
            assert done["timedOut"] is False and done["job"]["state"] == "lost", done
        wait_until(
            lambda agent=agent, run=run: (
                send_event(  # type: ignore[misc]
                    m, agent.event(K.RUNNING, run_id=run), agent.capability
                )
                == error_reply("unauthorized")
            ),
            10,
            message="the dead server's capability to be revoked",
        )
        assert m.proc is not None and m.proc.poll() is None, m.log()[-3000:]
        assert m.log().count("lost the tmux") > gone_before, "the log says nothing"

        start_tmux_server(m, {}, panes=1)
        fresh = wait_until(
            lambda: ids if (ids := listed_ids(m)) else None, 20, message="the new server"
        )
        reused = fresh & every_id
        assert not reused, f"cycle {cycle}: surface ids handed out again: {reused}"
        every_id |= fresh
        # Work goes on on the new server.
        job = busy_worker(m, new_anchor(m))
        every_id |= listed_ids(m) or set()
        for old in jobs:
            assert agent_wait(m, old, "completed", 0)["job"]["state"] == "lost"
        assert job_id(job) not in {job_id(j) for j in jobs}
        counts.add("tmux: server deaths under running jobs")
    assert "Traceback" not in m.log()
