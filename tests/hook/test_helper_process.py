"""The real ``mytty-agent-hook`` executable against a fake event socket.

Each test spawns the installed console script with a clean environment and checks what the
server received, the exit status, stdout (the provider's neutral reply) and stderr (one line).
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from mytty.core.ids import stable_uuid
from mytty.hook.wire import NIL_SURFACE_ID
from mytty.protocol.envelope import decode_envelope
from mytty.protocol.limits import MAX_HOOK_STDIN_BYTES, MAX_REQUEST_BYTES

from .conftest import (
    CAPABILITY,
    HOOK_EXE,
    OK_REPLY,
    SURFACE_ID,
    FakeEventServer,
    load_payloads,
    pane_env,
    run_hook,
    with_fields,
)

CLAUDE = load_payloads("claude-code")["captured"]
CODEX = load_payloads("codex")["captured"]
CURSOR = load_payloads("cursor")["reference"]
AGY = load_payloads("antigravity")["reference"]

#: Deadline for "returns within ~2 s" (a call still running then fails with TimeoutExpired):
#: catches a hang, tolerates a loaded machine.
WEDGED_BOUND_S = 4.0


def stderr_lines(done: Any) -> list[str]:
    return done.stderr.decode().splitlines()


def assert_one_error_line(done: Any, fragment: str) -> None:
    assert done.returncode == 1
    lines = stderr_lines(done)
    assert len(lines) == 1, lines
    assert lines[0].startswith("mytty-agent-hook: ")
    assert fragment in lines[0]
    assert CAPABILITY.encode() not in done.stderr + done.stdout


# -- delivery -----------------------------------------------------------------------------------


def test_delivers_one_envelope_and_exits_quietly(event_server: FakeEventServer) -> None:
    payload = CLAUDE["UserPromptSubmit"]
    before = time.time() - 0.001
    done = run_hook(["claude-code"], payload, pane_env(event_server.path))
    after = time.time() + 0.001
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert len(event_server.lines) == 1
    envelope = decode_envelope(event_server.lines[0])
    assert envelope.capability == CAPABILITY
    event = envelope.event
    assert event.provider.value == "claude-code"
    assert event.kind.value == "started"
    assert event.surface_id == SURFACE_ID
    assert event.session_id == payload["session_id"]
    assert event.run_id == stable_uuid("run", "claude-code", payload["prompt_id"])
    assert event.hook_name == "UserPromptSubmit"
    assert before <= event.occurred_at <= after
    wire = event_server.envelopes()[0]["event"]
    assert wire["occurredAt"].endswith("Z") and len(wire["occurredAt"]) == 24  # milliseconds
    assert "message" not in wire and "toolName" not in wire  # absent fields are omitted


def test_a_huge_final_answer_is_clipped_to_fit_the_envelope(event_server: FakeEventServer) -> None:
    answer = "Summary first. " + "z" * 300_000 + " Conclusion last."
    payload = with_fields(CLAUDE["Stop"], last_assistant_message=answer)
    done = run_hook(["claude-code"], payload, pane_env(event_server.path))
    assert (done.returncode, done.stderr) == (0, b"")
    (line,) = event_server.lines
    assert len(line) < MAX_REQUEST_BYTES
    sent = decode_envelope(line).event.last_assistant_message
    assert sent is not None
    assert sent.startswith("Summary first. ") and sent.endswith(" Conclusion last.")
    assert "mytty cut" in sent


def test_a_retried_hook_sends_the_same_event_id(event_server: FakeEventServer) -> None:
    env = pane_env(event_server.path)
    for _ in range(2):
        assert run_hook(["codex"], CODEX["PostToolUse"], env).returncode == 0
    first, second = event_server.envelopes()
    assert first["event"]["id"] == second["event"]["id"]
    assert first["event"]["toolUseID"] == CODEX["PostToolUse"]["tool_use_id"]


def test_an_inserted_false_reply_is_success(sock_dir: Path) -> None:
    server = FakeEventServer(sock_dir / "e.sock", reply_bytes=b'{"ok":true,"inserted":false}\n')
    try:
        done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(server.path))
    finally:
        server.stop()
    assert (done.returncode, done.stderr) == (0, b"")


def test_events_mytty_does_not_follow_are_not_sent(event_server: FakeEventServer) -> None:
    done = run_hook(["claude-code"], CLAUDE["PreToolUse"], pane_env(event_server.path))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert event_server.connections == 0


# -- codex and its optional pane identity ----------------------------------------------------


def test_codex_sends_the_pane_identity_when_present(event_server: FakeEventServer) -> None:
    done = run_hook(["codex"], CODEX["UserPromptSubmit"], pane_env(event_server.path))
    assert done.returncode == 0
    (envelope,) = event_server.envelopes()
    assert envelope["capability"] == CAPABILITY
    assert envelope["event"]["surfaceID"] == {"rawValue": SURFACE_ID}


def test_codex_works_without_surface_or_capability(event_server: FakeEventServer) -> None:
    env = pane_env(event_server.path, MYTTY_SURFACE_ID=None, MYTTY_EVENT_CAPABILITY=None)
    done = run_hook(["codex"], CODEX["UserPromptSubmit"], env)
    assert (done.returncode, done.stderr) == (0, b"")
    (envelope,) = event_server.envelopes()
    assert "capability" not in envelope
    assert envelope["event"]["surfaceID"] == {"rawValue": NIL_SURFACE_ID}
    assert envelope["event"]["sessionID"] == CODEX["UserPromptSubmit"]["session_id"]
    decode_envelope(event_server.lines[0])  # still a valid envelope


@pytest.mark.parametrize(
    ("missing", "fragment"),
    [
        ({"MYTTY_SURFACE_ID": None}, "MYTTY_SURFACE_ID"),
        ({"MYTTY_SURFACE_ID": "not-a-uuid"}, "MYTTY_SURFACE_ID"),
        ({"MYTTY_EVENT_CAPABILITY": None}, "MYTTY_EVENT_CAPABILITY"),
        ({"MYTTY_EVENT_CAPABILITY": ""}, "MYTTY_EVENT_CAPABILITY"),
    ],
)
def test_other_providers_need_surface_and_capability(
    event_server: FakeEventServer, missing: dict[str, str | None], fragment: str
) -> None:
    done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(event_server.path, **missing))
    assert_one_error_line(done, fragment)
    assert event_server.connections == 0


# -- outside mytty, controller absent ----------------------------------------------------------


@pytest.mark.parametrize("value", [None, ""])
def test_outside_mytty_exits_0_silently(value: str | None) -> None:
    env = pane_env(None, MYTTY_EVENT_SOCKET=value)
    done = run_hook(["claude-code"], CLAUDE["Stop"], env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


@pytest.mark.parametrize("payload", [b"not json", b"[1,2]", b"", b"\xff\xfe"])
def test_outside_mytty_even_a_bad_payload_is_silent(payload: bytes) -> None:
    done = run_hook(["codex"], payload, pane_env(None))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_missing_socket_file_exits_0_silently(sock_dir: Path) -> None:
    done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(sock_dir / "gone.sock"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_missing_socket_directory_exits_0_silently(sock_dir: Path) -> None:
    done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(sock_dir / "no" / "e.sock"))
    assert (done.returncode, done.stderr) == (0, b"")


def test_stale_socket_exits_0_silently(sock_dir: Path) -> None:
    path = sock_dir / "stale.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # the file stays, nobody listens: ECONNREFUSED
    done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(path))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_relative_socket_path_is_an_error() -> None:
    done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env("relative/event.sock"))
    assert_one_error_line(done, "absolute")


# -- rejected and broken replies ---------------------------------------------------------------


@pytest.mark.parametrize("code", ["unauthorized", "invalid-request", "request-too-large"])
def test_a_rejected_event_is_one_line_without_the_capability(sock_dir: Path, code: str) -> None:
    reply = json.dumps({"ok": False, "error": code}).encode() + b"\n"
    server = FakeEventServer(sock_dir / "e.sock", reply_bytes=reply)
    try:
        done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(server.path))
    finally:
        server.stop()
    assert_one_error_line(done, f"mytty rejected the event: {code}")
    assert stderr_lines(done) == [f"mytty-agent-hook: mytty rejected the event: {code}"]


def test_a_reply_echoing_the_capability_is_redacted(sock_dir: Path) -> None:
    reply = json.dumps({"ok": False, "error": f"bad {CAPABILITY}"}).encode() + b"\n"
    server = FakeEventServer(sock_dir / "e.sock", reply_bytes=reply)
    try:
        done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(server.path))
    finally:
        server.stop()
    assert_one_error_line(done, "rejected")


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (b"", "without answering"),
        (b"garbage\n", "not valid JSON"),
        (b"[1]\n", "not a JSON object"),
        (b'{"ok":"maybe"}\n', "not a valid event reply"),
        (b'{"ok":false,"error":"evil\\u001b[2Jcode\\nsecond"}\n', "evil [2Jcode second"),
        (b"x" * (70 * 1024), "too large"),
    ],
)
def test_broken_replies_are_one_line_errors(sock_dir: Path, reply: bytes, fragment: str) -> None:
    server = FakeEventServer(sock_dir / "e.sock", reply_bytes=reply)
    try:
        done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(server.path))
    finally:
        server.stop()
    assert_one_error_line(done, fragment)


def test_a_reset_connection_is_retried_once(sock_dir: Path) -> None:
    server = FakeEventServer(sock_dir / "e.sock", mode="reset_first")
    try:
        done = run_hook(["claude-code"], CLAUDE["Stop"], pane_env(server.path))
    finally:
        server.stop()
    assert (done.returncode, done.stderr) == (0, b"")
    assert server.connections == 2
    assert len(server.lines) == 1


# -- a wedged controller -------------------------------------------------------------------------


def test_a_controller_that_never_answers_costs_about_two_seconds(sock_dir: Path) -> None:
    server = FakeEventServer(sock_dir / "e.sock", mode="wedge")
    try:
        # The deadline: a helper still waiting after WEDGED_BOUND_S fails with TimeoutExpired.
        done = run_hook(
            ["claude-code"], CLAUDE["Stop"], pane_env(server.path), timeout=WEDGED_BOUND_S
        )
    finally:
        server.stop()
    assert_one_error_line(done, "timed out")
    assert 1 <= server.connections <= 2  # at most one retry


def test_a_controller_that_never_accepts_is_bounded(sock_dir: Path) -> None:
    path = sock_dir / "e.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(0)
    fillers: list[socket.socket] = []
    try:
        for _ in range(64):  # fill the accept queue so further connects cannot complete
            filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            filler.setblocking(False)
            try:
                filler.connect(str(path))
            except BlockingIOError:
                filler.close()
                break
            fillers.append(filler)
        else:
            pytest.fail("could not fill the listen backlog")
        done = run_hook(["cursor"], CURSOR["U2"], pane_env(path), timeout=WEDGED_BOUND_S)
    finally:
        for filler in fillers:
            filler.close()
        listener.close()
    assert done.returncode == 1
    assert done.stdout == b"{}\n"
    assert len(stderr_lines(done)) == 1


# -- bad input and usage ---------------------------------------------------------------------------


def test_oversized_stdin_is_an_error(event_server: FakeEventServer) -> None:
    big = json.dumps({"hook_event_name": "Stop", "pad": "x" * MAX_HOOK_STDIN_BYTES}).encode()
    done = run_hook(["claude-code"], big, pane_env(event_server.path))
    assert_one_error_line(done, "exceeds 1 MiB")
    assert event_server.connections == 0


def test_oversized_stdin_is_drained_so_the_agent_can_finish_writing(sock_dir: Path) -> None:
    proc = subprocess.Popen(
        [str(HOOK_EXE), "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=pane_env(sock_dir / "missing.sock"),
    )
    assert proc.stdin is not None
    proc.stdin.write(b" " * (3 * MAX_HOOK_STDIN_BYTES))  # raises BrokenPipeError if not drained
    proc.stdin.close()
    assert proc.wait(timeout=20) == 1
    assert proc.stderr is not None and b"exceeds 1 MiB" in proc.stderr.read()


def test_stdin_that_never_closes_is_bounded(event_server: FakeEventServer) -> None:
    proc = subprocess.Popen(
        [str(HOOK_EXE), "cursor"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=pane_env(event_server.path),
    )
    try:
        code = proc.wait(timeout=WEDGED_BOUND_S)  # the deadline; TimeoutExpired fails
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
    assert code == 1
    assert proc.stdout is not None and proc.stdout.read() == b"{}\n"
    assert proc.stderr is not None and b"timed out reading" in proc.stderr.read()
    assert event_server.connections == 0


def test_stdin_of_exactly_the_limit_is_read(event_server: FakeEventServer) -> None:
    payload = json.dumps(CLAUDE["Stop"]).encode()
    padded = payload + b" " * (MAX_HOOK_STDIN_BYTES - len(payload))
    assert len(padded) == MAX_HOOK_STDIN_BYTES
    done = run_hook(["claude-code"], padded, pane_env(event_server.path))
    assert (done.returncode, done.stderr) == (0, b"")


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        (b"{not json", "not valid JSON"),
        (b"", "not valid JSON"),
        (b"\xff\xfe\x00", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'"text"', "not a JSON object"),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),  # recursion depth
    ],
)
def test_unreadable_payloads_are_errors(
    event_server: FakeEventServer, payload: bytes, fragment: str
) -> None:
    done = run_hook(["claude-code"], payload, pane_env(event_server.path))
    assert_one_error_line(done, fragment)


def test_a_followed_event_without_any_run_key_is_an_error(event_server: FakeEventServer) -> None:
    payload = with_fields(CLAUDE["Stop"], session_id=..., prompt_id=...)
    done = run_hook(["claude-code"], payload, pane_env(event_server.path))
    assert_one_error_line(done, "no run identifier")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [([], "usage"), (["claude"], "unknown provider"), (["codex", "extra"], "usage")],
)
def test_usage_errors(args: list[str], fragment: str) -> None:
    done = run_hook(args, CODEX["Stop"], pane_env(None))
    assert_one_error_line(done, fragment)


# -- neutral stdout replies on every path -----------------------------------------------------------


def _cursor_cases(sock_dir: Path) -> dict[str, tuple[bytes, dict[str, str]]]:
    pre = json.dumps(CURSOR["U2"]).encode()
    return {
        "outside mytty": (pre, pane_env(None)),
        "socket missing": (pre, pane_env(sock_dir / "missing.sock")),
        "relative socket": (pre, pane_env("rel.sock")),
        "no capability": (pre, pane_env(sock_dir / "missing.sock", MYTTY_EVENT_CAPABILITY=None)),
        "invalid json": (b"{oops", pane_env(sock_dir / "missing.sock")),
        "oversized": (b" " * (MAX_HOOK_STDIN_BYTES + 1), pane_env(sock_dir / "missing.sock")),
    }


def test_cursor_pre_tool_use_prints_an_empty_object_on_every_path(sock_dir: Path) -> None:
    for name, (stdin, env) in _cursor_cases(sock_dir).items():
        done = run_hook(["cursor"], stdin, env)
        assert done.stdout == b"{}\n", name
        assert done.returncode in (0, 1), name


@pytest.mark.parametrize("mode", ["ok", "unauthorized", "wedge"])
def test_cursor_pre_tool_use_prints_an_empty_object_with_a_server(
    sock_dir: Path, mode: str
) -> None:
    reply = b'{"ok":false,"error":"unauthorized"}\n' if mode == "unauthorized" else OK_REPLY
    server_mode = "wedge" if mode == "wedge" else "reply"
    server = FakeEventServer(sock_dir / "e.sock", mode=server_mode, reply_bytes=reply)
    try:
        done = run_hook(["cursor"], CURSOR["U2"], pane_env(server.path))
    finally:
        server.stop()
    assert done.stdout == b"{}\n"
    assert done.returncode == (0 if mode == "ok" else 1)
    envelope, *retries = server.envelopes()
    assert all(retry == envelope for retry in retries)  # a retry resends the very same event
    assert envelope["event"]["toolUseID"] == "toolu_01DelA9"
    assert envelope["event"]["hookName"] == "preToolUse"


def test_cursor_events_without_a_permission_answer_print_nothing(
    event_server: FakeEventServer,
) -> None:
    done = run_hook(["cursor"], CURSOR["U3"], pane_env(event_server.path))
    assert (done.returncode, done.stdout) == (0, b"")
    assert event_server.envelopes()[0]["event"]["kind"] == "disconnected"


@pytest.mark.parametrize(
    ("payload", "reply"),
    [(AGY["A2"], b'{"decision":"stop"}\n'), (AGY["A1"], b"{}\n")],
)
def test_antigravity_replies_on_every_path(
    sock_dir: Path, payload: dict[str, Any], reply: bytes
) -> None:
    server = FakeEventServer(sock_dir / "e.sock")
    try:
        for env in (pane_env(None), pane_env(sock_dir / "missing.sock"), pane_env(server.path)):
            done = run_hook(["antigravity"], payload, env)
            assert (done.returncode, done.stdout) == (0, reply)
    finally:
        server.stop()
    assert len(server.lines) == 1


@pytest.mark.parametrize("provider", ["codex", "claude-code", "opencode"])
def test_silent_providers_print_nothing_even_on_errors(sock_dir: Path, provider: str) -> None:
    done = run_hook([provider], b"{oops", pane_env(sock_dir / "missing.sock"))
    assert (done.returncode, done.stdout) == (1, b"")
