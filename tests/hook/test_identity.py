"""Deterministic ids: providers.md §1.3 vectors, retry identity, distinct payloads."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.ids import stable_uuid
from mytty.hook.adapt import adapt
from mytty.hook.identity import canonical_payload, hook_event_id, hook_run_id

from .conftest import SURFACE_ID, load_payloads, with_fields

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
payloads = st.dictionaries(st.text(), json_values, max_size=6)


@pytest.mark.parametrize(
    ("provider", "key", "expected"),
    [
        ("codex", "0190f6f3-2a50-7000-8000-000000000002", "E3AFD6C6-0E0D-553A-B325-B8869B388C26"),
        (
            "claude-code",
            "1d97fd10-721e-4d85-bf79-c63b502fa365",
            "F646BFCC-009D-50C2-B9EA-67DB30A2AAC0",
        ),
        ("cursor", "cursor-generation-01", "346640EE-E634-5B44-9814-691809BC78B0"),
        ("opencode", "msg_user_01", "F2320C43-7F21-5B0A-9A5D-D8AA216E3020"),
        ("antigravity", "ag-conversation-01", "2203585A-1F87-54DA-BC43-88FA1662FA8D"),
    ],
)
def test_run_id_vectors(provider: str, key: str, expected: str) -> None:
    assert hook_run_id(provider, key) == expected


def test_event_id_hashes_provider_kind_and_canonical_payload() -> None:
    payload = {"b": 1, "a": "x/y", "c": "é"}
    assert canonical_payload(payload) == '{"a":"x/y","b":1,"c":"é"}'
    assert hook_event_id("codex", "started", payload) == stable_uuid(
        "event", "codex", "started", '{"a":"x/y","b":1,"c":"é"}'
    )


def test_key_order_and_whitespace_of_the_input_do_not_matter() -> None:
    a = json.loads('{"session_id": "s", "hook_event_name": "Stop"}')
    b = json.loads('{"hook_event_name":"Stop","session_id":"s"}')
    assert hook_event_id("claude-code", "succeeded", a) == hook_event_id(
        "claude-code", "succeeded", b
    )


def test_a_retried_hook_gets_the_same_event_id_at_any_time() -> None:
    payload = load_payloads("codex")["captured"]["PostToolUse"]
    first = adapt("codex", payload, surface_id=SURFACE_ID, occurred_at=1_700_000_000)
    later = adapt("codex", dict(payload), surface_id=SURFACE_ID, occurred_at=1_700_000_030)
    assert first is not None and later is not None
    assert first.id == later.id
    assert first.run_id == later.run_id


def test_surface_does_not_enter_the_event_id() -> None:
    payload = load_payloads("claude-code")["captured"]["Stop"]
    a = adapt("claude-code", payload, surface_id=SURFACE_ID, occurred_at=0)
    b = adapt(
        "claude-code", payload, surface_id="00000000-0000-0000-0000-000000000000", occurred_at=0
    )
    assert a is not None and b is not None and a.id == b.id


def test_different_payloads_get_different_event_ids() -> None:
    cap = load_payloads("claude-code")["captured"]
    ids = set()
    for name in (
        "SessionStart",
        "UserPromptSubmit",
        "PermissionRequest",
        "Notification",
        "Stop",
        "StopFailure",
        "SessionEnd",
    ):
        ev = adapt("claude-code", cap[name], surface_id=SURFACE_ID, occurred_at=0)
        assert ev is not None
        ids.add(ev.id)
    other = with_fields(cap["Stop"], last_assistant_message="something else")
    ev = adapt("claude-code", other, surface_id=SURFACE_ID, occurred_at=0)
    assert ev is not None
    ids.add(ev.id)
    assert len(ids) == 8


def test_provider_and_kind_enter_the_event_id() -> None:
    payload = {"x": 1}
    assert (
        len(
            {
                hook_event_id("codex", "running", payload),
                hook_event_id("cursor", "running", payload),
                hook_event_id("codex", "started", payload),
            }
        )
        == 3
    )


@given(payloads)
def test_event_id_is_a_function_of_the_payload(payload: dict) -> None:
    first = hook_event_id("cursor", "running", payload)
    reparsed = json.loads(json.dumps(payload))
    assert hook_event_id("cursor", "running", reparsed) == first


@given(payloads, payloads)
def test_distinct_payloads_give_distinct_event_ids(a: dict, b: dict) -> None:
    if canonical_payload(a) != canonical_payload(b):
        assert hook_event_id("codex", "running", a) != hook_event_id("codex", "running", b)


def test_lone_surrogates_still_hash_deterministically() -> None:
    payload = json.loads('{"session_id":"s","turn_id":"t\\ud800","x":"\\udfff"}')
    first = hook_event_id("codex", "running", payload)
    assert first == hook_event_id("codex", "running", json.loads(json.dumps(payload)))
    assert hook_run_id("codex", payload["turn_id"]) != hook_run_id("codex", "t")
