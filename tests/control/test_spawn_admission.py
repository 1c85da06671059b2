"""agent spawn and admission, against the fakes: a worker admission holds back gets its pane
with the queued placeholder and a queued job; --no-queue refuses without a pane; the slot is
always released; a queued job can't be typed into; the memory cap's report; --budget-usd."""

from __future__ import annotations

from mytty.core.admission.rules import QueueReason, Waiting
from tests.control.conftest import failure, run
from tests.control.fakes import FakeController, FakePane
from tests.control.test_agent_commands import spawn, spawned

WAIT = Waiting(QueueReason.MAX_WORKERS, "2 of max_workers = 2 workers are live")


def test_a_held_back_spawn_is_a_queued_job_in_a_pane_that_says_why() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.admission.waiting = WAIT
        job = await spawned(c, pane)
        assert job["state"] == "queued"
        assert (job["queuedBecause"], job["queuePosition"]) == ("max-workers", 1)
        assert job["message"] == f"Queued until admitted (max-workers): {WAIT.detail}."
        [created] = c.created
        assert created.command is not None and "is queued (#1): max-workers" in created.command
        assert "command sleep" in created.command and "claude" not in created.command
        assert c.admission.released == [(1, job["jobID"]["rawValue"])]
        # Nothing to type into yet.
        send = {"type": "sendAgent", "jobID": job["jobID"], "text": "hi", "pressEnter": True}
        assert failure(await c.request(send)) == "invalid-request"

    run(scenario)


def test_no_queue_is_refused_with_the_reason_and_no_pane() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.admission.waiting = WAIT
        reply = await c.request(spawn(pane, noQueue=True))
        assert failure(reply) == "admission-refused"
        assert "(max-workers: 2 of max_workers = 2 workers are live)" in reply["message"]
        assert c.created == [] and c.admission.released == [(1, None)]

    run(scenario)


def test_an_admitted_spawn_starts_its_worker_and_reports_the_memory_cap() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        c.admission.cap = {
            "maxMB": 2048,
            "enforced": False,
            "method": None,
            "detail": "not enforced: x",
        }
        reply = await c.request(spawn(pane))
        assert reply["job"]["state"] == "launching"
        assert reply["memoryCap"]["enforced"] is False
        [created] = c.created
        assert created.command is not None and created.command.startswith("command claude")

    run(scenario)


def test_a_dollar_budget_must_be_more_than_zero_and_is_kept_exactly() -> None:
    async def scenario(c: FakeController, pane: FakePane) -> None:
        assert failure(await c.request(spawn(pane, budgetUsd=0))) == "invalid-request"
        assert failure(await c.request(spawn(pane, budgetUsd=-1))) == "invalid-request"
        assert c.created == []
        job = await spawned(c, pane, budgetUsd=2.5)
        assert c.jobs.current(job["jobID"]["rawValue"]).budget_usd == "2.5"

    run(scenario)
