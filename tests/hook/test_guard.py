"""The kill-server guard in the hook helper: the real executable, payloads as Claude Code and
Codex send them, the deny they read, and a start-up that stays cheap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mytty.hook.guard import pre_tool_use_reply

from .conftest import FakeEventServer, load_payloads, pane_env, run_hook, with_fields
from .test_import_budget import PACKAGE_PARENT, SLOW_MODULES, THIRD_PARTY

MYTTY_SOCKET = "/tmp/mytty-hook-guard/tmux.sock"
CLAUDE_PRE = load_payloads("claude-code")["captured"]["PreToolUse"]
CODEX_PRE = load_payloads("codex")["captured"]["PreToolUse"]


def worker_env(socket_path: Path | str | None, **extra: str | None) -> dict[str, str]:
    marks: dict[str, str | None] = {
        "MYTTY_WORKER": "1",
        "MYTTY_TMUX_GUARD": MYTTY_SOCKET,
        "TMUX": f"{MYTTY_SOCKET},77,0",
    }
    return pane_env(socket_path, **{**marks, **extra})


def bash(payload: dict[str, Any], command: str | list[str]) -> dict[str, Any]:
    return with_fields(payload, tool_input={**payload["tool_input"], "command": command})


def deny_reason(stdout: bytes) -> str:
    reply = json.loads(stdout)
    specific = reply["hookSpecificOutput"]
    assert set(reply) == {"hookSpecificOutput"}
    assert (specific["hookEventName"], specific["permissionDecision"]) == ("PreToolUse", "deny")
    reason: str = specific["permissionDecisionReason"]
    return reason


@pytest.mark.parametrize(
    ("provider", "payload"), [("claude-code", CLAUDE_PRE), ("codex", CODEX_PRE)]
)
def test_the_helper_denies_kill_server_from_a_worker(
    provider: str, payload: dict[str, Any], sock_dir: Path
) -> None:
    server = FakeEventServer(sock_dir / "ev.sock")
    try:
        done = run_hook([provider], bash(payload, "tmux kill-server"), worker_env(server.path))
    finally:
        server.stop()
    assert (done.returncode, done.stderr) == (0, b"")
    reason = deny_reason(done.stdout)
    assert MYTTY_SOCKET in reason and "tmux -L" in reason


@pytest.mark.parametrize(
    ("env_change", "command"),
    [
        ({}, "tmux -L other kill-server"),
        ({}, "tmux list-sessions"),
        ({"MYTTY_WORKER": None}, "tmux kill-server"),  # not a spawned worker
        ({"MYTTY_TMUX_GUARD": None}, "tmux kill-server"),  # spawned with the guard off
        ({"MYTTY_TMUX_GUARD": ""}, "tmux kill-server"),
    ],
)
def test_the_helper_stays_silent_otherwise(
    env_change: dict[str, str | None], command: str, sock_dir: Path
) -> None:
    done = run_hook(["claude-code"], bash(CLAUDE_PRE, command), worker_env(None, **env_change))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_the_guard_needs_no_controller() -> None:
    # No event socket at all (a controller that is down): the deny still comes.
    done = run_hook(["claude-code"], bash(CLAUDE_PRE, "tmux kill-server"), worker_env(None))
    assert done.returncode == 0 and deny_reason(done.stdout)


def test_decision_rules_of_the_reply() -> None:
    env = {"MYTTY_WORKER": "1", "MYTTY_TMUX_GUARD": MYTTY_SOCKET, "TMUX": f"{MYTTY_SOCKET},1,0"}
    kill = bash(CLAUDE_PRE, "tmux kill-server")
    assert pre_tool_use_reply("claude-code", kill, env) is not None
    # Without $TMUX a bare `tmux` talks to the default server: not mytty's here.
    outside = {"MYTTY_WORKER": "1", "MYTTY_TMUX_GUARD": MYTTY_SOCKET}
    assert pre_tool_use_reply("claude-code", kill, outside) is None
    named = bash(CLAUDE_PRE, f"tmux -S {MYTTY_SOCKET} kill-server")
    assert pre_tool_use_reply("claude-code", named, outside) is not None
    assert pre_tool_use_reply("cursor", kill, env) is None  # only providers honouring the deny
    assert (
        pre_tool_use_reply("claude-code", {**kill, "hook_event_name": "PostToolUse"}, env) is None
    )
    assert pre_tool_use_reply("codex", bash(CODEX_PRE, ["tmux", "kill-server"]), env) is not None
    assert pre_tool_use_reply("codex", bash(CODEX_PRE, ["tmux", 3]), env) is None  # type: ignore[list-item]
    assert pre_tool_use_reply("claude-code", with_fields(kill, tool_input="x"), env) is None
    # The server is recognised by $TMUX's socket too (another name for the same server).
    by_tmux = {"MYTTY_WORKER": "1", "MYTTY_TMUX_GUARD": "/elsewhere", "TMUX": "/s/t,1,0"}
    assert pre_tool_use_reply("claude-code", bash(CLAUDE_PRE, "tmux -S /s/t kill-ses"), by_tmux)


_PROBE = """
import sys
sys.path.insert(0, {parent!r})
sys.argv = ["mytty-agent-hook", "claude-code"]
from mytty.hook.main import main
status = main()
import json
with open({report!r}, "w") as report:
    json.dump({{"status": status, "modules": sorted(sys.modules)}}, report)
"""


def test_the_guard_path_skips_slow_and_third_party_modules(tmp_path: Path) -> None:
    report = tmp_path / "modules.json"
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            _PROBE.format(parent=PACKAGE_PARENT, report=str(report)),
        ],
        input=json.dumps(bash(CLAUDE_PRE, "sh -c 'tmux kill-server'")).encode(),
        env=worker_env(None),
        capture_output=True,
        timeout=20,
        check=False,
    )
    assert done.stderr == b"" and deny_reason(done.stdout)
    modules = set(json.loads(report.read_text())["modules"])
    assert "mytty.core.kill_guard" in modules
    assert not modules & SLOW_MODULES
    assert not {m.split(".")[0] for m in modules} & THIRD_PARTY
