"""Cursor: every row of providers.md §6.2 and the neutral stdout reply."""

from __future__ import annotations

from typing import Any

import pytest

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import stable_uuid
from mytty.hook.adapt import adapt, map_hook_payload
from mytty.hook.adapters import neutral_reply

from .conftest import SURFACE_ID, load_payloads, with_fields

PROVIDER = "cursor"
REF = load_payloads(PROVIDER)["reference"]
CONVERSATION = REF["U1"]["conversation_id"]


def event(payload: dict[str, Any]) -> AgentEvent | None:
    return adapt(PROVIDER, payload, surface_id=SURFACE_ID, occurred_at=1_700_000_000)


def test_before_submit_prompt_starts_the_generation_run() -> None:
    ev = event(REF["U1"])
    assert ev is not None
    assert ev.kind is AgentEventKind.STARTED
    assert ev.provider is AgentProvider.CURSOR
    assert ev.run_id == "EA21E45E-A877-5360-A60B-34AE359421A0"
    assert ev.session_id == CONVERSATION
    assert ev.hook_name == "beforeSubmitPrompt"


def test_pre_tool_use_is_running_with_tool_fields() -> None:
    ev = event(REF["U2"])
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING
    assert ev.message == "Delete"
    assert ev.tool_name == "Delete"
    assert ev.tool_use_id == "toolu_01DelA9"
    assert ev.hook_name == "preToolUse"
    assert ev.run_id == "EA21E45E-A877-5360-A60B-34AE359421A0"


def test_pre_tool_use_id_feeds_the_documented_pending_approval_id() -> None:
    ev = event(REF["U2"])
    assert ev is not None
    synthetic = stable_uuid("event", "cursor", "pending-approval", ev.run_id, ev.tool_use_id or "")
    assert synthetic == "D25BF80E-A059-509A-8885-0C4135B5D8BA"


@pytest.mark.parametrize("name", ["postToolUse", "postToolUseFailure"])
def test_post_tool_events_are_running_without_message(name: str) -> None:
    ev = event(with_fields(REF["U2"], hook_event_name=name))
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING
    assert (ev.tool_use_id, ev.tool_name, ev.message) == ("toolu_01DelA9", "Delete", None)
    assert ev.hook_name == name


def test_tool_use_id_with_embedded_newline_is_cleaned() -> None:
    ev = event(with_fields(REF["U2"], tool_use_id="call-abc-1\nfc_def_1"))
    assert ev is not None
    assert ev.tool_use_id == "call-abc-1fc_def_1"


@pytest.mark.parametrize("name", ["beforeShellExecution", "afterShellExecution"])
def test_legacy_shell_events_are_running_with_the_command(name: str) -> None:
    payload = with_fields(REF["U1"], hook_event_name=name, command="npm test", prompt=...)
    ev = event(payload)
    assert ev is not None
    assert (ev.kind, ev.message, ev.hook_name) == (AgentEventKind.RUNNING, "npm test", name)


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        ("completed", AgentEventKind.SUCCEEDED),
        ("aborted", AgentEventKind.DISCONNECTED),
        ("error", AgentEventKind.FAILED),
        ("something-new", AgentEventKind.SUCCEEDED),
        (None, AgentEventKind.SUCCEEDED),
    ],
)
def test_stop_status_decides_the_outcome(status: str | None, kind: AgentEventKind) -> None:
    payload = with_fields(REF["U3"], status=status if status is not None else ...)
    ev = event(payload)
    assert ev is not None
    assert ev.kind is kind
    assert ev.hook_name == "stop"
    assert ev.run_id == "EA21E45E-A877-5360-A60B-34AE359421A0"


def test_failed_stop_carries_the_error() -> None:
    ev = event(with_fields(REF["U3"], status="error", error="Command failed"))
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.FAILED, "Command failed")


def test_session_id_falls_back_to_the_cli_alias() -> None:
    payload = with_fields(REF["U1"], conversation_id=..., session_id="cli-session-1")
    ev = event(payload)
    assert ev is not None
    assert ev.session_id == "cli-session-1"


def test_run_key_falls_back_to_the_conversation() -> None:
    ev = event(with_fields(REF["U1"], generation_id=...))
    assert ev is not None
    assert ev.run_id == stable_uuid("run", "cursor", CONVERSATION)


@pytest.mark.parametrize("name", ["beforeReadFile", "afterFileEdit", "sessionStart", None])
def test_other_events_are_ignored(name: str | None) -> None:
    payload = with_fields(REF["U1"], hook_event_name=name if name is not None else ...)
    assert map_hook_payload(PROVIDER, payload) is None


@pytest.mark.parametrize("name", ["preToolUse", "beforeShellExecution", "beforeMCPExecution"])
def test_permission_events_get_an_explicit_empty_object(name: str) -> None:
    assert neutral_reply(PROVIDER, with_fields(REF["U2"], hook_event_name=name)) == b"{}\n"


def test_unreadable_payload_gets_an_empty_object() -> None:
    assert neutral_reply(PROVIDER, None) == b"{}\n"


@pytest.mark.parametrize(
    "name", ["beforeSubmitPrompt", "postToolUse", "postToolUseFailure", "stop"]
)
def test_other_events_print_nothing(name: str) -> None:
    assert neutral_reply(PROVIDER, with_fields(REF["U2"], hook_event_name=name)) is None
