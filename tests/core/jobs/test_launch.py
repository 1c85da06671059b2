"""Launch plans: the launch command, the worker contract, flags per provider and access, inherit."""

from __future__ import annotations

import itertools
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.events import AgentProvider, WorkerProvider
from mytty.core.jobs.access import resolve_access
from mytty.core.jobs.inherit_flags import (
    inherit_mode_flags,
    is_valid_flag_value,
    scan_inherited_flags,
    stored_mode_flags,
)
from mytty.core.jobs.launch import (
    CLAUDE_WORKER_FLAGS,
    CODEX_WORKER_FLAGS,
    RESUME_PROMPT,
    access_flags,
    build_launch_argv,
    build_resume_argv,
    codex_inherited_flags,
    launch_command,
    task_with_contract,
    worker_contract,
)
from mytty.core.quoting import shell_quote

CODEX, CLAUDE, CURSOR = WorkerProvider.CODEX, WorkerProvider.CLAUDE, WorkerProvider.CURSOR

HOSTILE = [
    "",
    "plain",
    "it's",
    "''",
    "'",
    'say "hi"',
    "$(touch /tmp/mytty-pwned) `id` ${HOME} $HOME",
    "a;b|c&d<e>f",
    "tab\there",
    "bang! !! !$ !-1",
    "line one\nline two\n\nline four\n",
    "trailing backslash \\",
    "back\\slash \\' \\\\ \\n",
    "日本語のタスク ✓ — émoji 🚀",
    "--dangerously-skip-permissions",
    "-n",
    "*?[a-z]~{a,b}",
    "\r\x1b[31mred\x1b[0m\x07",
    "=cmd %1 #comment",
]

# --------------------------------------------------------------------------------------------
# The launch command (what the launch file holds)
# --------------------------------------------------------------------------------------------


def test_launch_command_shape() -> None:
    text = launch_command(["codex", "-m", "gpt 5", "-s", "read-only", "--", "it's"])
    assert text == "command codex -m 'gpt 5' -s read-only -- 'it'\\''s'"
    with pytest.raises(ValueError):
        launch_command([])


def _fake_agent_bin(tmp_path: Path, name: str) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    exe = bindir / name
    exe.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$@\" > {tmp_path}/argv.bin\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return bindir


def _shells() -> list[object]:
    params: list[object] = []
    for name, args in (("sh", []), ("bash", []), ("zsh", ["-f"]), ("fish", ["--no-config"])):
        path = shutil.which(name)
        params.append(
            pytest.param(
                [path or name, *args],
                id=" ".join([name, *args]),
                marks=pytest.mark.skipif(path is None, reason=f"no {name}"),
            )
        )
    return params


@pytest.mark.parametrize("shell", _shells())
@pytest.mark.parametrize("provider", list(WorkerProvider))
def test_launch_command_delivers_argv_byte_for_byte(
    shell: list[str], provider: WorkerProvider, tmp_path: Path
) -> None:
    """The pane's shell runs the launch file's text; every byte of the task must arrive."""
    argv = build_launch_argv(
        provider,
        model="gpt-5 'x'",
        mode_flags=access_flags(provider, "review"),
        task="\n".join(HOSTILE),
    )
    bindir = _fake_agent_bin(tmp_path, argv[0])
    env = {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}", "HISTFILE": str(tmp_path / "h")}
    result = subprocess.run(
        shell,
        input=(launch_command(argv) + "\n").encode(),
        env=env,
        capture_output=True,
        timeout=20,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    received = (tmp_path / "argv.bin").read_bytes()
    assert received == b"".join(a.encode() + b"\0" for a in argv[1:])


# --------------------------------------------------------------------------------------------
# The worker contract
# --------------------------------------------------------------------------------------------


def test_worker_contract_has_a_heading_and_six_rules() -> None:
    lines = worker_contract().split("\n")
    assert len(lines) == 7
    assert not lines[0].startswith("- ")
    assert all(line.startswith("- ") for line in lines[1:])
    assert not worker_contract().endswith("\n")


def test_worker_contract_covers_each_obligation() -> None:
    lines = worker_contract().split("\n")[1:]
    assert "working directory" in lines[0]
    assert "test" in lines[1] and "until" in lines[1]
    assert "sub-agents" in lines[2] and "`mytty-ctl split`" in lines[2]
    assert "decided" in lines[3]
    assert 'mytty-ctl status "' in lines[4]
    assert "summary" in lines[5] and "tests" in lines[5] and "open" in lines[5]


def test_task_with_contract() -> None:
    assert task_with_contract("fix it") == "fix it\n" + worker_contract()
    assert task_with_contract("fix it\n") == "fix it\n\n" + worker_contract()
    assert not task_with_contract("x").endswith("\n")


# --------------------------------------------------------------------------------------------
# Access flags and argv
# --------------------------------------------------------------------------------------------


def test_access_flag_table() -> None:
    assert access_flags(CODEX, "review") == ["-s", "read-only", "-a", "never"]
    assert access_flags(CODEX, "workspace-write") == ["-s", "workspace-write", "-a", "never"]
    assert access_flags(CLAUDE, "review") == ["--permission-mode", "plan"]
    assert access_flags(CLAUDE, "workspace-write") == ["--permission-mode", "acceptEdits"]
    assert access_flags(CURSOR, "review") == ["--mode", "plan"]
    assert access_flags(CURSOR, "workspace-write") == ["--force", "--sandbox", "enabled"]


def test_access_flags_returns_a_fresh_list() -> None:
    flags = access_flags(CODEX, "review")
    flags.append("x")
    assert access_flags(CODEX, "review") == ["-s", "read-only", "-a", "never"]


TASK = "do it"
FULL = task_with_contract(TASK)


def _mode_flags(provider: WorkerProvider, case: str) -> list[str]:
    if case in ("review", "workspace-write"):
        return access_flags(provider, case)  # type: ignore[arg-type]
    inherited = {
        CODEX: ["--sandbox", "danger-full-access"],
        CLAUDE: ["--dangerously-skip-permissions"],
        CURSOR: ["--mode", "ask"],
    }
    if case == "inherit-with-flags":
        return inherit_mode_flags(provider, inherited[provider], None)
    return inherit_mode_flags(provider, [], None)  # inherit-empty


EXPECTED_FLAGS = {
    (CODEX, "review"): ["-s", "read-only", "-a", "never"],
    (CODEX, "workspace-write"): ["-s", "workspace-write", "-a", "never"],
    (CODEX, "inherit-with-flags"): ["--sandbox", "danger-full-access", "-a", "never"],
    (CODEX, "inherit-empty"): ["-s", "workspace-write", "-a", "never"],
    (CLAUDE, "review"): ["--permission-mode", "plan", *CLAUDE_WORKER_FLAGS],
    (CLAUDE, "workspace-write"): ["--permission-mode", "acceptEdits", *CLAUDE_WORKER_FLAGS],
    (CLAUDE, "inherit-with-flags"): ["--dangerously-skip-permissions", *CLAUDE_WORKER_FLAGS],
    (CLAUDE, "inherit-empty"): ["--permission-mode", "acceptEdits", *CLAUDE_WORKER_FLAGS],
    (CURSOR, "review"): ["--mode", "plan"],
    (CURSOR, "workspace-write"): ["--force", "--sandbox", "enabled"],
    (CURSOR, "inherit-with-flags"): ["--mode", "ask"],
    (CURSOR, "inherit-empty"): ["--force", "--sandbox", "enabled"],
}
BINARY = {CODEX: "codex", CLAUDE: "claude", CURSOR: "cursor-agent"}
MODEL_FLAG = {CODEX: "-m", CLAUDE: "--model", CURSOR: "--model"}


@pytest.mark.parametrize(
    ("provider", "case"),
    list(
        itertools.product(
            list(WorkerProvider),
            ["review", "workspace-write", "inherit-with-flags", "inherit-empty"],
        )
    ),
)
@pytest.mark.parametrize("model", [None, "sonnet"])
def test_launch_argv_per_provider_and_access(
    provider: WorkerProvider, case: str, model: str | None
) -> None:
    argv = build_launch_argv(
        provider, model=model, mode_flags=_mode_flags(provider, case), task=TASK
    )
    model_part = [MODEL_FLAG[provider], model] if model is not None else []
    worker_part = list(CODEX_WORKER_FLAGS) if provider is CODEX else []
    assert argv == [
        BINARY[provider],
        *worker_part,
        *model_part,
        *EXPECTED_FLAGS[(provider, case)],
        "--",
        FULL,
    ]


def test_exact_launch_commands() -> None:
    q = shell_quote(FULL)
    codex = build_launch_argv(
        CODEX, model="gpt-5", mode_flags=access_flags(CODEX, "review"), task=TASK
    )
    assert launch_command(codex) == (
        f"command codex --no-daemon -m gpt-5 -s read-only -a never -- {q}"
    )
    claude = build_launch_argv(
        CLAUDE, model=None, mode_flags=access_flags(CLAUDE, "workspace-write"), task=TASK
    )
    assert launch_command(claude) == (
        f"command claude --permission-mode acceptEdits --teammate-mode in-process -- {q}"
    )
    cursor = build_launch_argv(
        CURSOR, model="a b", mode_flags=access_flags(CURSOR, "workspace-write"), task=TASK
    )
    assert launch_command(cursor) == (
        f"command cursor-agent --model 'a b' --force --sandbox enabled -- {q}"
    )


def test_codex_workers_never_use_the_shared_background_server() -> None:
    for mode in (access_flags(CODEX, "review"), ["--yolo"], []):
        argv = build_launch_argv(CODEX, model="o3", mode_flags=mode, task="t")
        assert argv[:2] == ["codex", *CODEX_WORKER_FLAGS] == ["codex", "--no-daemon"]
    for other in (CLAUDE, CURSOR):
        assert "--no-daemon" not in build_launch_argv(other, model=None, mode_flags=[], task="t")


def test_claude_teammate_mode_sits_after_mode_flags_and_before_the_separator() -> None:
    argv = build_launch_argv(
        CLAUDE, model="opus", mode_flags=["--permission-mode", "plan"], task="t"
    )
    sep = argv.index("--")
    assert argv[sep - 2 : sep] == ["--teammate-mode", "in-process"]
    assert argv.index("--permission-mode") < argv.index("--teammate-mode")
    assert argv.index("--model") < argv.index("--permission-mode")
    for other in (CODEX, CURSOR):
        assert "--teammate-mode" not in build_launch_argv(
            other, model=None, mode_flags=[], task="t"
        )


def test_the_task_is_the_last_single_argument_even_when_it_looks_like_a_flag() -> None:
    argv = build_launch_argv(CLAUDE, model=None, mode_flags=[], task="--help")
    assert argv[-2] == "--"
    assert argv[-1].startswith("--help\n")


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [
        ([], ["-a", "never"]),
        (["-s", "read-only"], ["-s", "read-only", "-a", "never"]),
        (["-a", "on-request"], ["-a", "on-request"]),
        (["--ask-for-approval", "untrusted"], ["--ask-for-approval", "untrusted"]),
        (["--ask-for-approval=untrusted"], ["--ask-for-approval=untrusted"]),
        (["--full-auto"], ["--full-auto"]),
        (["--yolo"], ["--yolo"]),
        (
            ["--dangerously-bypass-approvals-and-sandbox"],
            ["--dangerously-bypass-approvals-and-sandbox"],
        ),
        (["--sandbox", "workspace-write"], ["--sandbox", "workspace-write", "-a", "never"]),
    ],
)
def test_codex_inherited_flags(tokens: list[str], expected: list[str]) -> None:
    assert codex_inherited_flags(tokens) == expected


# --------------------------------------------------------------------------------------------
# Inherit: argv scan
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "argv", "expected"),
    [
        (
            CLAUDE,
            ["claude", "--permission-mode", "acceptEdits"],
            ["--permission-mode", "acceptEdits"],
        ),
        (CLAUDE, ["claude", "--permission-mode=plan"], ["--permission-mode", "plan"]),
        (
            CLAUDE,
            ["claude", "--dangerously-skip-permissions", "--model", "opus"],
            ["--dangerously-skip-permissions"],
        ),
        (CLAUDE, ["/usr/bin/claude", "--verbose"], []),
        # order kept, spelling kept, both forms
        (
            CODEX,
            ["codex", "--sandbox=workspace-write", "-m", "o3", "-a", "never", "--yolo"],
            ["--sandbox", "workspace-write", "-a", "never", "--yolo"],
        ),
        (CODEX, ["codex", "-s", "read-only"], ["-s", "read-only"]),
        (CODEX, ["codex", "-a=on-failure"], ["-a", "on-failure"]),
        (CODEX, ["node", "/x/.bin/codex", "--full-auto"], ["--full-auto"]),
        (
            CODEX,
            ["codex", "--dangerously-bypass-approvals-and-sandbox"],
            ["--dangerously-bypass-approvals-and-sandbox"],
        ),
        (
            CURSOR,
            ["cursor-agent", "--force", "--mode", "plan", "--sandbox", "disabled"],
            ["--force", "--mode", "plan", "--sandbox", "disabled"],
        ),
        # flags of another provider are not picked up
        (CURSOR, ["cursor-agent", "--permission-mode", "plan", "-s", "x"], []),
        (CLAUDE, ["claude", "--force", "--mode", "plan"], []),
        # an invalid value drops the flag; the next token is still examined
        (
            CLAUDE,
            ["claude", "--permission-mode", "--dangerously-skip-permissions"],
            ["--dangerously-skip-permissions"],
        ),
        (CODEX, ["codex", "-s", "-a", "never"], ["-a", "never"]),
        (CODEX, ["codex", "-s", "a b"], []),
        (CODEX, ["codex", "-s", ""], []),
        (CODEX, ["codex", "-s", "x\ny"], []),
        (CODEX, ["codex", "-s", "x" * 101], []),
        (CODEX, ["codex", "-s", "x" * 100], ["-s", "x" * 100]),
        (CODEX, ["codex", "--sandbox="], []),
        (CODEX, ["codex", "--sandbox=-x"], []),
        (CODEX, ["codex", "-s"], []),
        # boolean flags don't take an inline value
        (CURSOR, ["cursor-agent", "--force=yes"], []),
        # the scan stops at "--": what follows is prompt text
        (CLAUDE, ["claude", "--", "--dangerously-skip-permissions"], []),
        (
            CLAUDE,
            ["claude", "--permission-mode", "plan", "--", "--permission-mode", "auto"],
            ["--permission-mode", "plan"],
        ),
        # index 0 is scanned too
        (CURSOR, ["--force"], ["--force"]),
    ],
)
def test_scan_inherited_flags(
    provider: WorkerProvider, argv: list[str], expected: list[str]
) -> None:
    assert scan_inherited_flags(provider, argv) == expected


@given(
    st.lists(
        st.sampled_from(
            [
                "--permission-mode",
                "plan",
                "--",
                "-x",
                "",
                "a b",
                "--dangerously-skip-permissions",
                "--permission-mode=auto",
                "claude",
            ]
        ),
        max_size=12,
    )
)
def test_scan_output_is_always_well_formed(argv: list[str]) -> None:
    out = scan_inherited_flags(CLAUDE, argv)
    i = 0
    while i < len(out):
        if out[i] == "--dangerously-skip-permissions":
            i += 1
        else:
            assert out[i] == "--permission-mode"
            assert is_valid_flag_value(out[i + 1])
            i += 2


def test_flag_value_rule() -> None:
    assert is_valid_flag_value("acceptEdits")
    assert is_valid_flag_value("a=b")
    assert not is_valid_flag_value("")
    assert not is_valid_flag_value("-plan")
    assert not is_valid_flag_value("pl an")
    assert not is_valid_flag_value("plan\u200d")
    assert not is_valid_flag_value("plan\u00a0")
    assert is_valid_flag_value("é" * 100)
    assert not is_valid_flag_value("é" * 101)


# --------------------------------------------------------------------------------------------
# Access resolution and inherit fallbacks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "worker", "lead", "expected"),
    [
        (None, CLAUDE, AgentProvider.CLAUDE_CODE, "inherit"),
        (None, CODEX, AgentProvider.CODEX, "inherit"),
        (None, CURSOR, AgentProvider.CURSOR, "inherit"),
        (None, CLAUDE, AgentProvider.CODEX, "workspace-write"),
        (None, CODEX, None, "workspace-write"),
        (None, CURSOR, AgentProvider.OPENCODE, "workspace-write"),
        ("review", CLAUDE, AgentProvider.CLAUDE_CODE, "review"),
        ("workspace-write", CLAUDE, AgentProvider.CLAUDE_CODE, "workspace-write"),
        ("inherit", CODEX, AgentProvider.CLAUDE_CODE, "inherit"),
        ("inherit", CODEX, None, "inherit"),
    ],
)
def test_resolve_access(
    requested: str | None, worker: WorkerProvider, lead: AgentProvider | None, expected: str
) -> None:
    assert resolve_access(requested, worker, lead) == expected


def test_resolve_access_rejects_unknown_values() -> None:
    with pytest.raises(ValueError):
        resolve_access("write", CODEX, None)


def test_inherit_prefers_argv_then_stored_mode_then_workspace_write() -> None:
    assert inherit_mode_flags(CLAUDE, ["--dangerously-skip-permissions"], "plan") == [
        "--dangerously-skip-permissions"
    ]
    assert inherit_mode_flags(CLAUDE, [], "plan") == ["--permission-mode", "plan"]
    assert inherit_mode_flags(CLAUDE, [], None) == ["--permission-mode", "acceptEdits"]
    assert inherit_mode_flags(CURSOR, [], "ask") == ["--mode", "ask"]
    assert inherit_mode_flags(CURSOR, [], None) == ["--force", "--sandbox", "enabled"]
    # codex has no stored mode
    assert inherit_mode_flags(CODEX, [], "plan") == ["-s", "workspace-write", "-a", "never"]


@pytest.mark.parametrize(
    ("worker", "mode", "expected"),
    [
        (CLAUDE, "acceptEdits", ["--permission-mode", "acceptEdits"]),
        (CLAUDE, "auto", ["--permission-mode", "auto"]),
        (CLAUDE, "bypassPermissions", ["--permission-mode", "bypassPermissions"]),
        (CLAUDE, "manual", ["--permission-mode", "manual"]),
        (CLAUDE, "dontAsk", ["--permission-mode", "dontAsk"]),
        (CLAUDE, "plan", ["--permission-mode", "plan"]),
        (CLAUDE, "default", []),
        (CLAUDE, "ask", []),
        (CURSOR, "plan", ["--mode", "plan"]),
        (CURSOR, "ask", ["--mode", "ask"]),
        (CURSOR, "agent", []),
        (CODEX, "plan", []),
        (CLAUDE, None, []),
    ],
)
def test_stored_mode_flags(worker: WorkerProvider, mode: str | None, expected: list[str]) -> None:
    assert stored_mode_flags(worker, mode) == expected


SESSION = "4f8a1c2e-9b7d-4e3a-8c1f-0a2b3c4d5e6f"


def test_claude_workers_get_the_session_id_mytty_chose_before_the_separator() -> None:
    q = shell_quote(FULL)
    claude = build_launch_argv(
        CLAUDE,
        model=None,
        mode_flags=access_flags(CLAUDE, "review"),
        task=TASK,
        session_id=SESSION,
    )
    assert launch_command(claude) == (
        "command claude --permission-mode plan --teammate-mode in-process "
        f"--session-id {SESSION} -- {q}"
    )
    # Codex and Cursor pick their own ids: the launch stays exactly as it was.
    for other in (CODEX, CURSOR):
        flags = access_flags(other, "review")
        assert build_launch_argv(
            other, model=None, mode_flags=flags, task=TASK, session_id=SESSION
        ) == build_launch_argv(other, model=None, mode_flags=flags, task=TASK)


def test_resume_argv_names_the_workers_own_session_with_its_launch_flags() -> None:
    claude = build_resume_argv(
        CLAUDE, model="opus", mode_flags=["--permission-mode", "plan"], session_id=SESSION
    )
    assert claude == [
        "claude", "--model", "opus", "--permission-mode", "plan",
        "--teammate-mode", "in-process", "--resume", SESSION, "--", RESUME_PROMPT,
    ]  # fmt: skip
    codex = build_resume_argv(
        CODEX, model=None, mode_flags=access_flags(CODEX, "workspace-write"), session_id=SESSION
    )
    assert codex == [
        "codex", "--no-daemon", "-s", "workspace-write", "-a", "never", "resume", SESSION,
        "--", RESUME_PROMPT,
    ]  # fmt: skip
    cursor = build_resume_argv(CURSOR, model=None, mode_flags=["--force"], session_id=SESSION)
    assert cursor == ["cursor-agent", "--force", "--resume", SESSION, "--", RESUME_PROMPT]
    for argv in (claude, codex, cursor):
        assert "--continue" not in argv and "--last" not in argv
