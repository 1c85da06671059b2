"""Answers from the page: a question's answer goes only to an agent waiting for input; an
approval decision goes to the broker as ``via: web`` with the session; both refuse what they
cannot send and make the card leave every open stream."""

from __future__ import annotations

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.web import answers
from tests.web.conftest import JOB_A, PANE_A, PANE_B, RUN_A, WebHarness, job, pane, read_event

RUN_B = "66666666-6666-4666-8666-666666666666"


def asking(h: WebHarness) -> None:
    """Pane A: a job waiting for input on RUN_A; pane B: a hand-started agent on RUN_B."""
    h.controller.panes = [
        pane(PANE_A, provider="claude-code", agentState="waiting-input"),
        pane(PANE_B, provider="codex", agentState="waiting-input"),
    ]
    h.controller.jobs = [job(JOB_A, PANE_A, "waiting-input", runID={"rawValue": RUN_A})]
    h.controller.attention = [
        {"paneID": p, "runID": r, "provider": "x", "kind": "input-request", "message": "Which?",
         "createdAt": "2027-01-15T08:00:00Z", "resolvedAt": None, "location": None, "label": None}
        for p, r in ((PANE_A, RUN_A), (PANE_B, RUN_B))
    ]  # fmt: skip


def test_an_answer_goes_to_the_job_or_the_pane_that_waits(harness: WebHarness) -> None:
    asking(harness)

    async def body(h: WebHarness) -> None:
        headers = h.answer_headers(await h.pair())
        r = await h.http.post(f"/questions/{RUN_A}", data={"answer": " B "}, headers=headers)
        assert r.status == 200 and (await r.json())["ok"] is True
        r = await h.http.post(
            f"/questions/{RUN_B.lower()}", data={"answer": "yes"}, headers=headers
        )
        assert r.status == 200
        assert h.controller.told == [
            ("agent send", {"JOB": {"rawValue": JOB_A}, "TEXT": "B", "--enter": True}),
            ("send", {"PANE": PANE_B, "TEXT": "yes", "--enter": True}),
        ]

    harness.run(body)


def test_no_answer_to_an_agent_that_no_longer_waits(harness: WebHarness) -> None:
    asking(harness)

    async def body(h: WebHarness) -> None:
        headers = h.answer_headers(await h.pair())
        h.controller.panes[0]["agentState"] = "running"
        h.controller.jobs[0]["state"] = "running"
        r = await h.http.post(f"/questions/{RUN_A}", data={"answer": "B"}, headers=headers)
        assert r.status == 409 and "not waiting" in (await r.json())["message"]
        r = await h.http.post(f"/questions/{'9' * 36}", data={"answer": "B"}, headers=headers)
        assert r.status == 409 and "answered or withdrawn" in (await r.json())["message"]
        assert h.controller.told == []

    harness.run(body)


@pytest.mark.parametrize(
    "answer", ["", "   ", "two\nlines", "esc\x1b[2J", "tab\there", "x" * (answers.MAX_ANSWER + 1)]
)
def test_answers_that_would_be_keys_are_refused(harness: WebHarness, answer: str) -> None:
    asking(harness)

    async def body(h: WebHarness) -> None:
        headers = h.answer_headers(await h.pair())
        r = await h.http.post(f"/questions/{RUN_A}", data={"answer": answer}, headers=headers)
        assert r.status == 400
        assert h.controller.told == []

    harness.run(body)


def approval(ident: str) -> dict[str, object]:
    return {"id": ident, "paneID": PANE_A, "provider": "claude-code", "tool": "Bash",
            "action": "touch x", "command": "touch x", "state": "holding",
            "requestedAt": "2027-01-15T08:00:00Z", "holdUntil": "2027-01-15T08:00:15Z"}  # fmt: skip


def test_a_decision_goes_to_the_broker_as_web_with_the_session(harness: WebHarness) -> None:
    harness.controller.approvals = [approval("a1b2c3d4"), approval("e5f6a7b8")]

    async def body(h: WebHarness) -> None:
        headers = h.answer_headers(await h.pair())
        session = h.sessions.current().sessions[0].id
        async with h.http.get("/events?view=home") as stream:
            first = await read_event(stream, "board")
            assert 'id="approval-a1b2c3d4"' in first and 'id="approval-e5f6a7b8"' in first
            r = await h.http.post(
                "/approvals/a1b2c3d4", data={"decision": "allow"}, headers=headers
            )
            assert r.status == 200 and (await r.json())["message"] == "Approved."
            after = await read_event(stream, "board")
            assert 'id="approval-a1b2c3d4"' not in after and 'id="approval-e5f6a7b8"' in after
        r = await h.http.post(
            "/approvals/e5f6a7b8", data={"decision": "deny", "message": "use ls"}, headers=headers
        )
        assert r.status == 200
        assert h.controller.told == [
            ("approval answer", {"ID": "a1b2c3d4", "DECISION": "allow", "via": "web",
                                 "session": session}),
            ("approval answer", {"ID": "e5f6a7b8", "DECISION": "deny", "via": "web",
                                 "session": session, "--message": "use ls"}),
        ]  # fmt: skip

    harness.run(body)


def test_bad_decisions_and_the_brokers_refusals(harness: WebHarness) -> None:
    async def body(h: WebHarness) -> None:
        headers = h.answer_headers(await h.pair())
        for data in ({"decision": "maybe"}, {"decision": "allow", "message": "x"},
                     {"decision": "deny", "message": "a\nb"}):  # fmt: skip
            assert (await h.http.post("/approvals/a1", data=data, headers=headers)).status == 400
        assert h.controller.told == []
        h.controller.refuse["approval answer"] = MyttyError(
            ErrorCode.APPROVAL_ALREADY_ANSWERED, "already answered elsewhere"
        )
        r = await h.http.post("/approvals/a1", data={"decision": "allow"}, headers=headers)
        assert r.status == 409
        assert await r.json() == {
            "ok": False,
            "message": "already answered elsewhere",
            "code": "approval-already-answered",
        }

    harness.run(body)
