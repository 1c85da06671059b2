"""OpenCode: every row of providers.md §4.3 (payloads as mytty's plugin forwards them)."""

from __future__ import annotations

from typing import Any

import pytest

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.hook.adapt import MissingRunKey, adapt, map_hook_payload

from .conftest import SURFACE_ID, load_payloads

PROVIDER = "opencode"
REF = load_payloads(PROVIDER)["reference"]
RUN_ID = "38E34D3A-9A96-5552-B222-4139AADE9144"
SESSION = "ses_01JZ8K2B7N4X"


def event(payload: dict[str, Any]) -> AgentEvent | None:
    return adapt(PROVIDER, payload, surface_id=SURFACE_ID, occurred_at=1_700_000_000)


def wrap(kind: str, properties: dict[str, Any], run_id: str = "msg_01JZ8K3QF7W2M9") -> dict:
    return {"run_id": run_id, "event": {"type": kind, "properties": properties}}


def test_user_message_starts_the_run() -> None:
    ev = event(REF["O1"])
    assert ev is not None
    assert ev.kind is AgentEventKind.STARTED
    assert ev.provider is AgentProvider.OPENCODE
    assert ev.run_id == RUN_ID
    assert ev.session_id == SESSION  # from properties.info.sessionID
    assert ev.hook_name == "message.updated"
    assert ev.tool_name is None


def test_assistant_message_is_ignored() -> None:
    payload = REF["O1"]
    info = dict(payload["event"]["properties"]["info"], role="assistant")
    assert map_hook_payload(PROVIDER, wrap("message.updated", {"info": info})) is None


@pytest.mark.parametrize("kind", ["permission.asked", "permission.updated"])
def test_permission_events_ask_for_approval_with_the_title(kind: str) -> None:
    props = REF["O2"]["event"]["properties"]
    ev = event(wrap(kind, props))
    assert ev is not None
    assert ev.kind is AgentEventKind.APPROVAL_REQUESTED
    assert ev.message == "Run git push origin main"
    assert ev.session_id == SESSION
    assert ev.run_id == RUN_ID
    assert ev.hook_name == kind


def test_permission_replied_resumes_running() -> None:
    ev = event(wrap("permission.replied", {"sessionID": SESSION, "response": "once"}))
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.RUNNING, None)


def test_question_uses_the_first_header_without_a_title() -> None:
    ev = event(REF["O3"])
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.INPUT_REQUESTED, "Pick a license")


def test_question_prefers_the_title() -> None:
    props = dict(REF["O3"]["event"]["properties"], title="Licensing")
    ev = event(wrap("question.asked", props))
    assert ev is not None
    assert ev.message == "Licensing"


def test_session_idle_succeeds() -> None:
    ev = event(REF["O4"])
    assert ev is not None
    assert (ev.kind, ev.run_id, ev.session_id) == (AgentEventKind.SUCCEEDED, RUN_ID, SESSION)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (
            {"name": "APIError", "data": {"message": "Upstream 500"}, "message": "outer"},
            "Upstream 500",
        ),
        ({"name": "UnknownError", "message": "Boom"}, "Boom"),
        ({"name": "MessageAbortedError"}, None),
        (None, None),
    ],
)
def test_session_error_fails(error: dict[str, Any] | None, message: str | None) -> None:
    props: dict[str, Any] = {"sessionID": SESSION}
    if error is not None:
        props["error"] = error
    ev = event(wrap("session.error", props))
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.FAILED, message)


@pytest.mark.parametrize(
    "payload",
    [
        {"run_id": "r"},
        {"run_id": "r", "event": "session.idle"},
        {"run_id": "r", "event": {"type": "session.idle"}},
        {"run_id": "r", "event": {"type": "session.idle", "properties": []}},
        {"run_id": "r", "event": {"properties": {}}},
        {"run_id": "r", "event": {"type": "session.updated", "properties": {}}},
    ],
)
def test_malformed_or_unfollowed_events_are_ignored(payload: dict[str, Any]) -> None:
    assert map_hook_payload(PROVIDER, payload) is None


def test_a_followed_event_without_run_id_is_an_error() -> None:
    payload = dict(REF["O4"])
    del payload["run_id"]
    mapping = map_hook_payload(PROVIDER, payload)
    assert mapping is not None and mapping.run_key is None
    with pytest.raises(MissingRunKey):
        event(payload)
