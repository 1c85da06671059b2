"""Parked jobs at the handlers: ``agent send`` holds, ``agent wait`` waits through a park or
returns at once with ``--return-on-park``, ``limits list|resume|hold`` (over the fake)."""

from __future__ import annotations

import asyncio

from mytty.core.events import AgentEventKind
from mytty.core.ids import SurfaceId
from tests.control.conftest import event, failure, run, uuid
from tests.control.fakes import FakeController, FakePane
from tests.control.test_agent_commands import spawned

K = AgentEventKind


async def parked_job(c: FakeController, pane: FakePane) -> dict[str, object]:
    job = await spawned(c, pane)
    worker = SurfaceId(job["paneID"]["rawValue"])
    first = uuid()
    c.hub.ingest(event(worker, K.STARTED, run=first))
    c.hub.ingest(event(worker, K.LIMIT_REACHED, run=first, at=1_000_001.0))
    return job


def test_agent_send_to_a_parked_job_is_held_not_typed() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await parked_job(c, pane)
        send = {"type": "sendAgent", "jobID": job["jobID"], "text": "also this", "pressEnter": True}
        assert await c.request(send) == {"type": "ok", "queued": True}
        assert c.held_sends == [(job["jobID"]["rawValue"], "also this", True)]  # type: ignore[index]
        worker = c.panes.get(job["paneID"]["rawValue"])  # type: ignore[index]
        assert worker is not None and c.tmux.pane(worker.tmux_id).sent == []

    run(scenario)


def test_agent_wait_goes_on_through_a_park_and_return_on_park_returns_at_once() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await parked_job(c, pane)
        wait = {"type": "waitAgent", "jobID": job["jobID"], "until": "completed"}
        timed = await c.request({**wait, "timeoutSeconds": 0.2})
        assert timed["timedOut"] is True and timed["job"]["state"] == "parked"
        assert "parkedUntil" in timed["job"] and "account" in timed["job"]
        now = await c.request({**wait, "returnOnPark": True, "timeoutSeconds": 30})
        assert now["timedOut"] is False and now["job"]["state"] == "parked"
        other = await spawned(c, pane)
        many = {
            "type": "waitAgent",
            "jobID": job["jobID"],
            "jobIDs": [job["jobID"], other["jobID"]],
            "match": "any",
            "until": "completed",
            "returnOnPark": True,
            "timeoutSeconds": 30,
        }
        reply = await asyncio.wait_for(c.request(many), 5)
        assert reply["timedOut"] is False and reply["job"]["jobID"] == job["jobID"]

    run(scenario)


def test_limits_commands_name_only_parked_jobs() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        job = await parked_job(c, pane)
        listed = await c.request({"type": "listLimits"})
        assert [j["jobID"] for j in listed["jobs"]] == [job["jobID"]]
        assert listed["jobs"][0]["parkedUntil"] is None  # the fake reads no transcript
        running = await spawned(c, pane)
        hold = {"type": "holdLimits", "jobIDs": [running["jobID"]]}
        assert failure(await c.request(hold)) == "job-not-parked"
        unknown = {"type": "holdLimits", "jobIDs": [{"rawValue": uuid()}]}
        assert failure(await c.request(unknown)) == "job-not-found"
        held = await c.request({"type": "holdLimits", "jobIDs": [job["jobID"]]})
        assert held["type"] == "limits"
        assert (await c.request({"type": "resumeLimits", "all": True}))["type"] == "limits"
        assert failure(await c.request({"type": "resumeLimits"})) == "invalid-request"
        assert c.limit_requests == [("hold", [job["jobID"]["rawValue"]]), ("resume", None)]  # type: ignore[index]

    run(scenario)
