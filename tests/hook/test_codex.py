"""Codex: every row of providers.md §2.3, from payloads captured from codex-cli 0.171.0."""

from __future__ import annotations

from typing import Any

import pytest

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import stable_uuid
from mytty.hook.adapt import adapt, map_hook_payload

from .conftest import SURFACE_ID, load_payloads, with_fields

PROVIDER = "codex"
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
    assert ev.provider is AgentProvider.CODEX
    assert ev.run_id == run_of(payload["session_id"])
    assert ev.session_id == payload["session_id"]
    assert ev.hook_name == "SessionStart"


def test_reference_session_start_run_id() -> None:
    ev = event(REF["C4"])
    assert ev is not None
    assert (ev.kind, ev.run_id) == (AgentEventKind.IDLE, "A1CAAABE-72B3-5B72-BDD3-7A30D056532D")


def test_user_prompt_submit_starts_the_turn_run() -> None:
    payload = CAP["UserPromptSubmit"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.STARTED
    assert ev.run_id == run_of(payload["turn_id"])


def test_reference_prompt_run_id_and_session() -> None:
    ev = event(REF["C1"])
    assert ev is not None
    assert ev.run_id == "C2F01210-AF62-5C51-871B-5006FA4CB0B6"
    assert ev.session_id == "019a7c1e-5b2d-7e40-9f3a-2c8d41e0b7aa"
    assert ev.hook_name == "UserPromptSubmit"


def test_permission_request_asks_for_approval() -> None:
    payload = CAP["PermissionRequest"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.APPROVAL_REQUESTED
    assert ev.message == "Bash requires approval"
    assert ev.tool_name == "Bash"
    assert ev.run_id == run_of(payload["turn_id"])


def test_reference_permission_request() -> None:
    ev = event(REF["C2"])
    assert ev is not None
    assert (ev.kind, ev.message, ev.tool_name, ev.run_id) == (
        AgentEventKind.APPROVAL_REQUESTED,
        "Bash requires approval",
        "Bash",
        "C2F01210-AF62-5C51-871B-5006FA4CB0B6",
    )


def test_permission_request_keeps_a_direct_message() -> None:
    ev = event(with_fields(CAP["PermissionRequest"], message="Approve the dependency update."))
    assert ev is not None
    assert ev.message == "Approve the dependency update."


@pytest.mark.parametrize("tool", ["request_user_input", "AskUserQuestion", "question"])
def test_input_tool_permission_requests_ask_for_input(tool: str) -> None:
    ev = event(with_fields(CAP["PermissionRequest"], tool_name=tool))
    assert ev is not None
    assert ev.kind is AgentEventKind.INPUT_REQUESTED
    assert ev.message is None


def test_post_tool_use_is_running_with_tool_fields() -> None:
    payload = CAP["PostToolUse"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING
    assert ev.tool_name == "Bash"
    assert ev.tool_use_id == payload["tool_use_id"]
    assert ev.run_id == run_of(payload["turn_id"])


def test_stop_succeeds() -> None:
    payload = CAP["Stop"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.SUCCEEDED
    assert ev.run_id == run_of(payload["turn_id"])
    assert ev.message is None  # last_assistant_message is not a status message
    assert ev.last_assistant_message == payload["last_assistant_message"]


@pytest.mark.parametrize("name", ["UserPromptSubmit", "PermissionRequest", "PostToolUse"])
def test_only_the_turn_end_carries_the_last_answer(name: str) -> None:
    payload = {**CAP[name], "last_assistant_message": "not final"}
    ev = event(payload)
    assert ev is not None and ev.last_assistant_message is None


def test_reference_stop_shares_the_turn_run() -> None:
    assert event(REF["C3"]).run_id == event(REF["C1"]).run_id  # type: ignore[union-attr]


def test_session_end_disconnects_the_session_run() -> None:
    payload = CAP["SessionEnd"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.DISCONNECTED
    assert ev.run_id == run_of(payload["session_id"])


def test_interrupt_idles_the_turn_run() -> None:
    payload = CAP["Interrupt"]
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.IDLE
    assert ev.run_id == run_of(payload["turn_id"])
    assert ev.hook_name == "Interrupt"


@pytest.mark.parametrize("name", ["PreToolUse"])
def test_other_captured_events_are_ignored(name: str) -> None:
    assert map_hook_payload(PROVIDER, CAP[name]) is None


def test_turn_key_falls_back_to_the_session_id() -> None:
    payload = with_fields(CAP["Stop"], turn_id=...)
    ev = event(payload)
    assert ev is not None
    assert ev.run_id == run_of(payload["session_id"])


# -- subagents (codex-cli 0.171.0, spawn_agent) ---------------------------------------------------

SUB = FIX["subagent"]
AGENT = SUB["SubagentStart"]["agent_id"]


def test_spawn_agent_names_the_subagent_on_the_parent_turn() -> None:
    ev = event(SUB["spawn"])
    assert ev is not None
    assert (ev.kind, ev.hook_name, ev.tool_name) == (
        AgentEventKind.RUNNING,
        "PostToolUse",
        "spawn_agent",
    )
    assert ev.run_id == run_of(SUB["spawn"]["turn_id"])
    assert ev.tool_use_id == "agent:" + AGENT


@pytest.mark.parametrize("name", ["SubagentStart", "UserPromptSubmit", "SubagentStop"])
def test_a_subagents_events_are_activity_never_a_turn_or_an_answer(name: str) -> None:
    ev = event(SUB[name])
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING  # its prompt does not start a run
    assert ev.tool_use_id == "agent:" + AGENT
    assert ev.session_id == SUB[name]["session_id"]  # the parent's: routed to its pane
    assert ev.last_assistant_message is None  # "Subagent report." is not the turn's answer


def test_a_subagents_permission_request_asks_the_human() -> None:
    payload = with_fields(CAP["PermissionRequest"], agent_id=AGENT, agent_type="default")
    ev = event(payload)
    assert ev is not None
    assert ev.kind is AgentEventKind.APPROVAL_REQUESTED and ev.tool_use_id == "agent:" + AGENT


@pytest.mark.parametrize("name", ["Interrupt", "SessionStart"])
def test_a_subagents_interrupt_or_session_start_is_not_followed(name: str) -> None:
    assert event(with_fields(CAP[name], agent_id=AGENT)) is None


def test_the_parents_stop_keeps_its_answer() -> None:
    ev = event(SUB["parentStop"])
    assert ev is not None and ev.kind is AgentEventKind.SUCCEEDED
    assert ev.last_assistant_message == SUB["parentStop"]["last_assistant_message"]
    assert ev.tool_use_id is None


@pytest.mark.parametrize("response", ["not json", "[]", '{"nickname": "x"}', 7, None])
def test_a_spawn_result_without_an_agent_id_is_a_plain_tool_call(response: object) -> None:
    ev = event(with_fields(SUB["spawn"], tool_response=response))
    assert ev is not None and ev.tool_use_id == SUB["spawn"]["tool_use_id"]


def test_the_prefix_is_the_reducers() -> None:
    from mytty.core.runs.subagents import CODEX_SPAWN_TOOL, CODEX_SUBAGENT_PREFIX
    from mytty.hook.adapters import codex

    assert codex.SUBAGENT_PREFIX == CODEX_SUBAGENT_PREFIX
    assert codex._SPAWN_TOOL == CODEX_SPAWN_TOOL


def test_a_lead_notice_goes_to_the_lead_never_to_its_subagents_prompt() -> None:
    """Codex fires UserPromptSubmit for a spawn_agent subagent's own prompt, in the lead's
    pane: a notice handed to that hook would reach the subagent's model, not the lead's."""
    from mytty.hook.adapters import codex

    assert codex.takes_notice(CAP["UserPromptSubmit"]) is True
    assert codex.takes_notice(CAP["SessionStart"]) is True
    assert codex.takes_notice(SUB["UserPromptSubmit"]) is False
    assert codex.takes_notice(SUB["SubagentStart"]) is False
