"""Shared helpers for the event-protocol end-to-end tests (real controller, real tmux).

Events are built with the real codec (``AgentEvent`` + ``encode_envelope``) and sent over the
event socket exactly as the hook helper does: one envelope, a newline, ``shutdown(SHUT_WR)``.
Each agent pane is a fresh ``new-tab``, so it carries the pane environment the controller
issued (``MYTTY_SURFACE_ID`` / ``MYTTY_EVENT_CAPABILITY``), read back from /proc.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId
from mytty.protocol.envelope import encode_envelope
from mytty.protocol.wire import agent_event
from tests.support.harness import Mytty, wait_until

K = AgentEventKind
P = AgentProvider


def new_id() -> str:
    """A fresh uppercase UUID, as the hook helper would put in an event."""
    return str(uuid.uuid4()).upper()


def make_event(
    surface_id: str,
    kind: AgentEventKind | str,
    *,
    run_id: str | None = None,
    provider: AgentProvider = P.CLAUDE_CODE,
    event_id: str | None = None,
    occurred_at: float | None = None,
    session_id: str | None = None,
    message: str | None = None,
    hook_name: str | None = None,
    tool_name: str | None = None,
) -> AgentEvent:
    return AgentEvent(
        id=event_id or new_id(),
        run_id=RunId(run_id or new_id()),
        surface_id=SurfaceId(surface_id),
        provider=provider,
        kind=AgentEventKind(kind),
        occurred_at=time.time() if occurred_at is None else occurred_at,
        session_id=session_id,
        message=message,
        hook_name=hook_name,
        tool_name=tool_name,
    )


def envelope_object(event: AgentEvent, capability: str | None) -> dict[str, Any]:
    """The envelope as a JSON object, for tests that corrupt one field."""
    obj: dict[str, Any] = {"schemaVersion": 1}
    if capability is not None:
        obj["capability"] = capability
    obj["event"] = agent_event(event)
    return obj


def exchange_raw(m: Mytty, data: bytes, *, half_close: bool = True, timeout: float = 15.0) -> bytes:
    """Send ``data`` on the event socket and return every byte the controller answers."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(m.event_socket)
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        s.close()


def send_bytes(m: Mytty, data: bytes, *, half_close: bool = True) -> dict[str, Any]:
    """Send raw bytes on the event socket; return the one decoded reply line."""
    raw = exchange_raw(m, data, half_close=half_close)
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1, f"expected one reply line, got {raw!r}"
    reply: dict[str, Any] = json.loads(raw)
    return reply


def send_object(m: Mytty, obj: Any) -> dict[str, Any]:
    return send_bytes(m, json.dumps(obj, separators=(",", ":")).encode() + b"\n")


def send_event(m: Mytty, event: AgentEvent, capability: str | None) -> dict[str, Any]:
    return send_bytes(m, encode_envelope(event, capability))


def error_reply(code: str) -> dict[str, Any]:
    return {"ok": False, "error": code}


INSERTED = {"ok": True, "inserted": True}
DUPLICATE = {"ok": True, "inserted": False}


@dataclass(frozen=True)
class AgentPane:
    """A pane the controller created, with the event identity it was given."""

    m: Mytty
    pane_id: str
    capability: str

    def event(self, kind: AgentEventKind | str, **fields: Any) -> AgentEvent:
        return make_event(self.pane_id, kind, **fields)

    def send(self, kind: AgentEventKind | str, **fields: Any) -> AgentEvent:
        """Send one event for this pane and require that it was newly inserted."""
        event = self.event(kind, **fields)
        reply = send_event(self.m, event, self.capability)
        assert reply == INSERTED, f"{kind} for {self.pane_id}: {reply}"
        return event

    def resend(self, event: AgentEvent) -> dict[str, Any]:
        return send_event(self.m, event, self.capability)

    def entry(self) -> dict[str, Any]:
        return pane_entry(self.m, self.pane_id)


def open_agent_pane(m: Mytty) -> AgentPane:
    """A new tab with the pane environment; its identity is read from the pane's process."""
    pane_id = m.ctl("new-tab").json["paneID"]
    env = pane_env_when_exec(m, pane_id)
    assert env["MYTTY_SURFACE_ID"] == pane_id
    capability = env["MYTTY_EVENT_CAPABILITY"]
    assert capability, "the pane has no capability"
    return AgentPane(m, pane_id, capability)


def pane_env_when_exec(m: Mytty, pane_id: str) -> dict[str, str]:
    """The pane's environment once its first process has exec'd.

    Right after tmux forks a pane, /proc/<pid>/environ still shows the tmux server's
    environment (the child has not exec'd yet), so poll until the pane's own variables appear.
    """

    def probe() -> dict[str, str] | None:
        try:
            env = m.pane_env(pane_id)
        except OSError:
            return None
        return env if "MYTTY_SURFACE_ID" in env else None

    return wait_until(probe, timeout=10, message=f"the environment of pane {pane_id}")


def pane_entry(m: Mytty, pane_id: str) -> dict[str, Any]:
    for entry in m.panes():
        if entry["paneID"] == pane_id:
            return entry
    raise AssertionError(f"pane {pane_id} is not listed")


# -- control-socket requests (raw, so the reply shape is the controller's own) ------------------


def control(m: Mytty, obj: dict[str, Any], timeout: float = 20.0) -> dict[str, Any]:
    return m.request(obj, timeout=timeout)


def wait_request(m: Mytty, pane_id: str, until: str, timeout_s: float) -> dict[str, Any]:
    request = {"type": "wait", "paneID": pane_id, "until": until, "timeoutSeconds": timeout_s}
    return control(m, request, timeout=timeout_s + 15)


def events_request(m: Mytty, after: int | None, timeout_s: float = 0.0) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": "events", "timeoutSeconds": timeout_s}
    if after is not None:
        obj["afterSequence"] = after
    return control(m, obj, timeout=timeout_s + 15)


def drain_ledger(m: Mytty, cursor: int) -> Iterator[dict[str, Any]]:
    """The documented consumer loop: feed ``latestSequence`` back until nothing is pending."""
    while True:
        page = events_request(m, cursor, 0)
        assert page["type"] == "events", page
        if page["timedOut"]:
            assert page["records"] == [] and page["latestSequence"] == cursor, page
            return
        assert page["records"], page
        yield from page["records"]
        cursor = page["latestSequence"]


def all_records(m: Mytty) -> list[dict[str, Any]]:
    return list(drain_ledger(m, 0))


# -- the store, read from the outside ------------------------------------------------------------


def store_path(m: Mytty) -> Path:
    return m.mytty_home / "events.sqlite3"


def stored_events(m: Mytty) -> list[dict[str, Any]]:
    """Every stored event payload, in arrival order (read-only, never blocks the writer)."""
    conn = sqlite3.connect(f"file:{store_path(m)}?mode=ro", uri=True, timeout=5)
    try:
        rows = conn.execute("SELECT payload FROM agent_event ORDER BY sequence").fetchall()
    finally:
        conn.close()
    return [json.loads(payload) for (payload,) in rows]


# -- panes ---------------------------------------------------------------------------------------


def run_in_foreground(m: Mytty, pane: AgentPane, command: str, comm: str) -> None:
    """Type ``command`` into the pane's shell and wait until ``comm`` is its foreground process."""
    m.ctl("send", pane.pane_id, command, "--enter").ok()
    wait_until(
        lambda: pane.entry()["command"] == comm,
        timeout=15,
        message=f"{comm} in the foreground of {pane.pane_id}",
    )


def wait_for_pane_gone(m: Mytty, pane_id: str) -> None:
    wait_until(
        lambda: all(p["paneID"] != pane_id for p in m.panes()),
        timeout=10,
        message=f"pane {pane_id} to disappear",
    )


# -- fixtures --------------------------------------------------------------------------------------


def kill9_and_settle(m: Mytty) -> None:
    """``kill -9`` the controller, then wait until tmux has noticed (its private session ends).

    The private session's keepalive polls for the controller's death about once a second and
    then closes the session; a controller restarted before that adopts the doomed session and
    loses its tmux connection a moment later (reported to the lead; app/bootstrap territory).
    """
    m.kill9()
    settle_after_kill(m)


def settle_after_kill(m: Mytty) -> None:
    """Wait until tmux has noticed a killed controller: its private session has ended."""

    def private_session_gone() -> bool:
        done = subprocess.run(
            ["tmux", "-S", m.socket, "has-session", "-t", "=_mytty"],
            env=m.env,
            capture_output=True,
            check=False,
        )
        return done.returncode != 0

    wait_until(private_session_gone, timeout=10, message="the private tmux session to end")
