"""What the real agents showed that the stand-ins first did not (issue 14, folded back).

Each test pins one behaviour of Claude Code 2.1.332 / codex-cli 0.171.0 observed in the
real-agent tier (tests/realagents/README.md, shared/reference/real-agents.md) on the stand-in
itself. Keys go through a pseudo-terminal where the real TUI reads them key by key (Esc).
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.standins.test_standins import (
    CLAUDE_EVENTS,
    Sandbox,
    box,  # noqa: F401 - fixture
    captured_keys,
    grouped,
    write_json,
)
from tests.support.harness import wait_until

CODEX_EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "SessionEnd",
    "Interrupt",
]


class Terminal:
    """A stand-in on a pseudo-terminal: its screen read with a deadline, keys written raw."""

    def __init__(self, box: Sandbox, name: str, *args: str) -> None:
        master, slave = pty.openpty()
        self.master = master
        self.proc = subprocess.Popen(
            [str(box.bin / name), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=box.env,
            cwd=str(box.home),
            start_new_session=True,
        )
        os.close(slave)
        self.screen = ""

    def expect(self, text: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never showed; screen:\n{self.screen}"
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    self.screen += os.read(self.master, 4096).decode("utf-8", "replace")
                except OSError:  # the stand-in left
                    assert text in self.screen, self.screen

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        os.close(self.master)


@pytest.fixture
def terminals() -> Iterator[Callable[..., Terminal]]:
    opened: list[Terminal] = []

    def open_one(box: Sandbox, name: str, *args: str) -> Terminal:
        opened.append(Terminal(box, name, *args))
        return opened[-1]

    yield open_one
    for terminal in opened:
        terminal.close()


def claude_hooks(box: Sandbox) -> None:
    handler = {"type": "command", "command": str(box.recorder), "args": ["claude-code"]}
    write_json(box.home / ".claude" / "settings.json", grouped(CLAUDE_EVENTS, handler))


def transcript_rows(box: Sandbox) -> list[dict[str, Any]]:
    (path,) = (box.home / ".claude" / "projects").glob("*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def registry(box: Sandbox, pid: int) -> dict[str, Any] | None:
    path = box.home / ".claude" / "sessions" / f"{pid}.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data


def names(box: Sandbox) -> list[str]:
    return [c["payload"]["hook_event_name"] for c in box.calls()]


# -- Claude ----------------------------------------------------------------------------------


def test_claude_permission_notification_comes_late_with_the_generic_message(
    box: Sandbox,
) -> None:
    """2.1.332: Notification(permission_prompt) ~6 s after PermissionRequest, only while the
    dialog is open, saying "Claude needs your permission" (no tool named)."""
    claude_hooks(box)
    proc = box.start("claude", "--", "write it\n@standin: approve; notify 0.3")
    try:
        assert proc.stdin is not None
        wait_until(lambda: "Notification" in names(box), 20, message="the late Notification")
        assert names(box)[-2:] == ["PermissionRequest", "Notification"]
        proc.stdin.write("1\n/exit\n")
        proc.stdin.flush()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    calls = [c["payload"] for c in box.calls()]
    assert [p["hook_event_name"] for p in calls] == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "Notification",
        "PostToolUse",
        "PostToolBatch",
        "Stop",
        "SessionEnd",
    ]
    note = calls[4]
    assert (note["message"], note["notification_type"]) == (
        "Claude needs your permission",
        "permission_prompt",
    )
    assert set(note) == captured_keys("claude-code")["Notification"]
    assert note["prompt_id"] == calls[3]["prompt_id"]
    suggestions = [s["type"] for s in calls[3]["permission_suggestions"]]
    assert suggestions == ["addDirectories", "setMode"]  # as captured


def test_claude_esc_at_the_permission_dialog_fires_no_hook(
    box: Sandbox,
    terminals: Callable[..., Terminal],
) -> None:
    claude_hooks(box)
    term = terminals(box, "claude", "--", "write it\n@standin: approve")
    term.expect("STANDIN waiting for approval")
    pid = box.single_pid("claude")
    wait_until(lambda: (registry(box, pid) or {}).get("status") == "waiting", 20)
    assert registry(box, pid)["waitingFor"] == "permission prompt"  # type: ignore[index]
    # The PermissionRequest handler runs beside the dialog; Esc would kill it unrecorded.
    wait_until(lambda: "PermissionRequest" in names(box), 20)
    term.type("\x1b")
    term.expect("STANDIN tool rejected by Esc")
    term.expect("STANDIN ready")
    assert names(box) == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest"]
    assert not list(box.home.glob("standin_approved_*")), "the rejected command did not run"
    assert registry(box, pid)["status"] == "idle"  # type: ignore[index]
    rows = transcript_rows(box)
    tool_use = next(r for r in rows if r["type"] == "assistant")
    rejected, note = [
        r for r in rows if r["type"] == "user" and isinstance(r["message"]["content"], list)
    ][-2:]
    assert rejected["toolDenialKind"] == "user-rejected" and rejected["toolDenialBeforeRun"]
    assert rejected["sourceToolAssistantUUID"] == tool_use["uuid"]
    assert rejected["message"]["content"][0]["content"].startswith(
        "The user doesn't want to proceed"
    )
    assert note["rowSource"] == "harness" and "interruptedMessageId" not in note
    assert note["message"]["content"] == [
        {"type": "text", "text": "[Request interrupted by user for tool use]"}
    ]
    assert note["promptId"] == rejected["promptId"] == box.calls()[1]["payload"]["prompt_id"]
    assert [r["type"] for r in rows[-4:]] == [
        "last-prompt",
        "mode",
        "permission-mode",
        "atis-latch",
    ]


def test_claude_esc_while_the_model_thinks_puts_the_prompt_back_without_a_trace(
    box: Sandbox,
    terminals: Callable[..., Terminal],
) -> None:
    """2.1.332, Esc before any output: no hook, no interrupt row; ``last-prompt`` holds the
    prompt put back into the input box; only the live registry goes busy → idle."""
    claude_hooks(box)
    prompt = "think hard\n@standin: thinking"
    term = terminals(box, "claude", "--", prompt)
    term.expect("STANDIN holding")
    pid = box.single_pid("claude")
    busy = registry(box, pid)
    assert busy is not None and busy["status"] == "busy", busy
    before = transcript_rows(box)
    assert before[-1]["type"] == "api-request"
    term.type("\x1b")
    term.expect("STANDIN prompt put back by Esc")
    term.expect("STANDIN ready")
    idle = registry(box, pid)
    assert idle is not None and idle["status"] == "idle", idle
    assert idle["statusUpdatedAt"] >= busy["statusUpdatedAt"]
    assert names(box) == ["SessionStart", "UserPromptSubmit"]
    rows = transcript_rows(box)
    added = rows[len(before) :]
    assert [r["type"] for r in added] == ["last-prompt", "mode", "permission-mode", "atis-latch"]
    assert added[0]["lastPrompt"] == prompt
    assert not any("[Request interrupted" in json.dumps(r) for r in rows)
    term.type("/exit\n")
    term.expect("STANDIN bye")
    assert term.proc.wait(10) == 0
    assert registry(box, pid) is None, "the registry goes with the process"


def test_claude_registry_has_the_fields_2_1_332_writes(box: Sandbox) -> None:
    proc = box.start("claude")
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline().startswith("STANDIN claude pid=")
        assert proc.stdout.readline() == "STANDIN ready\n"
        record = registry(box, proc.pid)
        assert record is not None
        assert {
            "pid",
            "sessionId",
            "cwd",
            "startedAt",
            "version",
            "kind",
            "entrypoint",
            "name",
            "status",
            "statusUpdatedAt",
        } <= set(record)
        assert (record["pid"], record["status"], record["kind"]) == (
            proc.pid,
            "idle",
            "interactive",
        )
        assert "tmux" not in record  # only inside tmux: session:@window.%pane
        proc.stdin.close()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert registry(box, proc.pid) is None


# -- Codex -----------------------------------------------------------------------------------


def codex_hooks(box: Sandbox) -> None:
    command = f"'{box.recorder}' codex"
    write_json(
        box.home / ".codex" / "hooks.json",
        grouped(CODEX_EVENTS, {"type": "command", "command": command, "timeout": 5}),
    )


def rollout_rows(box: Sandbox) -> list[dict[str, Any]]:
    (path,) = (box.home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl")
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def events_of(rows: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r["payload"] for r in rows if r["type"] == "event_msg" and r["payload"]["type"] == kind]


def test_codex_esc_mid_turn_fires_interrupt_and_no_stop(
    box: Sandbox,
    terminals: Callable[..., Terminal],
) -> None:
    codex_hooks(box)
    term = terminals(box, "codex", "--no-daemon", "--", "take your time\n@standin: hold")
    term.expect("STANDIN holding")
    term.type("\x1b")
    term.expect("STANDIN interrupted by Esc")
    term.expect("STANDIN ready")
    calls = [c["payload"] for c in box.calls()]
    assert [p["hook_event_name"] for p in calls] == [
        "SessionStart",
        "UserPromptSubmit",
        "Interrupt",
    ]
    interrupt = calls[-1]
    assert set(interrupt) == captured_keys("codex")["Interrupt"]
    assert interrupt["turn_id"] == calls[1]["turn_id"]
    rows = rollout_rows(box)
    (aborted,) = events_of(rows, "turn_aborted")
    assert (aborted["turn_id"], aborted["reason"]) == (interrupt["turn_id"], "interrupted")
    assert events_of(rows, "task_complete") == []


def test_codex_api_error_fires_no_hook_and_the_rollout_carries_the_error(
    box: Sandbox,
) -> None:
    """0.171 with request_max_retries = 0 and an HTTP 400: no hook, no Stop; ``task_complete``
    with ``last_agent_message: null`` and the API's ``error``; the TUI shows it and goes on."""
    codex_hooks(box)
    out = box.run(
        "codex", "--no-daemon", "--", "go\n@standin: apierror 400", stdin="again\n/exit\n"
    )
    assert out.returncode == 0, out.stdout
    shown = [line for line in out.stdout.splitlines() if line.startswith("STANDIN ■ ")]
    assert len(shown) == 1 and "400" in shown[0], out.stdout
    calls = [c["payload"] for c in box.calls()]
    assert [p["hook_event_name"] for p in calls] == [
        "SessionStart",
        "UserPromptSubmit",
        # the failed turn ends here, silently; the next prompt works
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ]
    failed, fine = events_of(rollout_rows(box), "task_complete")
    assert failed["turn_id"] == calls[1]["turn_id"]
    assert failed["last_agent_message"] is None
    assert "400" in failed["error"]["message"] and shown[0].endswith(failed["error"]["message"])
    assert fine["last_agent_message"] == "Stand-in finished turn 2." and "error" not in fine
    assert {"duration_ms", "time_to_first_token_ms"} <= set(fine)


def test_claude_quick_subagent_stops_before_its_parents_stop(box: Sandbox) -> None:
    """The ordering 2.1.332 showed for an async subagent that finished first."""
    handler = {"type": "command", "command": str(box.recorder), "args": ["claude-code"]}
    events = [*CLAUDE_EVENTS, "SubagentStart", "SubagentStop", "PostToolBatch"]
    write_json(box.home / ".claude" / "settings.json", grouped(events, handler))
    out = box.run("claude", "--", "look around\n@standin: background 0", stdin="/exit\n")
    assert out.returncode == 0, out.stderr
    calls = [c["payload"] for c in box.calls()]
    assert [p["hook_event_name"] for p in calls] == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "SubagentStart",
        "PostToolUse",
        "PostToolBatch",
        "SubagentStop",
        "Stop",
        "UserPromptSubmit",
        "Stop",
        "SessionEnd",
    ]
    start, stop, first, note, final = (calls[i] for i in (3, 6, 7, 8, 9))
    # As captured: the SubagentStop still lists the subagent itself as running ...
    (task,) = stop["background_tasks"]
    assert (task["id"], task["type"], task["status"]) == (start["agent_id"], "subagent", "running")
    assert set(stop) == captured_keys("claude-code")["SubagentStop"]
    # ... and the parent's Stop lists nothing; the notification turn follows.
    assert first["background_tasks"] == [] and first["prompt_id"] == start["prompt_id"]
    assert note["prompt"].startswith(f"<task-notification>\n<task-id>{start['agent_id']}<")
    assert final["prompt_id"] == note["prompt_id"] != first["prompt_id"]


def test_codex_enforced_hook_trust_asks_once_and_records_it(box: Sandbox) -> None:
    """0.171: new or changed hooks do not run until trusted; the TUI's review screen's "2"
    records ``[hooks.state."<key>"] trusted_hash`` and later launches run them unasked."""
    codex_hooks(box)
    box.env["MYTTY_STANDIN_CODEX_TRUST"] = "enforce"
    config = box.home / ".codex" / "config.toml"
    config.write_text('model = "gpt-mock"\n')

    skipped = box.run("codex", "--no-daemon", stdin="3\nhello\n/exit\n")
    assert skipped.returncode == 0, skipped.stdout
    assert f"Hooks need review – {len(CODEX_EVENTS)} hooks are new or changed" in skipped.stdout
    assert box.calls() == [], "continue without trusting: no hook runs"
    assert config.read_text() == 'model = "gpt-mock"\n'

    trusted = box.run("codex", "--no-daemon", stdin="2\nhello\n/exit\n")
    assert trusted.returncode == 0, trusted.stdout
    assert names(box) == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ]
    state = lib_state(config)
    assert len(state) == len(CODEX_EVENTS)
    assert all(entry["trusted_hash"].startswith("sha256:") for entry in state.values())
    assert config.read_text().startswith('model = "gpt-mock"\n')

    again = box.run("codex", "--no-daemon", stdin="hello\n/exit\n")
    assert "Hooks need review" not in again.stdout, "trust is remembered"
    assert names(box).count("Stop") == 2

    # A changed handler is untrusted again (and only that one).
    hooks = json.loads((box.home / ".codex" / "hooks.json").read_text())
    hooks["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 7
    write_json(box.home / ".codex" / "hooks.json", hooks)
    changed = box.run("codex", "--no-daemon", stdin="3\nhello\n/exit\n")
    assert "Hooks need review – 1 hooks are new or changed" in changed.stdout
    assert names(box).count("Stop") == 2 and names(box).count("UserPromptSubmit") == 3
    retrusted = box.run("codex", "--no-daemon", stdin="2\nhello\n/exit\n")
    assert retrusted.returncode == 0 and names(box).count("Stop") == 3
    assert len(lib_state(config)) == len(CODEX_EVENTS), "the stale entry was replaced"

    bypass = box.run("codex", "--no-daemon", "--dangerously-bypass-hook-trust", stdin="hi\n")
    assert "Hooks need review" not in bypass.stdout and names(box).count("Stop") == 4


def lib_state(config: Path) -> dict[str, dict[str, Any]]:
    import tomllib

    state: dict[str, dict[str, Any]] = tomllib.loads(config.read_text())["hooks"]["state"]
    return state


def test_codex_spawn_agent_subagent_reports_on_its_own_thread(box: Sandbox) -> None:
    """What 0.171 did for a spawn_agent call: the parent's PostToolUse names the agent, the
    subagent's thread fires SubagentStart and its own prompt (the parent's session, a turn id
    of its own, agent_id), the parent stops, and the subagent's SubagentStop comes later."""
    events = [*CODEX_EVENTS, "SubagentStart", "SubagentStop"]
    command = f"'{box.recorder}' codex"
    write_json(
        box.home / ".codex" / "hooks.json",
        grouped(events, {"type": "command", "command": command, "timeout": 5}),
    )
    out = box.run("codex", "--no-daemon", "--", "look around\n@standin: background 0.5", stdin="")
    assert out.returncode == 0, out.stdout
    calls = [c["payload"] for c in box.calls()]
    names = [p["hook_event_name"] for p in calls]
    assert names[:6] == [
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "SubagentStart",
        "UserPromptSubmit",
        "Stop",
    ], names
    assert "SubagentStop" in names[6:], names
    prompt, spawn, start, sub_prompt, parent_stop = calls[1:6]
    stop = next(p for p in calls if p["hook_event_name"] == "SubagentStop")
    agent = json.loads(spawn["tool_response"])["agent_id"]
    assert spawn["tool_name"] == "spawn_agent" and spawn["turn_id"] == prompt["turn_id"]
    assert start["agent_id"] == sub_prompt["agent_id"] == stop["agent_id"] == agent
    assert start["turn_id"] == sub_prompt["turn_id"] == stop["turn_id"] != prompt["turn_id"]
    assert {p["session_id"] for p in calls[1:]} == {prompt["session_id"]}
    assert parent_stop["turn_id"] == prompt["turn_id"]
    captured = json.loads(
        (Path(__file__).parents[1] / "hook" / "fixtures" / "codex.json").read_text()
    )["subagent"]
    for name, payload in (("SubagentStart", start), ("UserPromptSubmit", sub_prompt)):
        assert set(payload) == set(captured[name]), name
    assert set(stop) == set(captured["SubagentStop"])
    assert set(spawn) - {"tool_use_id"} <= set(captured["spawn"])
