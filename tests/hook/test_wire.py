"""The hook's own envelope encoder writes exactly what protocol.envelope.encode_envelope writes."""

from __future__ import annotations

import time
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.events import (
    PROVIDER_ORDER,
    AgentEvent,
    AgentEventKind,
    AgentProvider,
    format_timestamp,
)
from mytty.core.ids import RunId, SurfaceId, stable_uuid
from mytty.hook import mapping
from mytty.hook.wire import encode_event_line, format_occurred_at
from mytty.protocol.envelope import decode_envelope, encode_envelope

uuids = st.text(min_size=1, max_size=8).map(lambda s: stable_uuid("x", s))
maybe_text = st.none() | st.text(max_size=40)


def test_provider_and_kind_vocabularies_match_core() -> None:
    assert tuple(p.value for p in PROVIDER_ORDER) == mapping.PROVIDERS
    kinds = {v for k, v in vars(mapping).items() if k.isupper() and isinstance(v, str)}
    assert kinds == {k.value for k in AgentEventKind}


@given(
    event_id=uuids,
    run_id=uuids,
    surface_id=uuids,
    provider=st.sampled_from(list(AgentProvider)),
    kind=st.sampled_from(list(AgentEventKind)),
    seconds=st.integers(min_value=0, max_value=4_000_000_000),
    capability=maybe_text,
    session_id=maybe_text,
    message=maybe_text,
    hook_name=maybe_text,
    tool_use_id=maybe_text,
    tool_name=maybe_text,
    answer=maybe_text,
    notices=st.booleans(),
)
def test_encoder_matches_encode_envelope(
    event_id: str,
    run_id: str,
    surface_id: str,
    provider: AgentProvider,
    kind: AgentEventKind,
    seconds: int,
    capability: str | None,
    session_id: str | None,
    message: str | None,
    hook_name: str | None,
    tool_use_id: str | None,
    tool_name: str | None,
    answer: str | None,
    notices: bool,
) -> None:
    fields: dict[str, Any] = {  # str or None each
        "session_id": session_id,
        "message": message,
        "hook_name": hook_name,
        "tool_use_id": tool_use_id,
        "tool_name": tool_name,
        "last_assistant_message": answer,
    }
    try:
        for value in (capability, *fields.values()):
            if value is not None:
                value.encode("utf-8")
    except UnicodeEncodeError:
        return  # the hook sanitises these away before encoding
    event = AgentEvent(
        id=event_id,
        run_id=RunId(run_id),
        surface_id=SurfaceId(surface_id),
        provider=provider,
        kind=kind,
        occurred_at=float(seconds),
        session_id=session_id,
        message=message,
        hook_name=hook_name,
        tool_use_id=tool_use_id,
        tool_name=tool_name,
        last_assistant_message=answer,
    )
    ours = encode_event_line(
        event_id=event_id,
        run_id=run_id,
        surface_id=surface_id,
        provider=provider.value,
        kind=kind.value,
        occurred_at=format_occurred_at(seconds),
        capability=capability,
        lead_notices=notices,
        **fields,
    )
    assert ours == encode_envelope(event, capability, lead_notices=notices)
    decoded = decode_envelope(ours.rstrip(b"\n"))
    assert decoded.event == event and decoded.lead_notices is notices


@given(st.integers(min_value=0, max_value=4_000_000_000_000))
def test_timestamp_has_milliseconds_like_core(millis: int) -> None:
    # Millisecond steps: core goes through datetime, which rounds to microseconds first.
    seconds = millis / 1000
    assert format_occurred_at(seconds) == format_timestamp(seconds, fractional=True)


@given(st.floats(min_value=0, max_value=4_000_000_000, allow_nan=False))
def test_timestamp_matches_core_for_any_float(seconds: float) -> None:
    assert format_occurred_at(seconds) == format_timestamp(seconds, fractional=True)


def test_timestamp_shape() -> None:
    text = format_occurred_at(time.time())
    assert len(text) == 24 and text.endswith("Z") and text[10] == "T" and text[19] == "."
    assert format_occurred_at(0) == "1970-01-01T00:00:00.000Z"
    assert format_occurred_at(1.5) == "1970-01-01T00:00:01.500Z"
