"""mytty-agent-hook and a PermissionRequest: what it sends, what it prints, and that whatever
the controller does (nothing, junk, a death or a wedge mid-hold) the agent gets a valid reply
or nothing, exit 0, within the hold plus its grace."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mytty.hook.approval import (
    COMMAND_BUDGET,
    approval_object,
    clip,
    decision_output,
)
from mytty.protocol.limits import APPROVAL_HOLD_GRACE_S

from .conftest import HOOK_EXE, load_payloads, pane_env, with_fields

CLAUDE = load_payloads("claude-code")["captured"]["PermissionRequest"]
ALLOW = b'{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}\n'
DENY = (
    b'{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":'
    b'{"behavior":"deny","message":"use the fixture"}}}\n'
)


def codex_payload(**tool_input: Any) -> dict[str, Any]:
    return {
        "session_id": "01a23395-b695-7c32-aa0d-075878f778d9",
        "turn_id": "01a23395-b6bc-71a0-a582-9513b0f6ee95",
        "transcript_path": None,
        "cwd": "/w",
        "hook_event_name": "PermissionRequest",
        "model": "gpt-mock",
        "permission_mode": "default",
        "tool_name": tool_input.pop("tool", "Bash"),
        "tool_input": tool_input,
    }


# -- the approval object ------------------------------------------------------------------------


def test_a_bash_request_carries_its_command_description_and_cwd() -> None:
    obj = approval_object(with_fields(CLAUDE, cwd="/w"))
    assert obj is not None
    assert obj["tool"] == "Bash" and obj["command"] == CLAUDE["tool_input"]["command"]
    assert obj["cwd"] == "/w" and obj["truncated"] is False
    assert obj["description"] == CLAUDE["tool_input"]["description"]


def test_file_tools_carry_their_paths_and_a_diff() -> None:
    write = approval_object(
        with_fields(
            CLAUDE, tool_name="Write", tool_input={"file_path": "/w/a.txt", "content": "hi\n"}
        )
    )
    assert write is not None and write["paths"] == ["/w/a.txt"] and write["diff"] == "hi\n"
    edit = approval_object(
        with_fields(
            CLAUDE,
            tool_name="Edit",
            tool_input={"file_path": "/w/a.txt", "old_string": "a", "new_string": "b"},
        )
    )
    assert edit is not None and edit["diff"] == "-a\n+b\n"
    patch = "*** Begin Patch\n*** Add File: /w/x.txt\n+hi\n*** Update File: /w/y.txt\n*** End Patch"
    codex = approval_object(codex_payload(tool="apply_patch", command=patch))
    assert codex is not None and codex["paths"] == ["/w/x.txt", "/w/y.txt"]
    assert codex["command"] == patch


def test_an_unknown_tool_shows_its_input() -> None:
    obj = approval_object(with_fields(CLAUDE, tool_name="mcp__x__y", tool_input={"q": 1}))
    assert obj is not None and obj["diff"] == '{"q": 1}' and "command" not in obj


def test_a_command_too_long_or_not_unicode_is_cut_and_marked() -> None:
    huge = approval_object(with_fields(CLAUDE, tool_input={"command": "é" * 60000}))
    assert huge is not None and huge["truncated"] is True
    assert len(json.dumps(huge["command"], ensure_ascii=False).encode()) <= COMMAND_BUDGET
    odd = approval_object(with_fields(CLAUDE, tool_input={"command": "a\ud800b"}))
    assert odd is not None and odd["truncated"] is True and odd["command"] == "a\\ud800b"
    assert clip("\x00" * 100, 50) == ("\x00" * 8, True)  # six bytes of JSON each, 2 quotes


@pytest.mark.parametrize(
    ("line", "out"),
    [
        ({"decision": "allow"}, ALLOW),
        ({"decision": "deny", "message": "use the fixture"}, DENY),
        ({"decision": "allow", "message": "ignored"}, ALLOW),
        ({"decision": "deny", "message": ""}, ALLOW.replace(b'"allow"', b'"deny"')),
        ({"decision": None}, None),
        ({"decision": "ask"}, None),
        ("allow", None),
        (None, None),
    ],
)
def test_the_reply_is_the_providers_own_and_nothing_else(line: object, out: bytes | None) -> None:
    assert decision_output(line) == out


# -- the exchange, against a scripted controller ---------------------------------------------------


class Scripted:
    """One event socket that answers each connection by ``script``: (seconds to wait, bytes to
    send, or None to close)."""

    def __init__(self, path: Path, script: list[tuple[float, bytes | None]]) -> None:
        self.path = path
        self.script = script
        self.received: list[bytes] = []
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(path))
        self._sock.listen(4)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self._sock.settimeout(0.05)
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            data = b""
            while b"\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            self.received.append(data.split(b"\n", 1)[0])
            for delay, out in self.script:
                if self._stop.wait(delay):
                    break
                if out is None:
                    break
                try:
                    conn.sendall(out)
                except OSError:
                    break
            conn.close()

    def envelope(self) -> dict[str, Any]:
        decoded: dict[str, Any] = json.loads(self.received[-1])
        return decoded

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sock.close()


@pytest.fixture
def scripted(sock_dir: Path) -> Iterator[Any]:
    servers: list[Scripted] = []

    def make(script: list[tuple[float, bytes | None]]) -> Scripted:
        servers.append(Scripted(sock_dir / f"s{len(servers)}.sock", script))
        return servers[-1]

    yield make
    for server in servers:
        server.stop()


def run_hook(
    socket_path: Path | None, payload: dict[str, Any], provider: str = "claude-code"
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    started = time.monotonic()
    done = subprocess.run(
        [str(HOOK_EXE), provider],
        input=json.dumps(payload).encode(),
        env=pane_env(socket_path),
        capture_output=True,
        timeout=30,
        check=False,
    )
    return done, time.monotonic() - started


HELD = b'{"ok": true, "inserted": true, "approval": {"id": "A", "holdSeconds": 1.0}}\n'


def test_the_envelope_carries_the_approval(scripted: Any) -> None:
    server = scripted(
        [(0, b'{"ok": true, "inserted": false, "approval": {"id": "A", "decision": "allow"}}\n')]
    )
    done, _ = run_hook(server.path, CLAUDE)
    assert (done.returncode, done.stdout, done.stderr) == (0, ALLOW, b"")
    envelope = server.envelope()
    assert envelope["event"]["kind"] == "approval-requested"
    assert envelope["approval"]["command"] == CLAUDE["tool_input"]["command"]
    assert list(envelope)[-1] == "approval"


def test_a_held_request_prints_the_decision_that_comes(scripted: Any) -> None:
    server = scripted([(0, HELD), (0.3, b'{"decision": "deny", "message": "use the fixture"}\n')])
    done, took = run_hook(server.path, CLAUDE)
    assert (done.returncode, done.stdout) == (0, DENY) and 0.3 <= took < 3


def test_codex_gets_the_same_bytes(scripted: Any) -> None:
    server = scripted([(0, HELD), (0.1, b'{"decision": "allow"}\n')])
    done, _ = run_hook(server.path, codex_payload(command="touch x"), "codex")
    assert (done.returncode, done.stdout) == (0, ALLOW)


@pytest.mark.parametrize(
    "script",
    [
        [(0, HELD), (0.2, b'{"decision": null}\n')],  # the hold ended: the agent's dialog
        [(0, HELD), (0.2, None)],  # the controller died mid-hold
        [(0, HELD), (0.2, b"{junk\n")],
        [(0, HELD), (0.2, b'{"decision": "maybe"}\n')],
        [(0, b'{"ok": true, "inserted": true}\n')],  # a controller without the broker
        [(0, b'{"ok": true, "inserted": true, "approval": {"id": "A", "holdSeconds": 0}}\n')],
        [(0, b'{"ok": false, "error": "unauthorized"}\n')],
        [(0, b"not json\n")],
        [(0, None)],
    ],
    ids=[
        "null",
        "died",
        "junk",
        "unknown",
        "old-controller",
        "no-hold",
        "refused",
        "garbage",
        "closed",
    ],
)
def test_anything_else_is_no_decision_and_exit_zero(scripted: Any, script: list[Any]) -> None:
    server = scripted(script)
    done, took = run_hook(server.path, CLAUDE)
    assert (done.returncode, done.stdout) == (0, b"") and took < 3
    assert b"capability" not in done.stderr.lower() and b"C0FFEE" not in done.stderr


def test_a_controller_wedged_mid_hold_costs_the_hold_and_its_grace(scripted: Any) -> None:
    server = scripted([(0, HELD), (30, None)])
    done, took = run_hook(server.path, CLAUDE)
    assert (done.returncode, done.stdout) == (0, b"")
    assert 1.0 + APPROVAL_HOLD_GRACE_S - 0.2 <= took < 1.0 + APPROVAL_HOLD_GRACE_S + 1.5


def test_a_controller_that_never_answers_costs_the_delivery_deadline(scripted: Any) -> None:
    server = scripted([(30, None)])
    done, took = run_hook(server.path, CLAUDE)
    assert (done.returncode, done.stdout) == (0, b"") and took < 3


def test_no_controller_is_silence() -> None:
    done, _ = run_hook(Path("/nonexistent/events.sock"), CLAUDE)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_a_question_is_never_asked_for_a_decision(scripted: Any) -> None:
    server = scripted([(0, b'{"ok": true, "inserted": true}\n')])
    question = with_fields(CLAUDE, tool_name="AskUserQuestion", tool_input={"questions": []})
    done, _ = run_hook(server.path, question)
    assert (done.returncode, done.stdout) == (0, b"")
    envelope = server.envelope()
    assert "approval" not in envelope and envelope["event"]["kind"] == "input-requested"
