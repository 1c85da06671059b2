"""Jobs survive the controller: ``mytty stop``/start and ``kill -9`` keep every job id, binding
and state; a running job keeps tracking; a job whose pane went while no controller ran is lost.

Real tmux, a real controller restarted in place, stand-in agents firing the installed hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.e2e.jobs_support import (
    agent_code,
    agent_result,
    agent_wait,
    completed,
    job_id,
    new_anchor,
    pane_of,
    run_id,
    running_team,
    spawn,
)
from tests.support.harness import BackgroundCtl, Mytty

pytestmark = pytest.mark.tmux


@pytest.fixture(scope="module")
def m() -> Iterator[Mytty]:
    yield from running_team(providers=("claude",))


def _stop_start(m: Mytty) -> None:
    m.stop()
    m.start()


def _kill9_start(m: Mytty) -> None:
    m.kill9()
    m.start()


RESTARTS: dict[str, Callable[[Mytty], None]] = {"stop": _stop_start, "kill-9": _kill9_start}


@pytest.mark.parametrize("restart", list(RESTARTS))
def test_jobs_keep_their_ids_bindings_and_states_across_a_restart(m: Mytty, restart: str) -> None:
    finished = spawn(m, "--provider", "claude", "--task", "quick", "--anchor", new_anchor(m))
    done = completed(m, finished)
    assert done["state"] == "succeeded", done
    # Long enough to still run after the restart, short enough to finish in the test.
    running = spawn(
        m,
        "--provider",
        "claude",
        "--task",
        "slow\n@standin: sleep 8",
        "--label",
        "slow",
        "--anchor",
        new_anchor(m),
    )
    before = agent_wait(m, running, "running", 30)["job"]
    assert before["state"] == "running", before
    assert run_id(before) is not None

    RESTARTS[restart](m)

    again = agent_result(m, finished)["job"]
    # Same id, run, state and message; the memory and CPU figures are the pane's processes
    # now (agent result samples them), not part of the job.
    live = {"rssBytes", "cpuPercent"}
    assert {k: v for k, v in again.items() if k not in live} == {
        k: v for k, v in done.items() if k not in live
    }
    listed = {job_id(j) for j in m.ctl("agent", "list").json["jobs"]}
    assert {job_id(finished), job_id(running)} <= listed
    after = completed(m, running, timeout=60)
    assert after["state"] == "succeeded", after  # it kept tracking its run
    assert run_id(after) == run_id(before)
    assert after["label"] == "slow"
    assert agent_result(m, running)["job"]["state"] == "succeeded"


def test_a_job_whose_pane_went_while_the_controller_was_down_is_lost(m: Mytty) -> None:
    job = spawn(
        m, "--provider", "claude", "--task", "long\n@standin: sleep 120", "--anchor", new_anchor(m)
    )
    assert agent_wait(m, job, "running", 30)["job"]["state"] == "running"
    tmux_pane = m.tmux_id(pane_of(job))
    m.stop()
    m.tmux("kill-pane", "-t", tmux_pane)
    m.start()
    assert agent_result(m, job)["job"]["state"] == "lost"
    assert completed(m, job, timeout=10)["state"] == "lost"
    assert agent_code(m, "send", job_id(job), "still there?", "--enter") == "job-lost"
    assert agent_code(m, "focus", job_id(job)) == "job-lost"
    assert m.ctl("agent", "close", job_id(job)).json == {"type": "ok"}


def test_an_unknown_job_is_still_job_not_found(m: Mytty) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    assert agent_code(m, "result", unknown) == "job-not-found"


def test_a_wait_cut_by_the_restart_is_reissued_and_resolves(m: Mytty) -> None:
    job = spawn(
        m, "--provider", "claude", "--task", "slow\n@standin: sleep 8", "--anchor", new_anchor(m)
    )
    before = agent_wait(m, job, "running", 30)["job"]
    waiting = BackgroundCtl(
        m, "agent", "wait", job_id(job), "--until", "completed", "--timeout-seconds", "60"
    )
    try:
        m.stop()
        assert waiting.result(timeout=30).returncode != 0  # its controller went away
    finally:
        waiting.kill()
    m.start()
    after = completed(m, job, timeout=60)
    assert after["state"] == "succeeded" and run_id(after) == run_id(before), after


def test_a_follow_up_to_a_job_from_before_the_restart_rearms_it(m: Mytty) -> None:
    job = spawn(m, "--provider", "claude", "--task", "first", "--anchor", new_anchor(m))
    first = completed(m, job)
    assert first["state"] == "succeeded"
    m.wait_for_text(pane_of(job), "STANDIN ready")
    _stop_start(m)
    assert m.ctl("agent", "send", job_id(job), "next", "--enter").json == {"type": "ok"}
    second = completed(m, job)
    assert second["state"] == "succeeded", second
    assert run_id(second) not in (None, run_id(first))
