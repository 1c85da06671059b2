"""``explain`` through the real router over the fakes: targets, the reply's shape, the codes."""

from __future__ import annotations

import dataclasses
from typing import Any, get_type_hints

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider, WorkerProvider
from mytty.core.explain.inputs import Foreground, Observations
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.jobs.tracker import new_job
from mytty.protocol.replies import ExplainEvidence, ExplanationReply
from tests.control.conftest import failure, run, uuid
from tests.control.fakes import FakeController, FakePane

K = AgentEventKind
NOW = 1_000_000.0


def hook(
    pane: SurfaceId, kind: AgentEventKind, name: str, run_id: str, at: float, session: str | None
) -> AgentEvent:
    return AgentEvent(
        id=uuid(),
        run_id=RunId(run_id),
        surface_id=pane,
        provider=AgentProvider.CLAUDE_CODE,
        kind=kind,
        occurred_at=at,
        session_id=session,
        hook_name=name,
    )


async def spawned(c: FakeController, pane: FakePane) -> dict[str, Any]:
    request = {
        "type": "spawnAgent",
        "provider": "claude",
        "task": "look around",
        "anchorPaneID": pane.surface_id,
        "direction": "right",
    }
    reply = await c.request(request)
    assert reply["type"] == "agentJob", reply
    job: dict[str, Any] = reply["job"]
    return job


def explain(target: str) -> dict[str, Any]:
    return {"type": "explain", "target": target}


def test_a_hooked_job_by_its_prefix() -> None:
    async def scenario(c: FakeController, anchor: FakePane) -> None:
        job = await spawned(c, anchor)
        worker = SurfaceId(job["paneID"]["rawValue"])
        turn = uuid()
        session = job["sessionID"]  # the conversation mytty gave the worker
        c.hub.ingest(hook(worker, K.STARTED, "UserPromptSubmit", turn, NOW - 5, session))
        c.hub.ingest(hook(worker, K.SUCCEEDED, "Stop", turn, NOW - 1, session))
        c.evidence.observed[worker] = Observations(
            pane_alive=True,
            foreground=Foreground(4242, "claude", AgentProvider.CLAUDE_CODE, 4242, NOW - 60),
        )
        reply = await c.request(explain(job["jobID"]["rawValue"][:8].lower()))
        assert list(reply) == list(get_type_hints(ExplanationReply)), reply  # the wire's order
        assert reply["target"] == "job" and reply["jobID"] == job["jobID"]
        assert reply["state"] == "succeeded" and reply["run"]["runID"] == turn
        assert reply["job"]["state"] == "succeeded"
        assert [(e["source"], e["hookName"], e["effect"]) for e in reply["evidence"]] == [
            ("hook", "UserPromptSubmit", "unknown → running"),
            ("hook", "Stop", "running → succeeded"),
        ]
        item_keys = set(get_type_hints(ExplainEvidence))
        assert all(set(e) <= item_keys for e in reply["evidence"])
        assert reply["observed"]["foreground"]["agent"] == "claude-code"
        assert reply["observed"]["integrations"] == {"claude-code": "installed"}
        assert reply["next"] == [
            {"kind": None, "state": "launching", "by": ["a follow-up `agent send`"]}
        ]
        assert reply["warnings"] == []

    run(scenario)


def test_a_pane_with_no_run_and_its_job() -> None:
    async def scenario(c: FakeController, anchor: FakePane) -> None:
        reply = await c.request(explain(anchor.surface_id))
        assert reply["target"] == "pane" and reply["state"] is None and reply["run"] is None
        assert reply["summary"].startswith("no agent run in this pane yet"), reply["summary"]
        assert "job" not in reply and reply["evidence"] == [] and reply["next"] == []
        job = await spawned(c, anchor)
        worker = job["paneID"]["rawValue"]
        by_pane = await c.request(explain(worker))
        assert by_pane["target"] == "pane" and "jobID" not in by_pane
        assert by_pane["job"]["jobID"] == job["jobID"] and by_pane["state"] is None
        # The job waits for its run: the pane has none, the job is launching.
        by_job = await c.request(explain(job["jobID"]["rawValue"]))
        assert by_job["state"] == "launching"
        assert by_job["next"][-1]["state"] == "launch-failed", by_job["next"]

    run(scenario)


def test_a_gone_pane_still_explained_by_its_full_id() -> None:
    async def scenario(c: FakeController, anchor: FakePane) -> None:
        job = await spawned(c, anchor)
        worker = SurfaceId(job["paneID"]["rawValue"])
        c.hub.ingest(hook(worker, K.STARTED, "UserPromptSubmit", uuid(), NOW - 5, None))
        await c.close_pane(c.panes.by_surface[worker])
        reply = await c.request(explain(worker.lower()))
        assert reply["target"] == "pane" and reply["state"] == "running"
        assert reply["observed"]["paneAlive"] is False
        assert [w["code"] for w in reply["warnings"]] == ["pane-gone"]
        lost = await c.request(explain(job["jobID"]["rawValue"]))
        assert lost["state"] == "lost" and lost["warnings"][0]["code"] == "pane-gone"

    run(scenario)


def test_targets_nothing_and_too_much_match() -> None:
    async def scenario(c: FakeController, anchor: FakePane) -> None:
        assert failure(await c.request(explain("FFFFFFFF-0000-4000-8000-000000000000"))) == (
            "pane-not-found"
        )
        assert failure(await c.request(explain("nonsense"))) == "pane-not-found"
        for suffix in ("1", "2"):
            job = new_job(
                JobId(f"ABCDEF0{suffix}-0000-4000-8000-000000000000"),
                anchor.surface_id,
                WorkerProvider.CLAUDE,
                None,
                [],
                NOW,
            )
            c.jobs.add(dataclasses.replace(job))
        reply = await c.request(explain("abcdef"))
        assert failure(reply) == "invalid-request" and "matches 2" in reply["message"]
        assert failure(await c.request({"type": "explain"})) == "invalid-request"
        ok = await c.request(explain("ABCDEF01"))
        assert ok["type"] == "explanation" and ok["state"] == "launching"

    run(scenario)
