"""Each reply converter against the shape the seeds document, key order included.

The expected objects are the seeds' examples (``mytty-ctl`` reference and agent event protocol)
with their ``...`` placeholders filled in; where the seed has no example (``attention``,
``env``, ``session``) they follow docs/reference. ``same`` compares the JSON text, so a key in
the wrong place fails as surely as a wrong value.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from mytty.core.attention.items import AttentionItem, AttentionKind
from mytty.core.errors import ErrorCode
from mytty.core.events import (
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    AgentRunState,
    WorkerProvider,
)
from mytty.core.ids import JobId, RunId, SurfaceId, TmuxPaneId, stable_uuid
from mytty.core.jobs.tracker import AgentJobState, new_job
from mytty.core.runs.ledger import EventLedger, LedgerPage, LedgerRecord
from mytty.core.runs.run import AgentRun
from mytty.protocol import wire
from mytty.protocol.control import encode_reply
from mytty.protocol.envelope import (
    decode_envelope,
    encode_envelope,
    encode_event_reply,
    event_from_wire,
)
from mytty.tmux.port import PaneRow

PANE = SurfaceId(stable_uuid("wire", "pane"))
RUN = RunId(stable_uuid("wire", "run"))
JOB = JobId(stable_uuid("wire", "job"))
EVENT = stable_uuid("wire", "event")
T = 1_784_185_200.25  # 2026-07-16T07:00:00.250Z


def same(actual: object, expected: object) -> None:
    assert json.dumps(actual) == json.dumps(expected)


def row(**changes: Any) -> PaneRow:
    base = PaneRow(
        pane_id=TmuxPaneId("%3"),
        pane_pid=100,
        session_id="$1",
        session_name="work",
        window_id="@2",
        window_index=0,
        pane_index=0,
        window_active=True,
        pane_active=True,
        dead=False,
        left=0,
        top=0,
        width=80,
        height=24,
        window_width=80,
        window_height=24,
        session_attached=1,
        surface=PANE,
        current_command="zsh",
        current_path="/Users/me/project",
        window_name="zsh",
    )
    return replace(base, **changes)


def agent_run(state: AgentRunState = AgentRunState.RUNNING) -> AgentRun:
    return AgentRun(
        id=RUN,
        surface_id=PANE,
        provider=AgentProvider.CODEX,
        session_id=None,
        state=state,
        started_at=T,
        updated_at=T,
        message=None,
        accepted_event_count=1,
    )


# -- simple replies ---------------------------------------------------------------------------


def test_ok_and_failure() -> None:
    same(wire.ok(), {"type": "ok"})
    same(
        wire.failure(ErrorCode.PANE_NOT_FOUND, "no pane"),
        {"type": "failure", "code": "pane-not-found", "message": "no pane"},
    )


def test_pane_reply() -> None:
    same(wire.pane_reply(PANE), {"type": "pane", "paneID": PANE})


def test_list_entry_with_an_agent_and_without() -> None:
    entry = wire.pane_entry(PANE, row(), "codex", agent_run(), None)
    same(
        wire.list_reply([entry]),
        {
            "type": "list",
            "panes": [
                {
                    "paneID": PANE,
                    "windowID": "$1",
                    "tabID": "@2",
                    "title": "zsh",
                    "command": "codex",
                    "workingDirectory": "/Users/me/project",
                    "isActive": True,
                    "provider": "codex",
                    "agentState": "running",
                }
            ],
        },
    )
    # No event yet: both keys are absent, not null (the seed checked it with jq).
    bare = wire.pane_entry(PANE, row(window_active=False), "zsh", None, None)
    assert "provider" not in bare and "agentState" not in bare
    assert bare["isActive"] is False
    noted = wire.pane_entry(PANE, row(), "zsh", None, "running tests")
    assert list(noted)[-1] == "statusNote" and noted["statusNote"] == "running tests"


def test_content_reply_and_null_cursor() -> None:
    same(
        wire.content_reply(wire.pane_content(PANE, "$ ls\nREADME.md", 3, 0)),
        {
            "type": "content",
            "content": {
                "paneID": PANE,
                "text": "$ ls\nREADME.md",
                "cursorRow": 3,
                "cursorColumn": 0,
            },
        },
    )
    same(
        wire.pane_content(PANE, "", None, None),
        {"paneID": PANE, "text": "", "cursorRow": None, "cursorColumn": None},
    )


def test_wait_result() -> None:
    same(
        wire.wait_result(AgentRunState.IDLE, False),
        {"type": "waitResult", "state": "idle", "timedOut": False},
    )
    same(wire.wait_result(None, True), {"type": "waitResult", "state": None, "timedOut": True})


def test_env_and_session() -> None:
    env = {"MYTTY_SURFACE_ID": PANE, "PATH": "/bin"}
    same(wire.env_reply(PANE, env), {"type": "env", "paneID": PANE, "environment": env})
    same(
        wire.session_reply("mytty", "/tmp/s"),
        {"type": "session", "name": "mytty", "tmuxSocket": "/tmp/s"},
    )


# -- agent jobs -------------------------------------------------------------------------------

SEED_JOB = {
    "jobID": {"rawValue": JOB},
    "paneID": {"rawValue": PANE},
    "provider": "codex",
    "label": "investigate-a",
    "state": "launching",
    "runID": None,
    "sessionID": None,
    "message": None,
}


def fresh_job(label: str | None = "investigate-a") -> Any:
    return new_job(JOB, PANE, WorkerProvider.CODEX, label, [], T)


def test_agent_job_reply_matches_the_seed() -> None:
    same(
        wire.agent_job_reply(wire.job_snapshot(fresh_job())), {"type": "agentJob", "job": SEED_JOB}
    )
    assert json.dumps(wire.job_snapshot(fresh_job())).count("null") == 3


def test_snapshot_of_a_bound_job_with_a_note() -> None:
    job = replace(
        fresh_job(),
        state=AgentJobState.RUNNING,
        run_id=RUN,
        session_id="s",
        message="m",
    )
    snap = wire.job_snapshot(job, "testing phase")
    same(
        snap,
        {
            **SEED_JOB,
            "state": "running",
            "runID": {"rawValue": RUN},
            "sessionID": "s",
            "message": "m",
            "statusNote": "testing phase",
        },
    )


def test_snapshot_omits_a_missing_label_and_keeps_an_empty_one() -> None:
    assert "label" not in wire.job_snapshot(fresh_job(None))
    assert list(wire.job_snapshot(fresh_job(None)))[2:4] == ["provider", "state"]
    assert wire.job_snapshot(fresh_job(""))["label"] == ""


def test_agent_wait_and_result_replies() -> None:
    snap = wire.job_snapshot(fresh_job())
    same(
        wire.agent_wait_result(snap, False),
        {"type": "agentWaitResult", "job": SEED_JOB, "timedOut": False},
    )
    content = wire.pane_content(PANE, "...", 10, 2)
    same(
        wire.agent_result(snap, content, None),
        {
            "type": "agentResult",
            "job": SEED_JOB,
            "content": {"paneID": PANE, "text": "...", "cursorRow": 10, "cursorColumn": 2},
            # Ours (not in the seed): the run's final answer, null until it has one.
            "lastAssistantMessage": None,
        },
    )
    assert wire.agent_result(snap, content, "done")["lastAssistantMessage"] == "done"


# -- events, attention, integrations ----------------------------------------------------------


def record(tool: str | None, synthesized: bool = False) -> LedgerRecord:
    return LedgerRecord(
        sequence=8,
        surface_id=PANE,
        provider=AgentProvider.CODEX,
        run_id=RUN,
        kind=AgentEventKind.APPROVAL_REQUESTED,
        occurred_at=T,
        tool_name=tool,
        synthesized=synthesized,
    )


def test_events_reply_matches_the_seed() -> None:
    page = LedgerPage(records=(record("shell"),), latest_sequence=8, truncated=False)
    same(
        wire.events_reply(page, False),
        {
            "type": "events",
            "records": [
                {
                    "sequence": 8,
                    "paneID": PANE,
                    "provider": "codex",
                    "runID": RUN,
                    "kind": "approval-requested",
                    "occurredAt": "2026-07-16T07:00:00.250Z",
                    "toolName": "shell",
                    "synthesized": False,
                }
            ],
            "latestSequence": 8,
            "timedOut": False,
        },
    )


def test_event_record_without_a_tool_and_a_truncated_page() -> None:
    bare = wire.event_record(record(None, synthesized=True))
    assert "toolName" not in bare and list(bare)[-1] == "synthesized"
    assert bare["synthesized"] is True
    page = EventLedger().query(None)
    same(
        wire.events_reply(page, True),
        {"type": "events", "records": [], "latestSequence": 0, "timedOut": True},
    )
    cut = LedgerPage(records=(), latest_sequence=3, truncated=True)
    assert list(wire.events_reply(cut, False))[-1] == "truncated"


def test_attention_reply() -> None:
    item = AttentionItem(
        id=EVENT,
        surface_id=PANE,
        run_id=RUN,
        provider=AgentProvider.CLAUDE_CODE,
        kind=AttentionKind.APPROVAL_REQUEST,
        message="Approve?",
        created_at=T,
    )
    expected = {
        "paneID": PANE,
        "runID": RUN,
        "provider": "claude-code",
        "kind": "approval-request",
        "message": "Approve?",
        "createdAt": "2026-07-16T07:00:00.250Z",
        "resolvedAt": None,
        "location": "mytty:1.0",
        "label": "bugs",
    }
    asked: list[str] = []

    def whereabouts(pane_id: str) -> tuple[str | None, str | None]:
        asked.append(pane_id)
        return "mytty:1.0", "bugs"

    same(wire.attention_reply([item], whereabouts), {"type": "attention", "items": [expected]})
    assert asked == [PANE]
    # An acknowledgement counts as the resolution when nothing resolved it earlier.
    acked = replace(item, acknowledged_at=T + 1)
    assert wire.attention_entry(acked)["resolvedAt"] == "2026-07-16T07:00:01.250Z"
    both = replace(item, resolved_at=T + 2, acknowledged_at=T + 1)
    assert wire.attention_entry(both)["resolvedAt"] == "2026-07-16T07:00:02.250Z"


def test_integration_statuses_match_the_seed() -> None:
    same(
        wire.integration_statuses(
            [
                wire.integration_entry(AgentProvider.CLAUDE_CODE, "installed", None),
                wire.integration_entry(AgentProvider.CODEX, "not-installed", None),
            ]
        ),
        {
            "type": "integrationStatuses",
            "integrations": [
                {"provider": "claude-code", "status": "installed"},
                {"provider": "codex", "status": "not-installed"},
            ],
        },
    )
    same(
        wire.integration_entry(AgentProvider.CURSOR, "needs-repair", "broken"),
        {"provider": "cursor", "status": "needs-repair", "error": "broken"},
    )


# -- event socket -----------------------------------------------------------------------------


def test_event_socket_replies_are_the_seeds_lines() -> None:
    assert encode_event_reply(inserted=True) == b'{"ok": true, "inserted": true}\n'
    assert encode_event_reply(inserted=False) == b'{"ok": true, "inserted": false}\n'
    assert encode_event_reply(error=ErrorCode.UNAUTHORIZED) == (
        b'{"ok": false, "error": "unauthorized"}\n'
    )


#: The seed's envelope example as an event.
SEED_EVENT = AgentEvent(
    id=EVENT,
    run_id=RUN,
    surface_id=PANE,
    provider=AgentProvider.CODEX,
    kind=AgentEventKind.APPROVAL_REQUESTED,
    occurred_at=1_784_185_200.0,
    session_id="0190f6f3-2a50-7000-8000-000000000001",
    message="Approve the dependency update.",
)


def test_agent_event_matches_the_seed_envelope_and_round_trips() -> None:
    event = SEED_EVENT
    same(
        wire.agent_event(event),
        {
            "schemaVersion": 1,
            "id": {"rawValue": EVENT},
            "runID": {"rawValue": RUN},
            "sessionID": "0190f6f3-2a50-7000-8000-000000000001",
            "surfaceID": {"rawValue": PANE},
            "provider": "codex",
            "kind": "approval-requested",
            "occurredAt": "2026-07-16T07:00:00Z",
            "message": "Approve the dependency update.",
        },
    )
    full = replace(
        event,
        session_id=None,
        hook_name="Stop",
        tool_use_id="t1",
        tool_name="x",
        last_assistant_message="All done.",
    )
    keys = list(wire.agent_event(full, fractional=True))
    assert keys == [
        "schemaVersion",
        "id",
        "runID",
        "surfaceID",
        "provider",
        "kind",
        "occurredAt",
        "message",
        "hookName",
        "toolUseID",
        "toolName",
        "lastAssistantMessage",
    ]
    line = encode_envelope(full, "CAP")
    assert decode_envelope(line[:-1]).event == full


def test_the_last_answer_survives_a_round_trip_through_the_wire() -> None:
    event = replace(
        SEED_EVENT,
        provider=AgentProvider.CLAUDE_CODE,
        kind=AgentEventKind.SUCCEEDED,
        occurred_at=2.0,
        last_assistant_message="Résumé: ok",
    )
    assert event_from_wire(wire.agent_event(event, fractional=True)) == event
    bare = replace(event, last_assistant_message=None)
    assert "lastAssistantMessage" not in wire.agent_event(bare)


def test_control_replies_are_one_compact_line() -> None:
    assert encode_reply(wire.ok()) == b'{"type":"ok"}\n'
