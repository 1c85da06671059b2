"""Antigravity: every row of providers.md §5.2 and the neutral stdout reply."""

from __future__ import annotations

from typing import Any

import pytest

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.hook.adapt import MissingRunKey, adapt, map_hook_payload
from mytty.hook.adapters import neutral_reply

from .conftest import SURFACE_ID, load_payloads, with_fields

PROVIDER = "antigravity"
REF = load_payloads(PROVIDER)["reference"]
CONVERSATION = "c3f1e9a2-5d47-4b8e-9a06-2e7c4d1b8f53"
RUN_ID = "1B48B5CF-DE7E-5C85-BD24-C3C35242262F"


def event(payload: dict[str, Any]) -> AgentEvent | None:
    return adapt(PROVIDER, payload, surface_id=SURFACE_ID, occurred_at=1_700_000_000)


def test_invocation_is_running_without_hook_name() -> None:
    ev = event(REF["A1"])
    assert ev is not None
    assert ev.kind is AgentEventKind.RUNNING
    assert ev.provider is AgentProvider.ANTIGRAVITY
    assert ev.run_id == RUN_ID
    assert ev.session_id == CONVERSATION
    assert ev.hook_name is None  # Pre and Post invocations look the same


def test_clean_stop_succeeds() -> None:
    ev = event(REF["A2"])
    assert ev is not None
    assert (ev.kind, ev.hook_name, ev.message, ev.run_id) == (
        AgentEventKind.SUCCEEDED,
        "Stop",
        None,
        RUN_ID,
    )


def test_max_steps_stop_fails_without_message() -> None:
    ev = event(REF["A3"])
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.FAILED, None)


def test_error_stop_fails_with_the_error() -> None:
    ev = event(with_fields(REF["A3"], terminationReason="error", error="Model unavailable"))
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.FAILED, "Model unavailable")


def test_a_non_empty_error_alone_fails_the_stop() -> None:
    ev = event(with_fields(REF["A2"], error="Quota exhausted"))
    assert ev is not None
    assert (ev.kind, ev.message) == (AgentEventKind.FAILED, "Quota exhausted")


@pytest.mark.parametrize("value", [True, False, None, 0])
def test_any_fully_idle_value_marks_a_stop(value: object) -> None:
    ev = event(with_fields(REF["A2"], fullyIdle=value))
    assert ev is not None
    assert ev.hook_name == "Stop"


def test_other_payloads_are_ignored() -> None:
    assert map_hook_payload(PROVIDER, {"conversationId": CONVERSATION, "step": 3}) is None


def test_missing_conversation_is_an_error_for_a_followed_payload() -> None:
    with pytest.raises(MissingRunKey):
        event(with_fields(REF["A1"], conversationId=...))


def test_neutral_replies() -> None:
    assert neutral_reply(PROVIDER, REF["A2"]) == b'{"decision":"stop"}\n'
    assert neutral_reply(PROVIDER, REF["A1"]) == b"{}\n"
    assert neutral_reply(PROVIDER, {"something": 1}) == b"{}\n"
    assert neutral_reply(PROVIDER, None) == b"{}\n"


@pytest.mark.parametrize("provider", ["codex", "claude-code", "opencode"])
def test_other_providers_print_nothing(provider: str) -> None:
    assert neutral_reply(provider, {"hook_event_name": "Stop"}) is None
