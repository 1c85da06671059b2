"""The stand-in agents themselves: do they run hooks the way the real CLIs do?

Fast, no tmux, no controller: each stand-in runs as a plain subprocess with a throw-away HOME
whose hook config points at a small recorder script. Payload field sets are checked against the
captured real payloads in tests/hook/fixtures/.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import kill_processes_naming

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "hook" / "fixtures"

_spec = importlib.util.spec_from_file_location("standin_lib_under_test", HERE / "standin_lib.py")
assert _spec is not None and _spec.loader is not None
lib = importlib.util.module_from_spec(_spec)
sys.modules["standin_lib_under_test"] = lib
_spec.loader.exec_module(lib)

RECORDER = """#!/usr/bin/env python3
import json, os, sys
data = sys.stdin.read()
tag = sys.argv[1] if len(sys.argv) > 1 else ""
with open(os.environ["REC_FILE"], "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "payload": json.loads(data), "ppid": os.getppid(),
                        "sid": os.getsid(0), "cwd": os.getcwd(),
                        "env": {k: v for k, v in os.environ.items()
                                if k.startswith(("CLAUDE", "MYTTY_", "CODEX_"))}}) + "\\n")
if tag == "reply-object":
    print("{}")
elif tag == "reply-text":
    print("ok")
elif tag == "slow":
    import time
    time.sleep(3600)  # far past any deadline: only the hook timeout can end it
"""


@dataclass
class Sandbox:
    root: Path
    home: Path
    bin: Path
    records: Path
    rec_file: Path
    recorder: Path
    env: dict[str, str]

    def run(
        self, name: str, *args: str, stdin: str = "", timeout: float = 30
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / name), *args],
            input=stdin,
            env=self.env,
            cwd=str(self.home),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def start(self, name: str, *args: str) -> subprocess.Popen[str]:
        """The stand-in as a running process with pipes, for a test that talks to it."""
        return subprocess.Popen(
            [str(self.bin / name), *args],
            env=self.env,
            cwd=str(self.home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def calls(self) -> list[dict[str, Any]]:
        if not self.rec_file.exists():
            return []
        return [json.loads(line) for line in self.rec_file.read_text().splitlines()]

    def log(self, name: str, pid: int) -> list[dict[str, Any]]:
        path = self.records / f"{name}.{pid}.hooks.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def single_pid(self, name: str) -> int:
        pids = [int(p.name.split(".")[1]) for p in self.records.glob(f"{name}.*.json")]
        assert len(pids) == 1, pids
        return pids[0]


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Sandbox]:
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("claude", "codex", "cursor-agent"):
        (bin_dir / name).symlink_to(HERE / name)  # imports must follow the symlink
    records = tmp_path / "records"
    records.mkdir()
    hooks_dir = tmp_path / "dir with space"  # exec form must not need shell quoting
    hooks_dir.mkdir()
    recorder = hooks_dir / "recorder"
    recorder.write_text(RECORDER)
    recorder.chmod(0o755)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MYTTY_", "CLAUDE", "CODEX_", "TMUX"))
    }
    env.update(
        HOME=str(home),
        CODEX_HOME=str(home / ".codex"),
        MYTTY_STANDIN_DIR=str(records),
        PATH=f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}",
        REC_FILE=str(tmp_path / "rec.jsonl"),
        MYTTY_SURFACE_ID="11111111-2222-4333-8444-555555555555",
    )
    try:
        yield Sandbox(tmp_path, home, bin_dir, records, tmp_path / "rec.jsonl", recorder, env)
    finally:
        # A stand-in codex started without --no-daemon leaves its shared background server
        # running, as the real one does: tests must not leak it.
        kill_processes_naming(tmp_path)


def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2) + "\n")


def grouped(
    events: list[str], handler: dict[str, Any], matcher: dict[str, str] | None = None
) -> dict[str, Any]:
    hooks = {}
    for event in events:
        group: dict[str, Any] = {"hooks": [handler]}
        if matcher and event in matcher:
            group["matcher"] = matcher[event]
        hooks[event] = [group]
    return {"hooks": hooks}


def captured_keys(provider: str) -> dict[str, set[str]]:
    data = json.loads((FIXTURES / f"{provider}.json").read_text())
    return {event: set(payload) for event, payload in data["captured"].items()}


CLAUDE_EVENTS = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "Notification",
    "PostToolUse",
    "PostToolBatch",
    "Stop",
    "StopFailure",
    "SessionEnd",
]


# ------------------------------------------------------------------------------------------------


def test_directives() -> None:
    d = lib.parse_directives(
        "Do it\n@standin: approve\n  @standin: sleep 1.5; linger 2\n@standin: exit"
    )
    assert (d.approve, d.exit, d.sleep, d.linger, d.fail, d.ask, d.background) == (
        True,
        True,
        1.5,
        2.0,
        False,
        False,
        None,
    )
    assert lib.parse_directives("@standin: background").background == 3.0
    assert lib.parse_directives("@standin: background 5").background == 5.0
    assert lib.parse_directives("@standin: dance").unknown == ["dance"]
    assert lib.parse_directives("mention @standin: approve mid-line").approve is False
    assert lib.prompt_from_argv(["--model", "x", "--", "a\nb", "c"]) == "a\nb"
    assert lib.prompt_from_argv(["--model", "x"]) is None


def test_claude_runs_settings_hooks_in_exec_form(box: Sandbox) -> None:
    handler = {
        "type": "command",
        "command": str(box.recorder),
        "args": ["claude-code"],
        "timeout": 5,
    }
    write_json(
        box.home / ".claude" / "settings.json",
        grouped(CLAUDE_EVENTS, handler, {"Notification": "permission_prompt|idle_prompt"}),
    )
    out = box.run(
        "claude",
        "--permission-mode",
        "manual",
        "--",
        "first\n@standin: approve",
        stdin="1\n@standin: fail\n/exit\n",
    )
    assert out.returncode == 0, out.stderr
    pid = box.single_pid("claude")
    lines = out.stdout.splitlines()
    assert lines[0] == f"STANDIN claude pid={pid}"
    assert "STANDIN waiting for approval" in lines and "STANDIN turn 2 done (failed)" in lines
    record = json.loads((box.records / f"claude.{pid}.json").read_text())
    assert record["argv"] == ["--permission-mode", "manual", "--", "first\n@standin: approve"]
    assert record["cwd"] == str(box.home)
    assert record["env"] == {
        "MYTTY_STANDIN_DIR": str(box.records),
        "MYTTY_SURFACE_ID": box.env["MYTTY_SURFACE_ID"],
    }

    calls = box.calls()
    events = [c["payload"]["hook_event_name"] for c in calls]
    # PermissionRequest runs beside the dialog (2.1.332): an answer typed at once may come
    # before its handler is even recorded, but never before the PreToolUse, nor after the
    # turn's Stop.
    asked = events.index("PermissionRequest")
    assert events.index("PreToolUse") < asked < events.index("Stop"), events
    assert [e for e in events if e != "PermissionRequest"] == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        # No Notification: the dialog was answered before Claude's ~6 s permission_prompt.
        "PostToolUse",
        "PostToolBatch",
        "Stop",
        "UserPromptSubmit",
        "StopFailure",
        "SessionEnd",
    ]
    for call in calls:
        assert call["argv"] == ["claude-code"]
        assert call["ppid"] == pid, "exec form runs the command directly, without a shell"
        assert call["env"]["CLAUDECODE"] == "1"
        assert call["env"]["CLAUDE_PROJECT_DIR"] == str(box.home)
        assert call["env"]["MYTTY_SURFACE_ID"] == box.env["MYTTY_SURFACE_ID"]
    reference = captured_keys("claude-code")
    reference_start = set(
        json.loads((FIXTURES / "claude-code.json").read_text())["captured_extra"][
            "SessionStart_tui"
        ]
    )
    for call in calls:
        payload = call["payload"]
        name = payload["hook_event_name"]
        expected = reference_start if name == "SessionStart" else reference.get(name)
        if expected is not None:
            assert set(payload) == expected, name
    prompts = {c["payload"].get("prompt_id") for c in calls[:-1]} - {None}
    assert len(prompts) == 2, "each prompt gets its own prompt_id"
    # As on 2.1.332, /exit is a command with a prompt id of its own, which SessionEnd carries.
    assert calls[-1]["payload"]["prompt_id"] not in prompts | {None}
    assert len({c["payload"]["session_id"] for c in calls}) == 1
    assert calls[-1]["payload"]["reason"] == "prompt_input_exit"
    first = calls[0]["payload"]
    assert first["transcript_path"].endswith(f"/{first['session_id']}.jsonl")
    assert not (box.home / ".claude" / "sessions" / f"{pid}.json").exists()

    log = box.log("claude", pid)
    assert sorted(e["event"] for e in log) == sorted(events)
    assert all(e["exitCode"] == 0 and e["timedOut"] is False for e in log)
    assert log[0]["command"] == str(box.recorder) and log[0]["args"] == ["claude-code"]


def test_claude_background_subagent_sends_the_task_notification_prompt(box: Sandbox) -> None:
    # What Claude Code 2.1.332 did with an async subagent that outlived its parent's Stop.
    handler = {"type": "command", "command": str(box.recorder), "args": ["claude-code"]}
    events = [*CLAUDE_EVENTS, "SubagentStart", "SubagentStop"]
    write_json(box.home / ".claude" / "settings.json", grouped(events, handler, {}))
    out = box.run("claude", "--", "look around\n@standin: background 0.2", stdin="/exit\n")
    assert out.returncode == 0, out.stderr
    calls = [c["payload"] for c in box.calls()]
    names = [p["hook_event_name"] for p in calls]
    assert names == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "SubagentStart",
        "PostToolUse",
        "PostToolBatch",
        "Stop",
        "SubagentStop",
        "UserPromptSubmit",
        "Stop",
        "SessionEnd",
    ]
    start, first_stop, note, final = (calls[i] for i in (3, 6, 8, 9))
    agent = start["agent_id"]
    (task,) = first_stop["background_tasks"]
    assert (task["id"], task["type"], task["status"]) == (agent, "subagent", "running")
    assert note["prompt"].startswith(f"<task-notification>\n<task-id>{agent}</task-id>")
    # The notification is a turn of its own: a new prompt id, which the final Stop shares.
    assert note["prompt_id"] != calls[1]["prompt_id"] == start["prompt_id"]
    assert final["prompt_id"] == note["prompt_id"] and final["background_tasks"] == []
    reference = captured_keys("claude-code")
    for payload in calls[1:-1]:
        name = payload["hook_event_name"]
        if name in reference:  # PostToolBatch was not captured
            assert set(payload) == reference[name], name


def test_claude_matchers_shell_form_and_timeout(box: Sandbox) -> None:
    rec = str(box.recorder).replace("'", "'\\''")
    write_json(
        box.home / ".claude" / "settings.json",
        {
            "hooks": {
                # A shell string: quoting and shell syntax work.
                "UserPromptSubmit": [
                    {
                        "hooks": [
                            {
                                "type": "command",
                                "command": f"test -n \"$CLAUDE_PROJECT_DIR\" && '{rec}' shell",
                            }
                        ]
                    }
                ],
                # Matchers: this group is for Edit only, the Bash call must not run it.
                "PreToolUse": [
                    {
                        "matcher": "Edit|Write",
                        "hooks": [
                            {"type": "command", "command": str(box.recorder), "args": ["edit-only"]}
                        ],
                    }
                ],
                "Notification": [
                    {
                        "matcher": "idle_prompt",
                        "hooks": [
                            {"type": "command", "command": str(box.recorder), "args": ["idle-only"]}
                        ],
                    }
                ],
                # A hung hook is killed at its timeout and the turn goes on.
                "Stop": [
                    {
                        "hooks": [
                            {
                                "type": "command",
                                "command": str(box.recorder),
                                "args": ["slow"],
                                "timeout": 1,
                            }
                        ]
                    }
                ],
            }
        },
    )
    # Had the stand-in waited for the hung hook, run()'s own 30 s deadline would fail this.
    out = box.run("claude", "--", "go\n@standin: approve\n@standin: exit", stdin="y\n")
    assert out.returncode == 0, out.stderr
    pid = box.single_pid("claude")
    calls = box.calls()
    assert [c["argv"] for c in calls] == [["shell"], ["slow"]]
    log = box.log("claude", pid)
    assert [e["event"] for e in log] == ["UserPromptSubmit", "Stop"]
    assert log[1]["timedOut"] is True and log[1]["exitCode"] is None
    assert "STANDIN bye" in out.stdout


def test_no_config_means_no_hooks(box: Sandbox) -> None:
    for name in ("claude", "codex", "cursor-agent"):
        out = box.run(name, "--", "hello", stdin="again\n")
        assert out.returncode == 0, (name, out.stderr)
        assert out.stdout.count("STANDIN ready") == 2
        assert "STANDIN turn 2 done" in out.stdout
        pid = box.single_pid(name)
        assert box.log(name, pid) == []
    assert box.calls() == []


def test_idle_start_waits_for_input(box: Sandbox) -> None:
    handler = {"type": "command", "command": str(box.recorder), "args": ["claude-code"]}
    write_json(box.home / ".claude" / "settings.json", grouped(CLAUDE_EVENTS, handler))
    out = box.run("claude", stdin="")
    assert out.returncode == 0
    assert out.stdout.splitlines()[1:] == ["STANDIN ready", "STANDIN bye"]
    assert [c["payload"]["hook_event_name"] for c in box.calls()] == ["SessionStart", "SessionEnd"]
    assert box.calls()[1]["payload"]["reason"] == "other"  # EOF


def test_codex_rollout_opens_at_first_prompt_and_stays_open(box: Sandbox) -> None:
    command = f"'{box.recorder}' codex"
    write_json(
        box.home / ".codex" / "hooks.json",
        grouped(
            [
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PermissionRequest",
                "PostToolUse",
                "Stop",
                "SessionEnd",
            ],
            {"type": "command", "command": command, "timeout": 5},
        ),
    )
    proc = box.start("codex", "--no-daemon")
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline().startswith("STANDIN codex pid=")
        assert proc.stdout.readline() == "STANDIN ready\n"
        assert box.calls() == [], "SessionStart waits for the first prompt"
        assert not (box.home / ".codex" / "sessions").exists()
        proc.stdin.write("first\n")
        proc.stdin.flush()
        lines = [proc.stdout.readline() for _ in range(3)]
        assert lines == ["STANDIN turn 1 started\n", "STANDIN turn 1 done\n", "STANDIN ready\n"]
        calls = box.calls()
        rollout = calls[0]["payload"]["transcript_path"]
        fd_dir = f"/proc/{proc.pid}/fd"
        open_files = {os.readlink(f"{fd_dir}/{fd}") for fd in os.listdir(fd_dir)}
        assert rollout in open_files
        assert Path(rollout).parent.parent.parent.parent == box.home / ".codex" / "sessions"
        assert Path(rollout).name.endswith(f"-{calls[0]['payload']['session_id']}.jsonl")
        proc.stdin.write("/exit\n")
        proc.stdin.flush()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    calls = box.calls()
    events = [c["payload"]["hook_event_name"] for c in calls]
    assert events == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ]
    reference = captured_keys("codex")
    for call in calls:
        payload = call["payload"]
        assert set(payload) == reference[payload["hook_event_name"]], payload["hook_event_name"]
        assert call["argv"] == ["codex"]
    turn_ids = {c["payload"].get("turn_id") for c in calls} - {None}
    assert len(turn_ids) == 1
    assert "turn_id" not in calls[0]["payload"]


def test_codex_approval_and_failure(box: Sandbox) -> None:
    command = f"'{box.recorder}' codex"
    write_json(
        box.home / ".codex" / "hooks.json",
        grouped(["PermissionRequest", "Stop"], {"type": "command", "command": command}),
    )
    out = box.run(
        "codex", "--no-daemon", "--", "go\n@standin: approve", stdin="y\n@standin: fail\n"
    )
    assert out.returncode == 1
    assert out.stdout.rstrip().endswith("STANDIN exiting with an error")
    calls = box.calls()
    assert [c["payload"]["hook_event_name"] for c in calls] == ["PermissionRequest", "Stop"]
    assert set(calls[0]["payload"]) == captured_keys("codex")["PermissionRequest"]


def _surface(n: int) -> str:
    return f"{n:08d}-2222-4333-8444-555555555555"


def test_codex_hooks_run_in_the_background_server_the_first_tui_started(box: Sandbox) -> None:
    """real-agents.md §3.5: one shared server, forked by the first TUI with its environment."""
    command = f"'{box.recorder}' codex"
    write_json(
        box.home / ".codex" / "hooks.json",
        grouped(
            ["UserPromptSubmit", "Stop", "SessionEnd"],
            {"type": "command", "command": command, "timeout": 5},
        ),
    )

    def tui(n: int, *flags: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
        before = len(box.calls())
        out = subprocess.run(
            [str(box.bin / "codex"), *flags, "--", f"from pane {n}"],
            env={**box.env, "MYTTY_SURFACE_ID": _surface(n)},
            cwd=str(box.home),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert out.returncode == 0, out.stdout + out.stderr
        return out, box.calls()[before:]

    def server_of(out: subprocess.CompletedProcess[str]) -> int:
        (line,) = [x for x in out.stdout.splitlines() if "background server" in x]
        return int(line.rsplit("=", 1)[1])

    server = None
    try:
        first, calls = tui(1)
        server = server_of(first)
        assert [c["env"]["MYTTY_SURFACE_ID"] for c in calls] == [_surface(1)] * 2
        second, calls = tui(2)
        assert server_of(second) == server  # attached, not forked again
        # Pane 2's hooks carry pane 1's identity: they are the server's children.
        assert [c["payload"]["hook_event_name"] for c in calls] == ["UserPromptSubmit", "Stop"]
        assert {c["env"]["MYTTY_SURFACE_ID"] for c in calls} == {_surface(1)}
        # Run in the server's own session (it leads one, with no tty), not the TUI's.
        assert {c["sid"] for c in calls} == {server} and os.getsid(server) == server
        rollout = calls[0]["payload"]["transcript_path"]
        fds = {os.readlink(f"/proc/{server}/fd/{fd}") for fd in os.listdir(f"/proc/{server}/fd")}
        assert rollout in fds  # the server, not the (gone) TUI, holds the thread's file

        # Without the server the hooks are the TUI's own, with its environment.
        _, calls = tui(3, "--no-daemon")
        assert {c["env"]["MYTTY_SURFACE_ID"] for c in calls} == {_surface(3)}
        assert {c["sid"] for c in calls} == {os.getsid(0)}
        assert [c["payload"]["hook_event_name"] for c in calls][-1] == "SessionEnd"
        (box.home / ".codex" / "config.toml").write_text("[features]\ndaemon_auto_start = false\n")
        _, calls = tui(4)
        assert {c["env"]["MYTTY_SURFACE_ID"] for c in calls} == {_surface(4)}

        stop = box.run("codex", "app-server", "daemon", "stop")
        assert stop.stdout.strip() == "stopped"
        deadline = time.monotonic() + 10
        while Path(f"/proc/{server}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{server}").exists(), "the server outlived daemon stop"
        server = None
    finally:
        if server is not None:
            try:
                os.kill(server, 9)
            except ProcessLookupError:
                pass


def _app_server(box: Sandbox, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = box.run(
        "codex",
        "app-server",
        "-c",
        "features.plugins=false",
        stdin="".join(json.dumps(r) + "\n" for r in requests),
    )
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_codex_app_server_lists_hooks_with_trust(box: Sandbox) -> None:
    hooks = grouped(
        ["Stop", "SessionStart"], {"type": "command", "command": "'/x/helper' codex", "timeout": 5}
    )
    write_json(box.home / ".codex" / "hooks.json", hooks)

    def listing() -> list[dict[str, Any]]:
        replies = _app_server(
            box,
            [
                {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t"}}},
                {"method": "initialized"},
                {"id": 2, "method": "hooks/list", "params": {"cwds": ["/w"]}},
            ],
        )
        assert [r["id"] for r in replies] == [1, 2]
        assert all("jsonrpc" not in r for r in replies)  # Codex leaves the member out
        assert "userAgent" in replies[0]["result"]
        (entry,) = replies[1]["result"]["data"]
        assert (entry["cwd"], entry["errors"], entry["warnings"]) == ("/w", [], [])
        hooks: list[dict[str, Any]] = entry["hooks"]
        return hooks

    listed = listing()
    path = box.home / ".codex" / "hooks.json"
    assert [h["key"] for h in listed] == [f"{path}:stop:0:0", f"{path}:session_start:0:0"]
    assert [h["eventName"] for h in listed] == ["stop", "sessionStart"]
    assert all(h["trustStatus"] == "untrusted" for h in listed)
    assert all(h["command"] == "'/x/helper' codex" for h in listed)
    assert all(h["sourcePath"] == str(path) and h["timeoutSec"] == 5 for h in listed)
    assert listed[0]["currentHash"].startswith("sha256:")
    (box.home / ".codex" / "config.toml").write_text(
        f'[hooks.state."{listed[0]["key"]}"]\ntrusted_hash = "{listed[0]["currentHash"]}"\n'
    )
    assert [h["trustStatus"] for h in listing()] == ["trusted", "untrusted"]
    (box.home / ".codex" / "config.toml").write_text(
        f'[hooks.state."{listed[0]["key"]}"]\ntrusted_hash = "sha256:old"\nenabled = false\n'
    )
    again = listing()
    assert [h["trustStatus"] for h in again] == ["modified", "untrusted"]
    assert [h["enabled"] for h in again] == [False, True]
    assert not list(box.records.glob("codex.*.json")), "app-server is not an agent session"


def test_codex_app_server_names_the_file_by_its_canonical_path(box: Sandbox) -> None:
    real = box.root / "real-codex-home"
    write_json(real / "hooks.json", grouped(["Stop"], {"type": "command", "command": "x"}))
    (box.home / ".codex").symlink_to(real)
    replies = _app_server(
        box,
        [
            {"id": 1, "method": "initialize", "params": {}},
            {"id": 2, "method": "hooks/list", "params": {"cwds": ["/w"]}},
        ],
    )
    (hook,) = replies[1]["result"]["data"][0]["hooks"]
    assert hook["sourcePath"] == str(real / "hooks.json")
    assert hook["key"] == f"{real / 'hooks.json'}:stop:0:0"
    assert hook["timeoutSec"] == 600  # Codex's default when the handler names none


def test_codex_app_server_refuses_requests_before_initialize(box: Sandbox) -> None:
    replies = _app_server(
        box,
        [
            {"id": 1, "method": "hooks/list", "params": {"cwds": ["/w"]}},
            {"id": 2, "method": "initialize", "params": {}},
            {"id": 3, "method": "initialize", "params": {}},
        ],
    )
    assert [(r["id"], r.get("error", {}).get("message")) for r in replies] == [
        (1, "Not initialized"),
        (2, None),
        (3, "Already initialized"),
    ]


def test_cursor_checks_pretooluse_replies(box: Sandbox) -> None:
    write_json(
        box.home / ".cursor" / "hooks.json",
        {
            "version": 1,
            "hooks": {
                "beforeSubmitPrompt": [{"command": f"'{box.recorder}' submit"}],
                "preToolUse": [
                    {"type": "command", "command": f"'{box.recorder}' reply-object"},
                    {"type": "command", "command": f"'{box.recorder}' silent"},
                    {"type": "command", "command": f"'{box.recorder}' reply-text"},
                ],
                "postToolUse": [{"command": f"'{box.recorder}' post"}],
                "stop": [{"command": f"'{box.recorder}' stop"}],
            },
        },
    )
    out = box.run("cursor-agent", "--", "work\n@standin: exit")
    assert out.returncode == 0, out.stderr
    pid = box.single_pid("cursor-agent")
    log = box.log("cursor-agent", pid)
    pre = {e["command"].split()[-1]: e for e in log if e["event"] == "preToolUse"}
    assert "violation" not in pre["reply-object"]
    assert "empty reply" in pre["silent"]["violation"]
    assert "not JSON" in pre["reply-text"]["violation"]
    assert out.stdout.count("STANDIN hook violation in preToolUse") == 2
    calls = box.calls()
    events = [
        c["payload"]["hook_event_name"]
        for c in calls
        if c["argv"] != ["reply-text"] and c["argv"] != ["silent"]
    ]
    assert events == ["beforeSubmitPrompt", "preToolUse", "postToolUse", "stop"]
    payloads = {c["payload"]["hook_event_name"]: c["payload"] for c in calls}
    ref = json.loads((FIXTURES / "cursor.json").read_text())["reference"]
    assert set(ref["U1"]) <= set(payloads["beforeSubmitPrompt"])
    assert set(ref["U2"]) <= set(payloads["preToolUse"])
    assert payloads["stop"]["status"] == "completed"
    assert payloads["preToolUse"]["tool_use_id"] == payloads["postToolUse"]["tool_use_id"]
    assert len({p["generation_id"] for p in payloads.values()}) == 1
    assert all(c["cwd"] == str(box.home / ".cursor") for c in calls)
