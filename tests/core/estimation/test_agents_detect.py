"""Process → provider classification (executable path + argv[0..1])."""

from __future__ import annotations

import pytest

from mytty.core.estimation.detect import (
    SHELL_NAMES,
    classify_process,
    display_name,
    is_shell,
    parse_agent_hint,
)
from mytty.core.events import AgentProvider

P = AgentProvider
NPM = "/home/dev/.npm-global/lib/node_modules"


@pytest.mark.parametrize(
    ("exe", "argv", "expected"),
    [
        # Claude Code as observed in a tmux pane: native binary under the npm package
        (
            f"{NPM}/@anthropic-ai/claude-code/bin/claude.exe",
            ["claude", "--permission-mode", "manual"],
            P.CLAUDE_CODE,
        ),
        ("/usr/bin/node", ["node", f"{NPM}/@anthropic-ai/claude-code/cli.js"], P.CLAUDE_CODE),
        (None, ["claude"], P.CLAUDE_CODE),
        ("/opt/claude-code", [], P.CLAUDE_CODE),
        # Codex: the node wrapper, then the vendored native binary
        ("/usr/bin/node", ["node", f"{NPM}/.bin/codex"], P.CODEX),
        (
            f"{NPM}/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
            [f"{NPM}/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"],
            P.CODEX,
        ),
        ("/usr/bin/node", ["node", f"{NPM}/@openai/codex/bin/codex.js"], P.CODEX),
        ("/usr/local/bin/codex-aarch64-apple-darwin", ["codex-aarch64-apple-darwin"], P.CODEX),
        # Cursor, OpenCode, Antigravity, Gemini
        ("/home/u/.local/bin/cursor-agent", ["cursor-agent", "--force"], P.CURSOR),
        (
            "/usr/bin/node",
            ["node", "/home/u/.local/share/cursor-agent/versions/1/index.js"],
            P.CURSOR,
        ),
        ("/usr/local/bin/opencode", ["opencode"], P.OPENCODE),
        ("/usr/bin/bun", ["bun", "/x/opencode/dist/index.js"], P.OPENCODE),
        ("/usr/local/bin/agy", ["agy"], P.ANTIGRAVITY),
        (
            "/Applications/Antigravity.app/Contents/MacOS/Antigravity",
            ["Antigravity"],
            P.ANTIGRAVITY,
        ),
        (
            "/usr/bin/node",
            ["node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"],
            P.ANTIGRAVITY,
        ),
        ("/usr/local/bin/gemini", ["gemini"], P.ANTIGRAVITY),
        # case-insensitive
        ("/USR/BIN/CLAUDE", ["CLAUDE"], P.CLAUDE_CODE),
        # not agents
        ("/usr/bin/bash", ["bash", "--norc"], None),
        ("/usr/bin/vim", ["vim", "claude.md"], None),
        ("/usr/bin/python3", ["python3", "my_codex_tool.py"], None),
        (None, [], None),
        ("", [""], None),
    ],
)
def test_classify_process(exe: str | None, argv: list[str], expected: AgentProvider | None) -> None:
    assert classify_process(exe, argv) == expected


def test_only_exe_argv0_and_argv1_are_looked_at() -> None:
    assert classify_process("/usr/bin/env", ["env", "FOO=1", "claude"]) is None
    assert classify_process("/usr/bin/env", ["env", "claude"]) == P.CLAUDE_CODE


def test_rule_order_first_match_wins() -> None:
    # cursor before claude, claude before codex, gemini last
    assert classify_process("/bin/cursor-agent", ["claude"]) == P.CURSOR
    assert classify_process("/usr/bin/claude", ["claude", "codex"]) == P.CLAUDE_CODE
    assert classify_process("/usr/bin/codex", ["codex", "claude"]) == P.CLAUDE_CODE
    assert classify_process("/usr/bin/gemini", ["gemini", "codex"]) == P.CODEX
    assert classify_process("/usr/bin/gemini", ["gemini", "opencode"]) == P.OPENCODE
    assert classify_process("/x/gemini-cli/y", ["agy"]) == P.ANTIGRAVITY


def test_path_fragments_need_their_slashes() -> None:
    assert classify_process("/usr/bin/node", ["node", "/x/claude-codex/cli.js"]) is None
    assert classify_process("/usr/bin/node", ["node", "/x/openai/codex/cli.js"]) is None
    assert classify_process("/usr/bin/node", ["node", "/x/@openai/codex/cli.js"]) == P.CODEX


def test_display_names() -> None:
    assert display_name(P.CLAUDE_CODE) == "Claude Code"
    assert display_name(P.CODEX) == "Codex"
    assert display_name(P.OPENCODE) == "OpenCode"
    assert display_name(P.ANTIGRAVITY) == "Gemini (Antigravity)"
    assert display_name(P.CURSOR) == "Cursor"


def test_shell_names() -> None:
    assert {"zsh", "bash", "fish", "sh", "dash", "tcsh", "csh", "ksh", "nu", "pwsh"} == SHELL_NAMES
    assert is_shell("/usr/bin/zsh")
    assert is_shell("-zsh")
    assert is_shell("bash")
    assert not is_shell("node")
    assert not is_shell("/usr/bin/bashful")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("claude-code", P.CLAUDE_CODE),
        ("  Codex \n", P.CODEX),
        ("ANTIGRAVITY", P.ANTIGRAVITY),
        ("claude", None),
        ("", None),
        (None, None),
        ("codex,claude-code", None),
    ],
)
def test_parse_agent_hint(value: str | None, expected: AgentProvider | None) -> None:
    assert parse_agent_hint(value) == expected
