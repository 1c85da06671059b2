"""The event socket against a real controller: every reply code, framing, limits, authorization.

Seed: agent event protocol (transport, envelope, response codes); semantics §2.2-§2.4.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
from typing import Any

import pytest

from mytty.protocol.envelope import encode_envelope
from tests.e2e.events_support import (
    DUPLICATE,
    INSERTED,
    AgentPane,
    K,
    P,
    all_records,
    control,
    envelope_object,
    error_reply,
    exchange_raw,
    make_event,
    new_id,
    open_agent_pane,
    send_bytes,
    send_event,
    send_object,
    store_path,
    wait_for_pane_gone,
)
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

MAX_BODY = 64 * 1024


@pytest.fixture
def pane(shared_mytty: Mytty) -> AgentPane:
    return open_agent_pane(shared_mytty)


def _assert_serving(pane: AgentPane) -> None:
    """The controller still inserts a well-formed event after whatever the test threw at it."""
    pane.send(K.RUNNING, provider=P.OPENCODE)


# -- invalid-request ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"   \n", id="blank-line"),
        pytest.param(b"\x00\x01\x02garbage\x7f\n", id="garbage"),
        pytest.param(b"{", id="truncated-json"),
        pytest.param(b"null\n", id="null"),
        pytest.param(b"[]\n", id="array"),
        pytest.param(b'"envelope"\n', id="string"),
        pytest.param(b"{}\n", id="empty-object"),
        pytest.param(b"[" * 60000 + b"\n", id="deeply-nested"),
        pytest.param(
            b'{"schemaVersion":1,"capability":"\xff\xfe","event":{}}\n', id="invalid-utf8"
        ),
        pytest.param(b"\xef\xbb\xbf{}\n", id="utf8-bom"),
    ],
)
def test_undecodable_bytes_are_invalid_requests(pane: AgentPane, body: bytes) -> None:
    assert send_bytes(pane.m, body) == error_reply("invalid-request")
    _assert_serving(pane)


def _corrupt(envelope: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """Set (or, with the DELETE marker, remove) one dotted key of the envelope."""
    *parents, leaf = path.split(".")
    node = envelope
    for key in parents:
        node = node[key]
    if value is _DELETE:
        del node[leaf]
    else:
        node[leaf] = value
    return envelope


_DELETE = object()


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("schemaVersion", "1"),
        ("schemaVersion", True),
        ("schemaVersion", _DELETE),
        ("capability", 123),
        ("event", []),
        ("event", _DELETE),
        ("event.schemaVersion", "1"),
        ("event.schemaVersion", _DELETE),
        ("event.id", "B9AA8B83-B42D-4C11-B838-36B84C73032A"),
        ("event.id", {"rawValue": "not-a-uuid"}),
        ("event.id", _DELETE),
        ("event.runID", {"rawValue": 5}),
        ("event.runID", _DELETE),
        ("event.surfaceID", {}),
        ("event.surfaceID", _DELETE),
        ("event.provider", None),
        ("event.provider", "gemini"),
        ("event.provider", "Codex"),
        ("event.kind", 5),
        ("event.kind", "paused"),
        ("event.kind", "waiting-input"),
        ("event.kind", _DELETE),
        ("event.occurredAt", 1784185200),
        ("event.occurredAt", "yesterday"),
        ("event.occurredAt", "2026-13-01T00:00:00Z"),
        ("event.occurredAt", _DELETE),
        ("event.sessionID", ["s"]),
        ("event.message", 7),
        ("event.hookName", {}),
        ("event.toolUseID", False),
        ("event.toolName", 1),
    ],
    ids=lambda v: "absent" if v is _DELETE else None,
)
def test_wrong_types_and_unknown_values_are_invalid_requests(
    pane: AgentPane, path: str, value: Any
) -> None:
    envelope = envelope_object(pane.event(K.STARTED), pane.capability)
    assert send_object(pane.m, _corrupt(envelope, path, value)) == error_reply("invalid-request")
    _assert_serving(pane)


def test_decoding_is_checked_before_authorization(pane: AgentPane) -> None:
    envelope = envelope_object(pane.event(K.STARTED), "not-the-capability")
    envelope["event"]["kind"] = "paused"
    assert send_object(pane.m, envelope) == error_reply("invalid-request")


def test_explicit_nulls_and_unknown_keys_are_accepted(pane: AgentPane) -> None:
    envelope = envelope_object(pane.event(K.STARTED), pane.capability)
    envelope["event"].update(
        sessionID=None,
        message=None,
        hookName=None,
        toolUseID=None,
        toolName=None,
        somethingNew={"x": 1},
    )
    envelope["futureField"] = [1, 2, 3]
    assert send_object(pane.m, envelope) == INSERTED
    assert pane.entry()["agentState"] == "running"


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("message", "\\ud800 lone high surrogate"),
        ("sessionID", "\\udfff"),
        ("toolName", "x\\ud83d"),
    ],
)
def test_strings_that_are_not_unicode_are_invalid_and_harmless(
    pane: AgentPane, field: str, text: str
) -> None:
    envelope = envelope_object(pane.event(K.STARTED), pane.capability)
    envelope["event"][field] = "PLACEHOLDER"
    body = json.dumps(envelope).replace('"PLACEHOLDER"', f'"{text}"').encode() + b"\n"
    assert send_bytes(pane.m, body) == error_reply("invalid-request")
    _assert_serving(pane)


@pytest.mark.parametrize(
    "occurred_at",
    ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"],
)
def test_timestamps_outside_the_representable_range_are_invalid_and_harmless(
    pane: AgentPane, occurred_at: str
) -> None:
    envelope = envelope_object(pane.event(K.STARTED), pane.capability)
    envelope["event"]["occurredAt"] = occurred_at
    assert send_object(pane.m, envelope) == error_reply("invalid-request")
    _assert_serving(pane)


# -- timestamps ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("occurred_at", "normalized"),
    [
        ("2026-07-16T07:00:00Z", "2026-07-16T07:00:00.000Z"),
        ("2026-07-16T07:00:00.250Z", "2026-07-16T07:00:00.250Z"),
        ("2026-07-16T07:00:00.123456Z", "2026-07-16T07:00:00.123Z"),
        ("2026-07-16T16:00:00+09:00", "2026-07-16T07:00:00.000Z"),
        ("2026-07-16T02:30:00.5-04:30", "2026-07-16T07:00:00.500Z"),
        ("2026-07-16T07:00:00+00:00", "2026-07-16T07:00:00.000Z"),
        ("2026-07-16T07:00:00z", "2026-07-16T07:00:00.000Z"),
    ],
)
def test_timestamps_with_and_without_fraction_and_offset_are_accepted(
    occurred_at: str, normalized: str, mytty: Mytty
) -> None:
    pane = open_agent_pane(mytty)
    event = pane.event(K.STARTED)
    envelope = envelope_object(event, pane.capability)
    envelope["event"]["occurredAt"] = occurred_at
    assert send_object(mytty, envelope) == INSERTED
    [record] = all_records(mytty)
    assert record["runID"] == event.run_id
    assert record["occurredAt"] == normalized


# -- size limit and framing ------------------------------------------------------------------------


def _envelope_of_size(pane: AgentPane, size: int) -> bytes:
    """A valid envelope whose body (without the newline) is exactly ``size`` bytes."""
    base = encode_envelope(pane.event(K.RUNNING, message=""), pane.capability)
    pad = size - (len(base) - 1)
    assert pad > 0
    body = encode_envelope(pane.event(K.RUNNING, message="x" * pad), pane.capability)[:-1]
    assert len(body) == size
    return body


@pytest.mark.parametrize("terminator", [b"\n", b""], ids=["newline", "eof"])
def test_64_kib_is_accepted_and_one_byte_more_is_too_large(
    pane: AgentPane, terminator: bytes
) -> None:
    pane.send(K.STARTED, provider=P.OPENCODE)
    assert send_bytes(pane.m, _envelope_of_size(pane, MAX_BODY) + terminator) == INSERTED
    assert send_bytes(pane.m, _envelope_of_size(pane, MAX_BODY + 1) + terminator) == error_reply(
        "request-too-large"
    )
    _assert_serving(pane)


def test_oversize_without_newline_or_eof_is_answered_at_once(pane: AgentPane) -> None:
    # The server must not wait for the end of a request it already knows is too large.
    raw = exchange_raw(pane.m, _envelope_of_size(pane, MAX_BODY + 1), half_close=False)
    assert json.loads(raw) == error_reply("request-too-large")


def test_eof_terminates_a_request_without_newline(pane: AgentPane) -> None:
    without_newline = encode_envelope(pane.event(K.STARTED), pane.capability)[:-1]
    assert send_bytes(pane.m, without_newline) == INSERTED


def test_bytes_after_the_newline_are_ignored(pane: AgentPane) -> None:
    body = encode_envelope(pane.event(K.STARTED), pane.capability) + b"{not json at all\n"
    assert send_bytes(pane.m, body) == INSERTED


def _closed_without_reply(sock: socket.socket) -> bool:
    """True once the server has dropped ``sock``; fails if it sent anything."""
    try:
        data = sock.recv(65536, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True
    assert data == b"", f"a dropped client got a reply: {data!r}"
    return True


def test_a_client_that_never_finishes_is_dropped_without_blocking_others(pane: AgentPane) -> None:
    partial = encode_envelope(pane.event(K.STARTED), pane.capability)[:40]
    stalled = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        stalled.connect(pane.m.event_socket)
        stalled.sendall(partial)
        # Other clients are served while the stalled one is still connected.
        for _ in range(5):
            _assert_serving(pane)
        assert control(pane.m, {"type": "list"})["type"] == "list"
        assert not _closed_without_reply(stalled), "the stalled client was dropped too early"
        # ...and the stalled one is dropped after a bounded time, silently.
        wait_until(
            lambda: _closed_without_reply(stalled),
            timeout=15,
            message="the stalled client to be dropped",
        )
    finally:
        stalled.close()


def test_a_trickling_client_is_dropped_without_blocking_others(pane: AgentPane) -> None:
    event = pane.event(K.STARTED)
    body = encode_envelope(event, pane.capability)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(pane.m.event_socket)
    stop = threading.Event()
    outcome: dict[str, Any] = {}

    def trickle() -> None:
        # One byte every 50 ms: the whole envelope would take many seconds.
        try:
            for byte in body[:-1]:
                sock.sendall(bytes([byte]))
                if stop.wait(0.05):
                    return
            outcome["finished"] = True
        except OSError as exc:
            outcome["dropped"] = exc

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        for _ in range(5):
            _assert_serving(pane)
        wait_until(
            lambda: _closed_without_reply(sock),
            timeout=15,
            message="the trickling client to be dropped",
        )
        assert "finished" not in outcome, "the trickling client was allowed to finish"
    finally:
        stop.set()
        thread.join(5)
        sock.close()
    # The trickled event never reached the store.
    assert all(r["runID"] != event.run_id for r in all_records(pane.m))


# -- unauthorized ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("outer", "inner"), [(2, 1), (1, 2), (0, 1), (1, 0), (-1, -1)])
def test_wrong_schema_versions_are_unauthorized(pane: AgentPane, outer: int, inner: int) -> None:
    envelope = envelope_object(pane.event(K.STARTED), pane.capability)
    envelope["schemaVersion"] = outer
    envelope["event"]["schemaVersion"] = inner
    assert send_object(pane.m, envelope) == error_reply("unauthorized")
    assert "agentState" not in pane.entry()


@pytest.mark.parametrize("capability", [None, "", "0" * 64, "not-hex-at-all"])
def test_missing_or_wrong_capability_is_unauthorized(
    pane: AgentPane, capability: str | None
) -> None:
    assert send_event(pane.m, pane.event(K.STARTED), capability) == error_reply("unauthorized")
    assert "agentState" not in pane.entry()


def test_another_panes_capability_is_unauthorized(shared_mytty: Mytty) -> None:
    a, b = open_agent_pane(shared_mytty), open_agent_pane(shared_mytty)
    assert a.capability != b.capability
    assert send_event(shared_mytty, b.event(K.STARTED), a.capability) == error_reply("unauthorized")
    assert send_event(shared_mytty, a.event(K.STARTED), b.capability) == error_reply("unauthorized")
    assert "agentState" not in a.entry() and "agentState" not in b.entry()
    # Each capability still works for its own pane.
    b.send(K.STARTED)
    assert b.entry()["agentState"] == "running"


def test_unknown_surface_is_unauthorized(pane: AgentPane) -> None:
    stray = make_event(new_id(), K.STARTED)
    assert send_event(pane.m, stray, pane.capability) == error_reply("unauthorized")


def test_a_closed_panes_capability_is_revoked(shared_mytty: Mytty) -> None:
    pane = open_agent_pane(shared_mytty)
    run = new_id()
    pane.send(K.STARTED, run_id=run)
    shared_mytty.ctl("close-pane", pane.pane_id).ok()
    wait_for_pane_gone(shared_mytty, pane.pane_id)
    assert send_event(shared_mytty, pane.event(K.SUCCEEDED, run_id=run), pane.capability) == (
        error_reply("unauthorized")
    )
    assert send_event(shared_mytty, pane.event(K.STARTED), pane.capability) == error_reply(
        "unauthorized"
    )


@pytest.mark.parametrize("session_id", [None, "019a0000-0000-7000-8000-000000000001"])
def test_codex_events_without_a_routable_session_are_unauthorized(
    pane: AgentPane, session_id: str | None
) -> None:
    # The pane's own capability and surface do not help: codex is routed by session only.
    event = pane.event(K.STARTED, provider=P.CODEX, session_id=session_id)
    assert send_event(pane.m, event, pane.capability) == error_reply("unauthorized")
    assert "agentState" not in pane.entry()


# -- idempotency -----------------------------------------------------------------------------------


def test_a_retried_id_is_not_inserted_again(pane: AgentPane) -> None:
    started = pane.send(K.STARTED)
    assert pane.resend(started) == DUPLICATE
    assert pane.resend(started) == DUPLICATE
    # Same id, different content: the first stored event wins, silently.
    changed = pane.event(K.FAILED, event_id=started.id, run_id=started.run_id, message="other")
    assert pane.resend(changed) == DUPLICATE
    assert pane.entry()["agentState"] == "running"
    records = [r for r in all_records(pane.m) if r["runID"] == started.run_id]
    assert [r["kind"] for r in records] == ["started"]


def test_an_event_rejected_as_unauthorized_can_be_sent_again(pane: AgentPane) -> None:
    event = pane.event(K.STARTED)
    assert send_event(pane.m, event, "wrong") == error_reply("unauthorized")
    assert pane.resend(event) == INSERTED


# -- internal-error --------------------------------------------------------------------------------


def test_a_failing_store_answers_internal_error_and_the_controller_keeps_serving(
    mytty: Mytty,
) -> None:
    pane = open_agent_pane(mytty)
    pane.send(K.STARTED, provider=P.OPENCODE)
    blocked = pane.event(K.RUNNING, provider=P.OPENCODE, run_id=new_id())
    # Hold the write lock longer than the controller's 1 s busy timeout.
    locker = sqlite3.connect(str(store_path(mytty)), timeout=5, isolation_level=None)
    try:
        locker.execute("BEGIN EXCLUSIVE")
        assert pane.resend(blocked) == error_reply("internal-error")
        # The control socket still answers while the store is down.
        assert control(mytty, {"type": "list"})["type"] == "list"
        assert "agentState" in pane.entry()
        locker.execute("ROLLBACK")
    finally:
        locker.close()
    # Nothing of the failed event was applied, so the retry is a first insert.
    assert pane.resend(blocked) == INSERTED
    assert pane.resend(blocked) == DUPLICATE
    assert any(r["runID"] == blocked.run_id for r in all_records(mytty))
    assert "could not store event" in mytty.log()


# -- secrecy ---------------------------------------------------------------------------------------


def test_the_capability_never_appears_in_replies_or_the_log(mytty: Mytty) -> None:
    a, b = open_agent_pane(mytty), open_agent_pane(mytty)
    secrets = {a.capability, b.capability}
    replies: list[bytes] = []

    def raw(data: bytes, **kw: Any) -> None:
        replies.append(exchange_raw(mytty, data, **kw))

    raw(encode_envelope(a.event(K.STARTED), a.capability))
    raw(encode_envelope(a.event(K.STARTED), a.capability)[:-1])
    raw(encode_envelope(b.event(K.STARTED), a.capability))  # wrong pane
    raw(encode_envelope(a.event(K.STARTED, provider=P.CODEX, session_id="s"), a.capability))
    env = envelope_object(a.event(K.STARTED), a.capability)
    env["schemaVersion"] = 2
    raw(json.dumps(env).encode())
    env["event"]["kind"] = a.capability  # the capability as an unknown kind
    raw(json.dumps(env).encode())
    env = envelope_object(a.event(K.STARTED, message=a.capability), b.capability)
    raw(json.dumps(env).encode())
    raw(_envelope_of_size(a, MAX_BODY + 1))
    raw(a.capability.encode() + b"\n")
    # A closed pane's capability, and the store being down.
    mytty.ctl("close-pane", b.pane_id).ok()
    wait_for_pane_gone(mytty, b.pane_id)
    raw(encode_envelope(b.event(K.STARTED), b.capability))
    for reply in replies:
        assert reply.count(b"\n") == 1, reply
        assert set(json.loads(reply)) <= {"ok", "inserted", "error"}, reply
    control_replies = [
        json.dumps(control(mytty, {"type": "list"})),
        json.dumps(control(mytty, {"type": "events", "afterSequence": 0, "timeoutSeconds": 0})),
        json.dumps(control(mytty, {"type": "attention"})),
        mytty.ctl("list").stdout,
    ]
    mytty.stop()  # flush and close the log
    text = b"".join(replies).decode() + "".join(control_replies) + mytty.log()
    for secret in secrets:
        assert secret.upper() not in text.upper()
