"""The job snapshot's additions for admission, resources and cost: present only when they
apply, in one fixed order after the seed's keys."""

from __future__ import annotations

import json
from dataclasses import replace

from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, SurfaceId
from mytty.core.jobs.tracker import AgentJobState, new_job, queue
from mytty.core.transcripts.usage import TokenUsage
from mytty.protocol import wire

JOB = JobId("04AA9DA1-F255-412D-808A-A53E2525DB4F")
PANE = SurfaceId("201841B5-2A1E-41BE-93CD-775F48479797")
SEED_KEYS = ["jobID", "paneID", "provider", "label", "state", "runID", "sessionID", "message"]


def job():
    return new_job(JOB, PANE, WorkerProvider.CLAUDE, "w", [], 1000.0)


def test_a_plain_snapshot_has_none_of_the_additions() -> None:
    assert list(wire.job_snapshot(job(), cost={}, resources={})) == SEED_KEYS


def test_a_queued_snapshot_says_where_and_why_before_the_note() -> None:
    waiting = queue(job(), "max-workers", 9, "Queued until admitted (max-workers): 2 of 2.")
    snap = wire.job_snapshot(waiting, "a note", queue_position=3)
    assert list(snap)[len(SEED_KEYS) :] == ["queuePosition", "queuedBecause", "statusNote"]
    assert (snap["state"], snap["queuePosition"], snap["queuedBecause"]) == (
        "queued",
        3,
        "max-workers",
    )
    # The position alone (a job that is not queued) adds nothing.
    assert "queuePosition" not in wire.job_snapshot(job(), queue_position=3)


def test_usage_cost_and_resources_come_last_in_that_order() -> None:
    done = replace(job(), state=AgentJobState.FAILED, end_reason="memory-limit")
    usage = wire.token_usage(TokenUsage(input=10), "claude-sonnet-4-5", budget_usd=2.5)
    snap = wire.job_snapshot(
        done,
        usage=usage,
        cost={"costUsd": 0.00003},
        resources={"rssBytes": 4096, "cpuPercent": None},
    )
    assert list(snap)[len(SEED_KEYS) :] == ["reason", "usage", "costUsd", "rssBytes", "cpuPercent"]
    assert snap["reason"] == "memory-limit" and snap["usage"]["budgetUsd"] == 2.5
    text = json.dumps(snap)
    assert '"costUsd": 3e-05' in text and '"cpuPercent": null' in text


def test_list_reply_adds_the_cost_and_the_lead() -> None:
    lead = wire.lead_cost(PANE, 0.5, 1.25, 1.75)
    reply = wire.agent_jobs_reply([], cost_usd={"costUsd": None}, lead=lead)
    assert list(reply) == ["type", "jobs", "costUsd", "lead"]
    assert reply["lead"] == {
        "paneID": PANE,
        "ownCostUsd": 0.5,
        "workersCostUsd": 1.25,
        "costUsd": 1.75,
    }
    assert list(wire.agent_jobs_reply([])) == ["type", "jobs"]


def test_spawn_reply_says_whether_the_memory_cap_is_enforced() -> None:
    cap = wire.memory_cap(2048, None, "not enforced: no user systemd")
    reply = wire.agent_job_reply(wire.job_snapshot(job()), cap=cap)
    assert reply["memoryCap"] == {
        "maxMB": 2048,
        "enforced": False,
        "method": None,
        "detail": "not enforced: no user systemd",
    }
