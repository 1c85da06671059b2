"""The stand-ins' PermissionRequest exchange, detail by detail, as the pinned CLIs do it
(docs/dev/research/approvals.md §1 Claude Code 2.1.332, §2 Codex 0.171.0, §4 the bytes).

No mytty here: a small "replier" hook (like the research's lab hook) records the bytes it got
on stdin and answers from a spec (stdout, stderr, exit status, a sleep first), so each rule of
each CLI is pinned on the stand-in that mytty's e2e tests rely on.
"""

from __future__ import annotations

import base64
import json
import os
import select
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.standins.test_standins import Sandbox, box, write_json  # noqa: F401 - fixture
from tests.standins.test_standins_fidelity import Terminal, terminals  # noqa: F401 - fixture
from tests.support.harness import wait_until

REPLIER = """#!/usr/bin/env python3
import base64, json, os, sys, time
name = sys.argv[1]
spec = json.load(open(os.environ["REPLIER_SPEC"]))[name]
data = sys.stdin.buffer.read()
log = os.environ["REPLIER_LOG"]
with open(log, "a") as f:
    f.write(json.dumps({"name": name, "stdin": base64.b64encode(data).decode(),
                        "at": time.time()}) + "\\n")
time.sleep(spec.get("sleep", 0))
sys.stdout.write(spec.get("stdout", ""))
sys.stdout.flush()
sys.stderr.write(spec.get("stderr", ""))
with open(log, "a") as f:
    f.write(json.dumps({"name": name, "finished": time.time()}) + "\\n")
sys.exit(spec.get("exit", 0))
"""

ALLOW = (
    '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}\n'
)


def deny(message: str | None = None, **extra: object) -> str:
    decision: dict[str, object] = {"behavior": "deny", **extra}
    if message is not None:
        decision["message"] = message
    reply = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    return json.dumps(reply) + "\n"


class Replies:
    """The replier hooks of one sandbox: their specs, and what each saw."""

    def __init__(self, box: Sandbox) -> None:
        self.box = box
        self.path = box.root / "replier"
        self.path.write_text(REPLIER)
        self.path.chmod(0o755)
        self.spec = box.root / "spec.json"
        self.log = box.root / "replies.jsonl"
        box.env.update(REPLIER_SPEC=str(self.spec), REPLIER_LOG=str(self.log))

    def install(self, provider: str, specs: dict[str, dict[str, Any]], timeout: float = 30) -> None:
        self.spec.write_text(json.dumps(specs))
        if provider == "claude":
            handlers = [
                {"type": "command", "command": str(self.path), "args": [name], "timeout": timeout}
                for name in specs
            ]
            write_json(
                self.box.home / ".claude" / "settings.json",
                {"hooks": {"PermissionRequest": [{"hooks": handlers}]}},
            )
        else:
            handlers = [
                {"type": "command", "command": f"'{self.path}' {name}", "timeout": timeout}
                for name in specs
            ]
            write_json(
                self.box.home / ".codex" / "hooks.json",
                {"hooks": {"PermissionRequest": [{"hooks": handlers}]}},
            )

    def entries(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def stdin(self, name: str) -> bytes:
        (entry,) = [e for e in self.entries() if e["name"] == name and "stdin" in e]
        return base64.b64decode(entry["stdin"])

    def finished(self, name: str) -> bool:
        return any(e["name"] == name and "finished" in e for e in self.entries())


@pytest.fixture
def replies(box: Sandbox) -> Replies:
    return Replies(box)


class Session:
    """A stand-in on pipes: its output read line by line, a line answered when told."""

    def __init__(self, box: Sandbox, name: str, prompt: str) -> None:
        self.proc = subprocess.Popen(
            [str(box.bin / name), "--no-daemon", "--", prompt]
            if name == "codex"
            else [str(box.bin / name), "--", prompt],
            env=box.env,
            cwd=str(box.home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            bufsize=0,
        )
        self.lines: list[str] = []
        self._partial = b""

    def until(self, needle: str, timeout: float = 20) -> list[str]:
        """Every line so far, once one holds ``needle`` (read unbuffered, with a deadline)."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while not any(needle in line for line in self.lines):
            left = deadline - time.monotonic()
            assert left > 0, f"{needle!r} never came: {self.lines}"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            assert chunk, f"the stand-in ended before {needle!r}: {self.lines}"
            *done, self._partial = (self._partial + chunk).split(b"\n")
            self.lines += [line.decode("utf-8", "replace") for line in done]
        return self.lines

    def answer(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")


@pytest.fixture
def sessions() -> Iterator[list[Session]]:
    opened: list[Session] = []
    yield opened
    for session in opened:
        if session.proc.poll() is None:
            session.proc.kill()
            session.proc.wait(10)


def start(sessions: list[Session], box: Sandbox, name: str, prompt: str) -> Session:
    opened = Session(box, name, prompt)
    sessions.append(opened)
    return opened


def claude_rows(box: Sandbox) -> list[dict[str, Any]]:
    (path,) = (box.home / ".claude" / "projects").glob("*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def codex_rows(box: Sandbox) -> list[dict[str, Any]]:
    (path,) = (box.home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def marker(box: Sandbox, name: str) -> tuple[Path, str]:
    path = box.home / name
    return path, f"@standin: approve\n@standin: run touch {path}"


# == Claude Code 2.1.332 ==========================================================================


def test_claude_writes_compact_json_and_one_newline_in_the_captured_order(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("claude", {"a": {"stdout": ALLOW}})
    path, prompt = marker(box, "m")
    start(sessions, box, "claude", prompt).until("STANDIN ready")
    raw = replies.stdin("a")
    assert raw.endswith(b"}\n") and raw.count(b"\n") == 1
    payload = json.loads(raw)
    assert raw == json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    assert list(payload) == [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "effort",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "permission_suggestions",
    ]
    assert "tool_use_id" not in payload and payload["tool_input"]["command"] == f"touch {path}"


def test_claude_allow_runs_the_tool_and_says_the_hook_allowed_it(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("claude", {"a": {"stdout": ALLOW}})
    path, prompt = marker(box, "m")
    lines = start(sessions, box, "claude", prompt).until("STANDIN ready")
    assert " ⎿ Allowed by PermissionRequest hook" in lines and path.exists()


def test_claude_deny_hands_the_model_the_message_and_the_turn_goes_on(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("claude", {"a": {"stdout": deny("MYTTY: the human refused this")}})
    path, prompt = marker(box, "m")
    lines = start(sessions, box, "claude", prompt).until("STANDIN ready")
    assert " ⎿ Denied by PermissionRequest hook" in lines and not path.exists()
    assert "STANDIN turn 1 done" in lines  # the turn went on to its Stop
    (result,) = [r for r in claude_rows(box) if r.get("toolDenialKind") == "permission-rule"]
    block = result["message"]["content"][0]
    assert block["content"] == "MYTTY: the human refused this" and block["is_error"] is True
    assert result["permissionDecision"]["source"] == "hook"


def test_claude_deny_without_a_message_says_the_hook_denied(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("claude", {"a": {"stdout": deny()}})
    _path, prompt = marker(box, "m")
    lines = start(sessions, box, "claude", prompt).until("STANDIN ready")
    assert "STANDIN tool denied: Permission denied by hook" in lines


def test_claude_deny_with_interrupt_is_esc_and_drops_the_message(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("claude", {"a": {"stdout": deny("not seen", interrupt=True)}})
    path, prompt = marker(box, "m")
    lines = start(sessions, box, "claude", prompt).until("STANDIN ready")
    assert "STANDIN tool rejected by Esc" in lines and not path.exists()
    rows = json.dumps(claude_rows(box))
    assert "not seen" not in rows and "[Request interrupted by user for tool use]" in rows


@pytest.mark.parametrize(
    "spec",
    [
        {"stderr": "EXIT2 says no", "exit": 2},  # not a deny on 2.1.332
        {"stdout": "log line\n" + ALLOW},  # text before the JSON
        {"stdout": "{not json"},
        {"stdout": "hello"},
        {"stdout": ALLOW.replace("PermissionRequest", "PreToolUse")},
        {"stdout": ALLOW.replace('"allow"', '"ask"')},
        {"stdout": '{"decision":"approve"}'},  # the legacy shape
        {"stdout": ""},
    ],
    ids=["exit2", "text-first", "malformed", "plain-text", "other-event", "ask", "legacy", "empty"],
)
def test_claude_no_decision_leaves_its_dialog_to_the_human(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
    spec: dict[str, Any],
) -> None:
    replies.install("claude", {"a": spec})
    path, prompt = marker(box, "m")
    session = start(sessions, box, "claude", prompt)
    session.until("STANDIN waiting for approval")
    wait_until(lambda: replies.finished("a"), 10, message="the hook to answer")
    time.sleep(0.3)  # the stand-in had time to read the reply; still at its dialog
    assert not any("STANDIN tool ran" in line for line in session.lines)
    session.answer("1")
    lines = session.until("STANDIN ready")
    assert "STANDIN tool ran: 0" in lines and path.exists()


@pytest.mark.parametrize(
    "spec",
    [
        {"stdout": ALLOW, "exit": 1},  # the JSON decides whatever the exit status
        {"stdout": ALLOW, "exit": 2},
        {
            "stdout": '  \n{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":'
            '{"behavior":"allow","extraField":1}},"foo":2}\n\n'
        },  # unknown keys, blanks
    ],
    ids=["exit1", "exit2", "extra-keys"],
)
def test_claude_reads_the_json_leniently(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
    spec: dict[str, Any],
) -> None:
    replies.install("claude", {"a": spec})
    path, prompt = marker(box, "m")
    start(sessions, box, "claude", prompt).until("STANDIN ready")
    assert path.exists()


def test_claude_updated_input_runs_the_new_command(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    other = box.home / "rewritten"
    reply = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {
                "behavior": "allow",
                "updatedInput": {"command": f"touch {other}", "description": "d"},
            },
        }
    }
    replies.install("claude", {"a": {"stdout": json.dumps(reply)}})
    path, prompt = marker(box, "m")
    start(sessions, box, "claude", prompt).until("STANDIN ready")
    assert other.exists() and not path.exists()


def test_claude_kills_a_hook_at_its_timeout(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("claude", {"a": {"sleep": 30, "stdout": ALLOW}}, timeout=1)
    path, prompt = marker(box, "m")
    session = start(sessions, box, "claude", prompt)
    session.until("STANDIN waiting for approval")
    pid = int(session.until("STANDIN claude pid=")[0].split("=")[1])
    log = box.records / f"claude.{pid}.hooks.jsonl"
    wait_until(lambda: log.exists() and "PermissionRequest" in log.read_text(), 10)
    entry = json.loads(log.read_text().splitlines()[-1])
    assert entry["timedOut"] is True and not path.exists()  # its late allow never came
    session.answer("\x1b")
    assert "STANDIN tool rejected by Esc" in session.until("STANDIN ready")


def test_claude_the_human_first_wins_and_the_hook_is_left_running(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("claude", {"a": {"sleep": 1.5, "stdout": deny("too late")}})
    path, prompt = marker(box, "m")
    session = start(sessions, box, "claude", prompt)
    session.until("STANDIN waiting for approval")
    session.answer("1")
    lines = session.until("STANDIN ready")
    assert "STANDIN tool ran: 0" in lines and path.exists()
    wait_until(lambda: replies.finished("a"), 10, message="the ignored hook to finish")


def test_claude_esc_kills_the_hook(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("claude", {"a": {"sleep": 30, "stdout": ALLOW}})
    _path, prompt = marker(box, "m")
    session = start(sessions, box, "claude", prompt)
    session.until("STANDIN waiting for approval")
    wait_until(lambda: replies.entries(), 10)
    session.answer("\x1b")
    session.until("STANDIN tool rejected by Esc")
    pid = int(session.lines[0].split("=")[1])
    log = box.records / f"claude.{pid}.hooks.jsonl"
    wait_until(lambda: log.exists() and '"killed": true' in log.read_text(), 10)
    assert not replies.finished("a")


@pytest.mark.parametrize(
    ("specs", "ran"),
    [
        ({"fast": {"sleep": 0.3, "stdout": ALLOW}, "slow": {"sleep": 2, "stdout": deny()}}, True),
        ({"slow": {"sleep": 2, "stdout": ALLOW}, "fast": {"sleep": 0.3, "stdout": deny()}}, False),
        ({"none": {"stdout": ""}, "late": {"sleep": 1, "stdout": ALLOW}}, True),
    ],
    ids=["first-allow", "first-deny", "silent-then-allow"],
)
def test_claude_the_first_handler_that_decides_wins(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
    specs: dict[str, Any],
    ran: bool,
) -> None:
    replies.install("claude", specs)
    path, prompt = marker(box, "m")
    start(sessions, box, "claude", prompt).until("STANDIN ready")
    assert path.exists() is ran


def test_claude_amended_no_tells_the_model_and_the_turn_goes_on(
    box: Sandbox,
    replies: Replies,
    terminals: Any,
) -> None:
    replies.install("claude", {"a": {"stdout": ""}})
    path, prompt = marker(box, "m")
    term = terminals(box, "claude", "--", prompt)
    term.expect("Do you want to proceed?")
    wait_until(lambda: replies.finished("a"), 10)
    term.type("\x1b[B\x1b[B\x1b[B")
    term.type("\t")
    term.expect("No, and tell Claude what to do differently")
    term.type("use the fixture")
    term.expect("No, use the fixture")
    term.type("\r")
    term.expect("STANDIN turn 1 done")
    assert not path.exists()
    said = [r for r in claude_rows(box) if r.get("toolDenialKind") == "user-rejected"]
    assert said and said[-1]["message"]["content"][0]["content"].endswith(
        "the user said:\nuse the fixture"
    )


def test_claude_digit_picks_and_confirms(
    box: Sandbox,
    replies: Replies,
    terminals: Any,
) -> None:
    replies.install("claude", {"a": {"stdout": ""}})
    path, prompt = marker(box, "m")
    term = terminals(box, "claude", "--", prompt)
    term.expect("Do you want to proceed?")
    term.type("4")  # "No": rejected, like Esc
    term.expect("STANDIN tool rejected by Esc")
    assert not path.exists()


# == Codex 0.171.0 ================================================================================


def codex_marker(box: Sandbox, name: str) -> tuple[Path, str]:
    path = box.home / name
    return path, f"@standin: approve\n@standin: run touch {path}"


def test_codex_writes_compact_json_without_a_newline_in_the_captured_order(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("codex", {"a": {"stdout": ALLOW}})
    path, prompt = codex_marker(box, "m")
    start(sessions, box, "codex", prompt).until("STANDIN ready")
    raw = replies.stdin("a")
    assert raw.endswith(b"}") and b"\n" not in raw
    payload = json.loads(raw)
    assert raw == json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    assert list(payload) == [
        "session_id",
        "turn_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "model",
        "permission_mode",
        "tool_name",
        "tool_input",
    ]
    assert payload["tool_input"] == {
        "command": f"touch {path}",
        "description": "The user asked to run this command outside the sandbox.",
    }


def test_codex_allow_runs_it_without_ever_drawing_the_dialog(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("codex", {"a": {"sleep": 0.5, "stdout": ALLOW}})
    path, prompt = codex_marker(box, "m")
    lines = start(sessions, box, "codex", prompt).until("STANDIN ready")
    assert path.exists() and "• Working (0s • esc to interrupt) · Running hook" in lines
    assert not any("Would you like to run" in line for line in lines)


def test_codex_deny_hands_the_model_rejected_and_the_turn_goes_on(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("codex", {"a": {"stdout": deny('say "no"')}})
    path, prompt = codex_marker(box, "m")
    lines = start(sessions, box, "codex", prompt).until("STANDIN ready")
    assert '• Blocked by hook └ say "no"' in lines and not path.exists()
    (row,) = [r for r in codex_rows(box) if r["payload"].get("type") == "function_call_output"]
    assert row["payload"]["output"] == (
        'exec_command failed: CreateProcess { message: "Rejected(\\"say \\\\\\"no\\\\\\"\\")" }'
    )
    assert any(r["payload"].get("type") == "task_complete" for r in codex_rows(box))


@pytest.mark.parametrize(
    ("spec", "verdict"),
    [
        ({"stdout": deny()}, "deny:PermissionRequest hook denied approval"),
        ({"stdout": deny("  padded  ")}, "deny:padded"),
        ({"stderr": "EXIT2 says no\n", "exit": 2}, "deny:EXIT2 says no"),
        ({"stdout": ALLOW.replace("PermissionRequest", "PreToolUse")}, "allow"),
        ({"stdout": ALLOW[:-2] + ',"systemMessage":"hi"}'}, "allow"),
    ],
    ids=["no-message", "trimmed", "exit2", "other-known-event", "system-message"],
)
def test_codex_decisions(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
    spec: dict[str, Any],
    verdict: str,
) -> None:
    replies.install("codex", {"a": spec})
    path, prompt = codex_marker(box, "m")
    lines = start(sessions, box, "codex", prompt).until("STANDIN ready")
    if verdict == "allow":
        assert path.exists()
    else:
        assert f"• Blocked by hook └ {verdict[5:]}" in lines and not path.exists()


@pytest.mark.parametrize(
    ("spec", "failure"),
    [
        (
            {"stdout": ALLOW[:-2] + ',"foo":1}'},
            "hook returned invalid permission-request JSON output",
        ),
        (
            {
                "stdout": '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":'
                '{"behavior":"allow","extraField":1}}}'
            },
            "hook returned invalid permission-request JSON output",
        ),
        (
            {
                "stdout": '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":'
                '{"behavior":"allow","updatedInput":{"command":"x"}}}}'
            },
            "PermissionRequest hook returned unsupported updatedInput",
        ),
        (
            {"stdout": deny("x", interrupt=True)},
            "PermissionRequest hook returned unsupported interrupt:true",
        ),
        (
            {"stdout": ALLOW[:-2] + ',"continue":false}'},
            "PermissionRequest hook returned unsupported continue:false",
        ),
        ({"stdout": "{broken"}, "hook returned invalid permission-request JSON output"),
        (
            {"stderr": "", "exit": 2},
            "hook exited with code 2 but did not write a denial reason to stderr",
        ),
        ({"stdout": ALLOW, "exit": 1}, "hook exited with code 1"),
    ],
    ids=[
        "unknown-top-key",
        "unknown-decision-key",
        "updated-input",
        "interrupt",
        "continue-false",
        "broken-json",
        "exit2-silent",
        "exit1-with-json",
    ],
)
def test_codex_refuses_what_its_schema_does_not_allow_and_shows_its_dialog(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
    spec: dict[str, Any],
    failure: str,
) -> None:
    replies.install("codex", {"a": spec})
    path, prompt = codex_marker(box, "m")
    session = start(sessions, box, "codex", prompt)
    lines = session.until("Would you like to run the following command?")
    assert f"• Hook failed └ {failure}" in lines and not path.exists()
    session.answer("y")
    assert "STANDIN tool ran: 0" in session.until("STANDIN ready") and path.exists()


def test_codex_silent_or_plain_text_is_no_verdict_without_a_failure_row(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("codex", {"a": {"stdout": "hello"}, "b": {"stdout": "  \n"}})
    path, prompt = codex_marker(box, "m")
    session = start(sessions, box, "codex", prompt)
    lines = session.until("Would you like to run the following command?")
    assert not any("Hook failed" in line for line in lines)
    session.answer("n")  # the dialog's No aborts the turn
    lines = session.until("STANDIN ready")
    assert f"✗ You canceled the request to run touch {path}" in lines
    assert "■ Conversation interrupted" in lines and not path.exists()


def test_codex_kills_a_hook_at_its_timeout_and_shows_its_dialog(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
) -> None:
    replies.install("codex", {"a": {"sleep": 30, "stdout": ALLOW}}, timeout=1)
    _path, prompt = codex_marker(box, "m")
    session = start(sessions, box, "codex", prompt)
    lines = session.until("Would you like to run the following command?")
    assert "• Hook failed └ hook timed out after 1s" in lines


@pytest.mark.parametrize(
    ("specs", "ran"),
    [
        (
            {"allow": {"sleep": 0.2, "stdout": ALLOW}, "deny": {"sleep": 1, "stdout": deny("B")}},
            False,
        ),
        (
            {"deny": {"sleep": 1, "stdout": deny("B")}, "allow": {"sleep": 0.2, "stdout": ALLOW}},
            False,
        ),
        ({"allow": {"sleep": 0.5, "stdout": ALLOW}, "silent": {"stdout": ""}}, True),
    ],
    ids=["deny-later-wins", "deny-first-wins", "allow-over-silence"],
)
def test_codex_waits_for_every_handler_and_a_deny_wins(
    box: Sandbox,
    replies: Replies,
    sessions: list[Session],
    specs: dict[str, Any],
    ran: bool,
) -> None:
    replies.install("codex", specs)
    path, prompt = codex_marker(box, "m")
    lines = start(sessions, box, "codex", prompt).until("STANDIN ready")
    assert path.exists() is ran
    if not ran:
        assert "• Blocked by hook └ B" in lines


def test_codex_text_typed_into_its_dialog_acts_as_hotkeys(
    box: Sandbox,
    replies: Replies,
    terminals: Any,
) -> None:
    replies.install("codex", {"a": {"stdout": ""}})
    path, prompt = codex_marker(box, "m")
    term = terminals(box, "codex", "--no-daemon", "--", prompt)
    term.expect("Would you like to run the following command?")
    term.type("please")  # the `p` approves and saves a prefix rule (the research's hazard)
    term.expect("✔ You approved codex to always run commands that start with")
    term.expect("STANDIN tool ran: 0")
    assert path.exists()


def test_codex_esc_while_its_hook_runs_interrupts_and_kills_it(
    box: Sandbox,
    replies: Replies,
    terminals: Any,
) -> None:
    replies.install("codex", {"a": {"sleep": 30, "stdout": ALLOW}})
    path, prompt = codex_marker(box, "m")
    term = terminals(box, "codex", "--no-daemon", "--", prompt)
    term.expect("Running hook")
    wait_until(lambda: replies.entries(), 10)
    term.type("\x1b")
    term.expect("STANDIN interrupted by Esc")
    assert not path.exists() and not replies.finished("a")
    assert not os.path.exists(path)
