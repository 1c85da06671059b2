"""``agent spawn --key K`` after the job can no longer be returned to starts a new job (issue 26,
item 3). Before: a launch-failed job (or one closed with ``agent close``) came back with
``"reused": true``, the dead job handed out again."""

from __future__ import annotations

from tests.control.conftest import run
from tests.control.fakes import FakeController, FakePane
from tests.control.test_fan_out import LEAD_PID, finish, keyed


def test_a_launch_failed_job_frees_its_key() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.callers[LEAD_PID] = pane.surface_id
        first = await keyed(c, pane, "k")
        c.clock = lambda: 1_000_000.0 + 31  # the launch window (30 s) closed without a run
        result = await c.request(
            {"type": "agentResult", "jobID": first["job"]["jobID"]}, peer_pid=LEAD_PID
        )
        assert result["job"]["state"] == "launch-failed"
        again = await keyed(c, pane, "k")
        assert again["reused"] is False
        assert again["job"]["jobID"] != first["job"]["jobID"]
        assert again["job"]["state"] == "launching"
        assert len(c.created) == 2

    run(scenario)


def test_a_closed_job_frees_its_key_and_a_finished_open_one_keeps_it() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.callers[LEAD_PID] = pane.surface_id
        first = await keyed(c, pane, "k")
        finish(c, first["job"])
        assert (await keyed(c, pane, "k"))["reused"] is True  # finished, its pane still there
        closed = await c.request(
            {"type": "closeAgent", "jobID": first["job"]["jobID"]}, peer_pid=LEAD_PID
        )
        assert closed == {"type": "ok"}
        again = await keyed(c, pane, "k")
        assert again["reused"] is False and again["job"]["jobID"] != first["job"]["jobID"]

    run(scenario)
