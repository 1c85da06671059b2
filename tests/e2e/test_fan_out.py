"""Fan-out a lead can trust (issue 13): ``agent spawn --key`` is idempotent, ``agent wait``
waits on many jobs (``--any``/``--all``), and ``agent list`` recovers every job after a
controller restart.

Real tmux, a real controller, stand-in Claude workers firing the installed hooks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.jobs_support import (
    TERMINAL_STATES,
    job_id,
    new_anchor,
    pane_of,
    running_team,
    spawn_reply,
    standins_in,
)
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux


@pytest.fixture(scope="module")
def m() -> Iterator[Mytty]:
    yield from running_team(providers=("claude",))


def wait_many(m: Mytty, jobs: list[dict[str, Any]], match: str, timeout: float) -> dict[str, Any]:
    reply = m.ctl(
        "agent",
        "wait",
        *(job_id(j) for j in jobs),
        f"--{match}",
        "--until",
        "completed",
        "--timeout-seconds",
        f"{timeout:g}",
        timeout=timeout + 30,
    ).json
    assert reply["type"] == "agentWaitResult", reply
    assert set(reply) == {"type", "job", "jobs", "timedOut"}, reply
    assert [job_id(j) for j in reply["jobs"]] == [job_id(j) for j in jobs]
    return reply


def worker(m: Mytty, anchor: str, task: str, *extra: str) -> dict[str, Any]:
    job: dict[str, Any] = spawn_reply(
        m, "--provider", "claude", "--task", task, "--anchor", anchor, *extra
    )["job"]
    return job


def test_spawn_with_the_same_key_twice_gives_one_pane_and_reused_true(m: Mytty) -> None:
    anchor = new_anchor(m)
    panes_before = {p["paneID"] for p in m.panes()}
    args = ("--provider", "claude", "--task", "count the files", "--anchor", anchor)
    first = spawn_reply(m, *args, "--key", "count", "--label", "counter")
    second = spawn_reply(m, *args, "--key", "count", "--label", "counter")
    assert (first["reused"], second["reused"]) == (False, True)
    assert job_id(second["job"]) == job_id(first["job"])
    assert second["job"]["key"] == "count"
    assert {p["paneID"] for p in m.panes()} - panes_before == {pane_of(first["job"])}
    wait_until(lambda: standins_in(m, pane_of(first["job"]), "claude"), 30, message="the worker")
    assert len(standins_in(m, pane_of(first["job"]), "claude")) == 1
    other = m.ctl(
        "agent",
        "spawn",
        "--provider",
        "claude",
        "--task",
        "something else",
        "--anchor",
        anchor,
        "--key",
        "count",
    )
    assert other.code == "invalid-request"
    assert "count" in other.stderr and job_id(first["job"]) in other.stderr


def test_wait_any_returns_on_the_first_of_three_and_all_waits_for_the_last(m: Mytty) -> None:
    anchor = new_anchor(m)
    quick = worker(m, anchor, "quick")
    slow = [worker(m, anchor, f"slow {n}\n@standin: sleep 120") for n in range(2)]
    jobs = [slow[0], quick, slow[1]]
    reply = wait_many(m, jobs, "any", 60)
    assert reply["timedOut"] is False
    assert job_id(reply["job"]) == job_id(quick)
    states = [j["state"] for j in reply["jobs"]]
    assert states[1] == "succeeded", states
    assert states[0] not in TERMINAL_STATES and states[2] not in TERMINAL_STATES, states
    for job in slow:
        m.ctl("agent", "close", job_id(job))

    # --all: each job ends at its own time; the wait returns only once the last has ended.
    staggered = [worker(m, new_anchor(m), f"step {s}\n@standin: sleep {s}") for s in (4, 1, 2)]
    reply = wait_many(m, staggered, "all", 60)
    assert reply["timedOut"] is False
    assert [j["state"] for j in reply["jobs"]] == ["succeeded"] * 3, reply
    # A short --all over a job that is still running times out, with every snapshot.
    again = [quick, worker(m, new_anchor(m), "long\n@standin: sleep 120")]
    reply = wait_many(m, again, "all", 1)
    assert reply["timedOut"] is True and job_id(reply["job"]) == job_id(again[1])
    m.ctl("agent", "close", job_id(again[1]))


def test_agent_list_after_a_controller_restart_shows_every_job(m: Mytty) -> None:
    anchor = new_anchor(m)
    jobs = [
        worker(m, anchor, "one", "--label", "alpha", "--key", "one"),
        worker(m, anchor, "two\n@standin: sleep 120", "--label", "beta"),
        worker(m, new_anchor(m), "three", "--label", "alpha"),
    ]
    ids = [job_id(j) for j in jobs]
    wait_many(m, [jobs[0], jobs[2]], "all", 60)
    m.stop()
    m.start()
    listed = m.ctl("agent", "list").json["jobs"]
    by_id = {job_id(j): j for j in listed}
    assert set(ids) <= set(by_id), listed
    assert [by_id[i]["state"] for i in ids] == ["succeeded", "running", "succeeded"]
    assert by_id[ids[0]]["key"] == "one"
    alpha = [job_id(j) for j in m.ctl("agent", "list", "--label", "alpha").json["jobs"]]
    assert [i for i in alpha if i in ids] == [ids[0], ids[2]]
    running = m.ctl("agent", "list", "--state", "running,waiting-approval").json["jobs"]
    assert ids[1] in {job_id(j) for j in running}
    assert not {ids[0], ids[2]} & {job_id(j) for j in running}
    assert m.ctl("agent", "list", "--state", "bogus").code == "usage"
    # The key survived the restart too.
    again = spawn_reply(
        m, "--provider", "claude", "--task", "one", "--anchor", anchor, "--key", "one"
    )
    assert again["reused"] is True and job_id(again["job"]) == ids[0]
    m.ctl("agent", "close", ids[1])
