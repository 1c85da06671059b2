"""Claude Code: every row of providers.md §3.3, from payloads captured from Claude Code 2.1.332."""

from __future__ import annotations

from typing import Any

import pytest

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import stable_uuid
from mytty.hook.adapt import adapt, map_hook_payload
from mytty.hook.adapters.claude import pending_background_agents

from .conftest import SURFACE_ID, load_payloads, with_fields

PROVIDER = "claude-code"
FIX = load_payloads(PROVIDER)
CAP = FIX["captured"]
REF = FIX["reference"]


def event(payload: dict[str, Any]) -> AgentEvent | None:
    return adapt(PROVIDER, payload, surface_id=SURFACE_ID, occurred_at=1_700_000_000)


def run_of(key: str) -> str:
    return stable_uuid("run", PROVIDER, key)


def test_session_start_is_idle_on_the_session_run() -> None:
    payload = CAP["SessionStart"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.IDLE
    assert ev.run_id == run_of(payload["session_id"])  # SessionStart carries no prompt_id
    assert ev.session_id == payload["session_id"]
    assert ev.hook_name == "SessionStart"
    assert ev.provider is AgentProvider.CLAUDE_CODE
    assert ev.message is None


def test_user_prompt_submit_starts_the_prompt_run() -> None:
    payload = CAP["UserPromptSubmit"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.STARTED
    assert ev.run_id == run_of(payload["prompt_id"])
    assert ev.hook_name == "UserPromptSubmit"


def test_reference_prompt_has_the_documented_run_id() -> None:
    ev = event(REF["K1"])
    assert ev is not None
    assert ev.kind is AgentEventKind.STARTED
    assert ev.run_id == "17E15E79-4F56-51AB-BE07-762DD49DF916"
    assert ev.session_id == "3c1b8f0e-7d2a-4e59-8b64-0f9a2d5c7e11"


def test_permission_request_asks_for_approval_with_fallback_message() -> None:
    payload = CAP["PermissionRequest"]  # real payload: no message, no tool_use_id
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.APPROVAL_REQUESTED
    assert ev.message == "Bash requires approval"
    assert ev.tool_name == "Bash"
    assert ev.tool_use_id is None
    assert ev.run_id == run_of(payload["prompt_id"])


@pytest.mark.parametrize("tool", ["AskUserQuestion", "request_user_input", "question"])
def test_question_style_permission_requests_ask_for_input(tool: str) -> None:
    ev = event(with_fields(CAP["PermissionRequest"], tool_name=tool))
    assert ev is not None
    assert ev.kind is AgentEventKind.INPUT_REQUESTED
    assert ev.tool_name == tool
    assert ev.message is None  # the approval fallback applies to approvals only


def test_reference_ask_user_question() -> None:
    ev = event(REF["K3"])
    assert ev is not None
    assert (ev.kind, ev.tool_name, ev.message) == (
        AgentEventKind.INPUT_REQUESTED,
        "AskUserQuestion",
        None,
    )


def test_post_tool_batch_is_running() -> None:
    payload = with_fields(
        CAP["PostToolUse"],
        hook_event_name="PostToolBatch",
        tool_name=...,
        tool_input=...,
        tool_response=...,
        tool_use_id=...,
        tool_results=[{"tool_use_id": "toolu_1", "tool_name": "Bash"}],
    )
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING
    assert ev.hook_name == "PostToolBatch"


@pytest.mark.parametrize("name", ["PreToolUse", "PostToolUse"])
def test_per_tool_events_are_not_followed(name: str) -> None:
    # PostToolUse is deliberately unmapped: the run returns to running after the whole batch.
    assert map_hook_payload(PROVIDER, CAP[name]) is None


@pytest.mark.parametrize("name", ["SubagentStart", "SubagentStop"])
def test_subagent_events_run_on_the_parent_turn_naming_the_agent(name: str) -> None:
    # A SubagentStop that no longer lists its subagent as running (its notification is not
    # owed any more, or it was a foreground subagent).
    payload = with_fields(CAP[name], background_tasks=[]) if name == "SubagentStop" else CAP[name]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING
    assert ev.hook_name == name
    assert ev.run_id == run_of(payload["prompt_id"])  # the parent's prompt id
    assert ev.tool_use_id == payload["agent_id"]


def test_subagent_stop_still_owing_its_task_notification_is_not_followed() -> None:
    # Captured on 2.1.332 from a subagent that finished before its parent's turn: SubagentStop
    # lists the subagent itself as a running background task, then the parent's Stop has none,
    # then the task-notification prompt and the final Stop. The subagent stays live until that
    # prompt, so the first Stop does not end the run with Claude's internal launch note.
    payload = CAP["SubagentStop"]
    assert payload["background_tasks"][0]["id"] == payload["agent_id"]
    assert map_hook_payload(PROVIDER, payload) is None
    for status in ("completed", "failed", "killed"):
        done = [dict(payload["background_tasks"][0], status=status)]
        ev = event(with_fields(payload, background_tasks=done))
        assert ev is not None and ev.kind is AgentEventKind.RUNNING, status
    other = [dict(payload["background_tasks"][0], id="another-agent")]
    assert event(with_fields(payload, background_tasks=other)) is not None


def test_subagent_event_without_an_agent_id_is_not_followed() -> None:
    assert map_hook_payload(PROVIDER, with_fields(CAP["SubagentStart"], agent_id=...)) is None


# The synthetic prompt Claude Code 2.1.332 submitted when an async subagent finished.
TASK_NOTIFICATION = (
    "<task-notification>\n<task-id>ab1c1e419d93f1ea1</task-id>\n"
    "<tool-use-id>toolu_mock_3668ed78ea9242c2a8a2</tool-use-id>\n"
    "<output-file>$TMPDIR/claude-0/-tmp-work-claude/49d135fa/tasks/ab1c1e419d93f1ea1.output"
    "</output-file>\n<status>completed</status>\n"
    '<summary>Agent "Mock subagent task" finished</summary>\n'
    "<result>Hello from the mock Anthropic model. Done.</result>\n</task-notification>"
)


def test_task_notification_prompt_continues_instead_of_starting() -> None:
    payload = with_fields(CAP["UserPromptSubmit"], prompt=TASK_NOTIFICATION)
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING
    assert ev.hook_name == "UserPromptSubmit"
    assert ev.tool_use_id == "ab1c1e419d93f1ea1"
    assert ev.run_id == run_of(payload["prompt_id"])  # the reducer folds it into the root turn


@pytest.mark.parametrize(
    "prompt",
    ["say hi", "<task-notification> no task id", "please explain <task-notification>"],
)
def test_other_prompts_still_start_a_run(prompt: str) -> None:
    ev = event(with_fields(CAP["UserPromptSubmit"], prompt=prompt))
    assert ev is not None
    assert ev.kind is AgentEventKind.STARTED
    assert ev.tool_use_id is None


def test_permission_prompt_notification_asks_for_approval_with_its_message() -> None:
    payload = CAP["Notification"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.APPROVAL_REQUESTED
    assert ev.message == "Claude needs your permission"
    assert ev.hook_name == "Notification"
    assert ev.run_id == run_of(payload["prompt_id"])


@pytest.mark.parametrize("kind", ["agent_needs_input", "elicitation_dialog"])
def test_input_notifications_ask_for_input(kind: str) -> None:
    ev = event(with_fields(CAP["Notification"], notification_type=kind, message="Pick one"))
    assert ev is not None
    assert ev.kind is AgentEventKind.INPUT_REQUESTED
    assert ev.message == "Pick one"


def test_agent_completed_notification_succeeds() -> None:
    ev = event(with_fields(CAP["Notification"], notification_type="agent_completed"))
    assert ev is not None
    assert ev.kind is AgentEventKind.SUCCEEDED


@pytest.mark.parametrize("kind", ["idle_prompt", "auth_success", "something_new", None])
def test_idle_prompt_and_other_notifications_are_ignored(kind: str | None) -> None:
    payload = with_fields(CAP["Notification"], notification_type=kind if kind else ...)
    assert map_hook_payload(PROVIDER, payload) is None


def test_stop_with_no_background_work_succeeds() -> None:
    payload = CAP["Stop"]  # real payload: background_tasks == []
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.SUCCEEDED
    assert ev.message is None
    assert ev.run_id == run_of(payload["prompt_id"])
    assert ev.last_assistant_message == "Hello from the mock Anthropic model. Done."


def test_stop_while_a_subagent_runs_stays_running() -> None:
    ev = event(REF["K4"])
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING
    assert ev.message == "Waiting for 1 background agent"
    assert ev.hook_name == "Stop"
    assert ev.last_assistant_message is None  # not the final answer yet


def test_stop_with_captured_background_subagent_entry_stays_running() -> None:
    # The background_tasks entry as Claude Code 2.1.332 reported it on SubagentStop.
    tasks = CAP["SubagentStop"]["background_tasks"]
    ev = event(with_fields(CAP["Stop"], background_tasks=tasks))
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.RUNNING, "Waiting for 1 background agent")


def test_stop_counts_several_agents_in_the_plural() -> None:
    tasks = [
        {"id": "a", "type": "subagent", "status": "running"},
        {"id": "b", "type": "Workflow"},  # no status: still running; type compared lower-cased
        {"id": "c", "type": "subagent", "status": "COMPLETED"},
    ]
    ev = event(with_fields(CAP["Stop"], background_tasks=tasks))
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.RUNNING, "Waiting for 2 background agents")


@pytest.mark.parametrize(
    "tasks",
    [
        None,
        [],
        "not-a-list",
        [{"type": "shell", "status": "running"}],
        [
            {"type": "monitor"},
            {"type": "teammate"},
            {"type": "cloud session"},
            {"type": "MCP task"},
        ],
        [{"status": "running"}],  # no type
        ["subagent", 3, None],  # non-object entries
        [
            {"type": "subagent", "status": s}
            for s in ("completed", "failed", "cancelled", "canceled", "killed", "stopped", "done")
        ],
    ],
)
def test_stop_with_only_finished_or_non_agent_tasks_succeeds(tasks: object) -> None:
    ev = event(with_fields(CAP["Stop"], background_tasks=tasks if tasks is not None else ...))
    assert ev is not None
    assert ev.kind is AgentEventKind.SUCCEEDED
    assert ev.message is None


def test_pending_background_agents_counts() -> None:
    assert pending_background_agents([{"type": "subagent", "status": None}]) == 1
    assert pending_background_agents([{"type": "subagent", "status": "Running"}] * 3) == 3
    assert pending_background_agents({"type": "subagent"}) == 0


def test_stop_failure_fails_with_the_error_message() -> None:
    ev = event(REF["K5"])
    assert ev is not None
    assert ev.kind is AgentEventKind.FAILED
    assert ev.message == "Rate limit exceeded"
    assert ev.run_id == "61BD1154-BADA-514C-94F8-2D9A63DE06EB"


def test_real_stop_failure_uses_the_api_error_text() -> None:
    # 2.1.332 sends `error: "unknown"` and the API error in last_assistant_message.
    ev = event(CAP["StopFailure"])
    assert ev is not None
    assert ev.kind is AgentEventKind.FAILED
    assert ev.message == "API Error: 400 mock failure 400"
    assert ev.hook_name == "StopFailure"
    assert ev.last_assistant_message == "API Error: 400 mock failure 400"


def test_stop_failure_falls_back_to_the_error_category() -> None:
    payload = with_fields(CAP["StopFailure"], last_assistant_message=...)
    ev = event(payload)
    assert ev is not None
    assert ev.message == "unknown"


def test_session_end_disconnects_the_session_run_not_the_prompt_run() -> None:
    payload = CAP["SessionEnd"]
    assert "prompt_id" in payload  # 2.1.332 sends one
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.DISCONNECTED
    assert ev.run_id == run_of(payload["session_id"])
    assert ev.run_id == event(CAP["SessionStart"]).run_id  # type: ignore[union-attr]


def test_events_of_one_prompt_share_one_run() -> None:
    base = CAP["PermissionRequest"]
    ids = {
        event(with_fields(base, hook_event_name=name)).run_id  # type: ignore[union-attr]
        for name in ("UserPromptSubmit", "PermissionRequest", "PostToolBatch", "Stop")
    }
    assert ids == {run_of(base["prompt_id"])}


def test_run_key_falls_back_to_the_session_id() -> None:
    payload = with_fields(CAP["UserPromptSubmit"], prompt_id=...)
    ev = event(payload)
    assert ev is not None
    assert ev.run_id == run_of(payload["session_id"])


@pytest.mark.parametrize("name", [None, "", "Interrupt", "PreCompact", 7])
def test_unknown_or_missing_event_names_are_ignored(name: object) -> None:
    payload = with_fields(
        CAP["UserPromptSubmit"], hook_event_name=name if name is not None else ...
    )
    assert map_hook_payload(PROVIDER, payload) is None
