"""Fan-out against the fake port: ``agent spawn --key``, waits on many jobs, ``agent list``
filters and lead scoping, and the attention waits that end on a terminal state (issue 13)."""

from __future__ import annotations

import asyncio
from typing import Any

from mytty.core.events import AgentEventKind
from mytty.core.ids import SurfaceId
from tests.control.conftest import event, failure, run, uuid
from tests.control.fakes import FakeController, FakePane
from tests.control.test_agent_commands import spawn

K = AgentEventKind
LEAD_PID = 4242


async def keyed(c: FakeController, pane: FakePane, key: str, **fields: Any) -> dict[str, Any]:
    reply = await c.request(spawn(pane, key=key, **fields), peer_pid=LEAD_PID)
    assert reply["type"] == "agentJob", reply
    return reply


def worker_of(job: dict[str, Any]) -> SurfaceId:
    return SurfaceId(job["paneID"]["rawValue"])


def finish(c: FakeController, job: dict[str, Any], kind: AgentEventKind = K.SUCCEEDED) -> None:
    run_id = uuid()
    c.hub.ingest(event(worker_of(job), K.STARTED, run=run_id))
    c.hub.ingest(event(worker_of(job), kind, run=run_id))


# -- agent spawn --key --------------------------------------------------------------------------


def test_the_same_key_twice_gives_one_pane_and_reused_true() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.callers[LEAD_PID] = pane.surface_id
        first = await keyed(c, pane, "scan-a", label="scan")
        second = await keyed(c, pane, "scan-a", label="scan")
        assert first["reused"] is False and second["reused"] is True
        assert second["job"]["jobID"] == first["job"]["jobID"]
        assert second["job"]["key"] == "scan-a"
        assert len(c.created) == 1
        # Still the same job once it finished: idempotent, not "spawn again when done".
        finish(c, first["job"])
        third = await keyed(c, pane, "scan-a", label="scan")
        assert third["reused"] is True and third["job"]["state"] == "succeeded"
        assert len(c.created) == 1
        # Without --key, no "reused" at all (the original's reply).
        plain = await c.request(spawn(pane), peer_pid=LEAD_PID)
        assert "reused" not in plain and "key" not in plain["job"]

    run(scenario)


def test_the_same_key_with_another_task_is_invalid_request() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.callers[LEAD_PID] = pane.surface_id
        first = await keyed(c, pane, "k")
        reply = await c.request(spawn(pane, key="k", task="something else"), peer_pid=LEAD_PID)
        assert failure(reply) == "invalid-request"
        assert "'k'" in reply["message"] and first["job"]["jobID"]["rawValue"] in reply["message"]
        other = await c.request(spawn(pane, key="k", provider="codex"), peer_pid=LEAD_PID)
        assert failure(other) == "invalid-request"
        assert failure(await c.request(spawn(pane, key=""), peer_pid=LEAD_PID)) == (
            "invalid-request"
        )
        assert len(c.created) == 1

    run(scenario)


def test_keys_are_scoped_to_the_lead_pane() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.callers[LEAD_PID] = pane.surface_id
        mine = await keyed(c, pane, "k")
        other_lead = worker_of(mine["job"])  # any other pane will do as a second lead
        c.callers[LEAD_PID + 1] = other_lead
        theirs = await c.request(spawn(pane, key="k"), peer_pid=LEAD_PID + 1)
        assert theirs["reused"] is False
        assert theirs["job"]["jobID"] != mine["job"]["jobID"]
        assert len(c.created) == 2

    run(scenario)


def test_a_lost_job_frees_its_key() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.callers[LEAD_PID] = pane.surface_id
        first = await keyed(c, pane, "k")
        await c.tmux.kill_pane(c.panes.by_surface[worker_of(first["job"])].tmux_id)
        await c.refresh_panes()
        again = await keyed(c, pane, "k")
        assert again["reused"] is False and again["job"]["jobID"] != first["job"]["jobID"]

    run(scenario)


def test_two_spawns_with_one_key_at_once_make_one_worker() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.callers[LEAD_PID] = pane.surface_id
        a, b = await asyncio.gather(keyed(c, pane, "k"), keyed(c, pane, "k"))
        assert a["job"]["jobID"] == b["job"]["jobID"]
        assert sorted([a["reused"], b["reused"]]) == [False, True]
        assert len(c.created) == 1

    run(scenario)


# -- agent wait on many -----------------------------------------------------------------------


def many(jobs: list[dict[str, Any]], match: str, until: str, timeout: float) -> dict[str, Any]:
    return {
        "type": "waitAgent",
        "jobID": jobs[0]["job"]["jobID"],
        "jobIDs": [j["job"]["jobID"] for j in jobs],
        "match": match,
        "until": until,
        "timeoutSeconds": timeout,
    }


def test_wait_any_returns_on_the_first_of_three_and_all_waits_for_the_last() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        jobs = [await keyed(c, pane, f"k{n}") for n in range(3)]
        ids = [j["job"]["jobID"] for j in jobs]
        any_wait = asyncio.ensure_future(c.request(many(jobs, "any", "completed", 30)))
        all_wait = asyncio.ensure_future(c.request(many(jobs, "all", "completed", 30)))
        await asyncio.sleep(0)
        assert not any_wait.done()
        finish(c, jobs[1]["job"])
        reply = await any_wait
        assert reply["timedOut"] is False and reply["job"]["jobID"] == ids[1]
        assert [j["jobID"] for j in reply["jobs"]] == ids
        assert [j["state"] for j in reply["jobs"]] == ["launching", "succeeded", "launching"]
        await asyncio.sleep(0)
        assert not all_wait.done()
        finish(c, jobs[0]["job"], K.FAILED)
        await asyncio.sleep(0)
        assert not all_wait.done()
        finish(c, jobs[2]["job"])
        reply = await all_wait
        assert reply["timedOut"] is False
        assert [j["state"] for j in reply["jobs"]] == ["failed", "succeeded", "succeeded"]

    run(scenario)


def test_wait_on_many_times_out_with_every_snapshot_and_checks_its_fields() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        jobs = [await keyed(c, pane, f"k{n}") for n in range(2)]
        finish(c, jobs[0]["job"])
        reply = await c.request(many(jobs, "all", "completed", 0))
        assert reply["timedOut"] is True
        assert reply["job"]["jobID"] == jobs[1]["job"]["jobID"]  # the one still missing
        assert len(reply["jobs"]) == 2
        unknown = {**many(jobs, "any", "completed", 0), "jobIDs": [{"rawValue": uuid()}]}
        assert failure(await c.request(unknown)) == "job-not-found"
        bads: list[dict[str, Any]] = [{"jobIDs": []}, {"match": "some"}, {"jobIDs": "x"}]
        for bad in bads:
            assert failure(await c.request({**many(jobs, "any", "completed", 0), **bad})) == (
                "invalid-request"
            )

    run(scenario)


# -- attention waits end on a terminal state --------------------------------------------------


def test_attention_waits_return_when_the_job_or_run_ended() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = (await keyed(c, pane, "k"))["job"]
        waiting = asyncio.ensure_future(
            c.request(
                {
                    "type": "waitAgent",
                    "jobID": job["jobID"],
                    "until": "attention",
                    "timeoutSeconds": 30,
                }
            )
        )
        pane_wait = asyncio.ensure_future(
            c.request(
                {
                    "type": "wait",
                    "paneID": job["paneID"]["rawValue"],
                    "until": "attention",
                    "timeoutSeconds": 30,
                }
            )
        )
        await asyncio.sleep(0)
        assert not waiting.done() and not pane_wait.done()
        finish(c, job)
        reply = await waiting
        assert (reply["timedOut"], reply["job"]["state"]) == (False, "succeeded")
        assert await pane_wait == {"type": "waitResult", "state": "succeeded", "timedOut": False}

    run(scenario)


# -- agent list ---------------------------------------------------------------------------------


def test_agent_list_shows_the_callers_jobs_and_filters() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.callers[LEAD_PID] = pane.surface_id
        a = (await keyed(c, pane, "a", label="scan"))["job"]
        b = (await keyed(c, pane, "b", label="test"))["job"]
        c.callers[LEAD_PID + 1] = worker_of(a)
        other = (await c.request(spawn(pane), peer_pid=LEAD_PID + 1))["job"]
        finish(c, b)

        async def listed(peer: int = LEAD_PID, **fields: Any) -> list[str]:
            reply = await c.request({"type": "listAgents", **fields}, peer_pid=peer)
            assert reply["type"] == "agentJobs", reply
            return [j["jobID"]["rawValue"] for j in reply["jobs"]]

        ids = [j["jobID"]["rawValue"] for j in (a, b, other)]
        assert await listed() == ids[:2]
        assert await listed(LEAD_PID + 1) == ids[2:]
        assert await listed(allLeads=True) == ids
        assert await listed(peer=1) == ids  # a caller in no mytty pane sees every job
        assert await listed(states=["succeeded"]) == [ids[1]]
        assert await listed(states=["launching", "running"]) == [ids[0]]
        assert await listed(label="scan") == [ids[0]]
        assert await listed(label="scan", states=["succeeded"]) == []
        reply = await c.request({"type": "listAgents", "states": ["done"]})
        assert failure(reply) == "invalid-request"

    run(scenario)


def test_the_state_names_of_agent_list_are_the_job_states() -> None:
    from mytty.core.jobs.tracker import AgentJobState
    from mytty.core.vocab import JOB_STATES

    assert tuple(s.value for s in AgentJobState) == JOB_STATES


def test_integration_list_says_which_leads_hear_of_their_workers() -> None:
    from mytty.core.vocab import LEAD_NOTICES, PROVIDERS
    from mytty.hook.adapters import load_adapter

    async def scenario(c: FakeController, pane: FakePane) -> None:
        reply = await c.request({"type": "integrationList"})
        said = {e["provider"]: e["leadNotices"] for e in reply["integrations"]}
        assert said == LEAD_NOTICES and set(said) == set(PROVIDERS)

    run(scenario)
    for provider, how in LEAD_NOTICES.items():
        adapter = load_adapter(provider)
        assert hasattr(adapter, "takes_notice") is (how == "next-prompt"), provider
