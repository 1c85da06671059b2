"""Inherit I/O: /proc reads (mytty.daemon.procfs), Claude transcripts, the whole procedure on a fake /proc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import WorkerProvider
from mytty.daemon.jobs.inherit import (
    TRANSCRIPT_TAIL_BYTES,
    claude_live_session,
    claude_mode_from_transcript,
    claude_project_slug,
    claude_stored_mode,
    claude_transcript_path,
    cursor_stored_mode,
    inherited_mode_flags_for,
)
from mytty.daemon.procfs import argv as read_process_argv
from mytty.daemon.procfs import cwd as read_process_cwd
from mytty.daemon.procfs import exe as read_process_exe

SID = "2f295c41-79c8-40fa-854a-def4848899c0"
CLAUDE_EXE = "/home/dev/.npm/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe"

# --------------------------------------------------------------------------------------------
# /proc on a real process
# --------------------------------------------------------------------------------------------


@pytest.fixture
def sleeper(tmp_path: Path):
    argv = [sys.executable, "-c", "import time; time.sleep(60)", "héllo wörld", "", "--flag=x"]
    proc = subprocess.Popen(argv, cwd=tmp_path, stdin=subprocess.DEVNULL)
    try:
        yield proc, argv
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_reads_a_live_process(sleeper, tmp_path: Path) -> None:
    proc, argv = sleeper
    # Right after fork the child may not have exec'd yet (it still shows our own argv).
    deadline = time.monotonic() + 10
    while read_process_argv(proc.pid) != argv and time.monotonic() < deadline:
        time.sleep(0.01)
    assert read_process_argv(proc.pid) == argv
    assert read_process_exe(proc.pid) == os.path.realpath(sys.executable)
    assert read_process_cwd(proc.pid) == str(tmp_path)


def test_unreadable_process_gives_none(tmp_path: Path) -> None:
    assert read_process_argv(1, proc_root=str(tmp_path)) is None
    assert read_process_exe(1, proc_root=str(tmp_path)) is None
    assert read_process_cwd(1, proc_root=str(tmp_path)) is None


def make_proc(
    root: Path, pid: int, argv: list[str] | bytes, exe: str, cwd: str | None = None
) -> None:
    d = root / str(pid)
    d.mkdir(parents=True)
    raw = argv if isinstance(argv, bytes) else b"".join(a.encode() + b"\0" for a in argv)
    (d / "cmdline").write_bytes(raw)
    (d / "exe").symlink_to(exe)
    if cwd is not None:
        (d / "cwd").symlink_to(cwd)


def test_fake_proc_details(tmp_path: Path) -> None:
    make_proc(tmp_path, 7, ["claude", "--x"], CLAUDE_EXE + " (deleted)")
    assert read_process_exe(7, proc_root=str(tmp_path)) == CLAUDE_EXE
    make_proc(tmp_path, 8, b"", "/usr/bin/x")  # kernel thread / zombie: empty cmdline
    assert read_process_argv(8, proc_root=str(tmp_path)) is None
    make_proc(tmp_path, 9, b"a\0b", "/usr/bin/x")  # no trailing NUL (rewritten argv)
    assert read_process_argv(9, proc_root=str(tmp_path)) == ["a", "b"]
    make_proc(tmp_path, 10, b"\xff\0", "/usr/bin/x")  # undecodable bytes survive
    assert os.fsencode(read_process_argv(10, proc_root=str(tmp_path))[0]) == b"\xff"  # type: ignore[index]


# --------------------------------------------------------------------------------------------
# Claude transcripts
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "slug"),
    [
        ("/tmp/work-claude", "-tmp-work-claude"),
        ("/home/dev/my_proj.v2", "-home-dev-my-proj-v2"),
        ("/Users/a b/x", "-Users-a-b-x"),
        ("/ü/🚀", "---" + "--"),
    ],
)
def test_project_slug(path: str, slug: str) -> None:
    assert claude_project_slug(path) == slug


def rec(
    type_: str, mode: str | None, *, sidechain: bool = False, **extra: object
) -> dict[str, object]:
    r: dict[str, object] = {"type": type_, "isSidechain": sidechain, **extra}
    if mode is not None:
        r["permissionMode"] = mode
    return r


def write_transcript(path: Path, records: list[object], *, junk: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in records]
    if junk:
        lines.insert(1, "{not json")
        lines.insert(2, "")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_last_valid_mode_wins(tmp_path: Path) -> None:
    t = write_transcript(
        tmp_path / "t.jsonl",
        [
            rec("user", "acceptEdits"),
            rec("permission-mode", "plan"),
            rec("user", "bypassPermissions", sidechain=True),  # a subagent's, not the lead's
            rec("assistant", "auto"),  # wrong record type
            rec("user", "default"),  # not a mode we copy
            rec("user", None),
            rec("user", 3),  # type: ignore[arg-type]
            ["not", "an", "object"],
        ],
    )
    assert claude_mode_from_transcript(str(t)) == "plan"


def test_no_mode_recorded(tmp_path: Path) -> None:
    t = write_transcript(tmp_path / "t.jsonl", [rec("user", None), rec("system", None)])
    assert claude_mode_from_transcript(str(t)) is None
    assert claude_mode_from_transcript(str(tmp_path / "missing.jsonl")) is None


def test_only_the_tail_is_read(tmp_path: Path) -> None:
    filler = json.dumps({"type": "assistant", "pad": "x" * 1000})
    t = tmp_path / "t.jsonl"
    with open(t, "w") as f:
        f.write(json.dumps(rec("user", "dontAsk")) + "\n")
        f.writelines(filler + "\n" for _ in range(TRANSCRIPT_TAIL_BYTES // 1000 + 10))
    assert claude_mode_from_transcript(str(t)) is None
    with open(t, "a") as f:
        f.write(json.dumps(rec("permission-mode", "auto")) + "\n")
    assert claude_mode_from_transcript(str(t)) == "auto"


def test_a_record_cut_by_the_tail_window_is_ignored(tmp_path: Path) -> None:
    big = json.dumps(rec("user", "bypassPermissions", pad="y" * 200))
    t = tmp_path / "t.jsonl"
    t.write_text(big + "\n" + json.dumps(rec("user", "manual")) + "\n")
    # a window that starts in the middle of the first record: only the second one counts
    assert claude_mode_from_transcript(str(t), tail_bytes=len(big) // 2 + 40) == "manual"


def _home_with(tmp_path: Path, cwd: str, files: dict[str, list[object]]) -> Path:
    home = tmp_path / "home"
    for name, records in files.items():
        write_transcript(home / ".claude" / "projects" / claude_project_slug(cwd) / name, records)
    return home


def test_transcript_by_session_id(tmp_path: Path) -> None:
    cwd = str(tmp_path / "work")
    os.mkdir(cwd)
    home = _home_with(
        tmp_path, cwd, {f"{SID}.jsonl": [rec("user", "plan")], "newer.jsonl": [rec("user", "auto")]}
    )
    newer = home / ".claude" / "projects" / claude_project_slug(cwd) / "newer.jsonl"
    os.utime(newer, (2_000_000_000, 2_000_000_000))
    assert claude_stored_mode(cwd, SID, str(home)) == "plan"
    # without a session id the most recently written transcript is used
    assert claude_stored_mode(cwd, None, str(home)) == "auto"


def test_session_id_found_in_another_project_directory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_transcript(
        home / ".claude" / "projects" / "-weird-slug" / f"{SID}.jsonl", [rec("user", "dontAsk")]
    )
    assert claude_stored_mode(str(tmp_path), SID, str(home)) == "dontAsk"
    assert claude_stored_mode(str(tmp_path), None, str(home)) is None


def test_symlinked_cwd_uses_the_resolved_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    home = _home_with(tmp_path, str(real), {"a.jsonl": [rec("user", "acceptEdits")]})
    assert claude_stored_mode(str(link), None, str(home)) == "acceptEdits"


def test_unsafe_session_ids_are_not_used_as_paths(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_transcript(home / ".claude" / "evil.jsonl", [rec("user", "bypassPermissions")])
    assert claude_transcript_path(str(tmp_path), "../../evil", str(home)) is None
    assert claude_transcript_path(str(tmp_path), "../evil", str(home)) is None


def test_live_session_registry(tmp_path: Path) -> None:
    sessions = tmp_path / ".claude" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "4242.json").write_text(json.dumps({"pid": 4242, "sessionId": SID, "cwd": "/x"}))
    (sessions / "4243.json").write_text("{broken")
    (sessions / "4244.json").write_text(json.dumps({"sessionId": ""}))
    assert claude_live_session(4242, str(tmp_path)) == SID
    assert claude_live_session(4243, str(tmp_path)) is None
    assert claude_live_session(4244, str(tmp_path)) is None
    assert claude_live_session(1, str(tmp_path)) is None


def test_cursor_stored_mode_is_not_implemented_yet(tmp_path: Path) -> None:
    assert cursor_stored_mode(str(tmp_path), "conv", str(tmp_path)) is None


# --------------------------------------------------------------------------------------------
# The whole inherit procedure on a fake /proc
# --------------------------------------------------------------------------------------------


@pytest.fixture
def proc_root(tmp_path: Path) -> Path:
    root = tmp_path / "proc"
    root.mkdir()
    return root


def test_inherits_claude_flags_from_argv(proc_root: Path, tmp_path: Path) -> None:
    make_proc(
        proc_root, 100, ["claude", "--model", "opus", "--dangerously-skip-permissions"], CLAUDE_EXE
    )
    flags = inherited_mode_flags_for(
        WorkerProvider.CLAUDE, 100, home=str(tmp_path), proc_root=str(proc_root)
    )
    assert flags == ["--dangerously-skip-permissions"]


def test_inherits_claude_mode_from_the_transcript(proc_root: Path, tmp_path: Path) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    home = _home_with(
        tmp_path,
        str(cwd),
        {f"{SID}.jsonl": [rec("user", "acceptEdits"), rec("permission-mode", "auto")]},
    )
    make_proc(proc_root, 101, ["claude"], CLAUDE_EXE, cwd=str(cwd))
    sessions = home / ".claude" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "101.json").write_text(json.dumps({"sessionId": SID}))
    flags = inherited_mode_flags_for(
        WorkerProvider.CLAUDE, 101, home=str(home), proc_root=str(proc_root)
    )
    assert flags == ["--permission-mode", "auto"]


def test_claude_falls_back_to_workspace_write(proc_root: Path, tmp_path: Path) -> None:
    make_proc(proc_root, 102, ["claude"], CLAUDE_EXE, cwd=str(tmp_path))
    flags = inherited_mode_flags_for(
        WorkerProvider.CLAUDE, 102, home=str(tmp_path / "h"), proc_root=str(proc_root)
    )
    assert flags == ["--permission-mode", "acceptEdits"]


def test_codex_through_its_node_wrapper(proc_root: Path, tmp_path: Path) -> None:
    make_proc(
        proc_root,
        103,
        ["node", "/x/node_modules/.bin/codex", "-s", "danger-full-access"],
        "/usr/bin/node",
    )
    flags = inherited_mode_flags_for(
        WorkerProvider.CODEX, 103, home=str(tmp_path), proc_root=str(proc_root)
    )
    assert flags == ["-s", "danger-full-access"]
    make_proc(proc_root, 104, ["codex"], "/usr/bin/codex")
    flags = inherited_mode_flags_for(
        WorkerProvider.CODEX, 104, home=str(tmp_path), proc_root=str(proc_root)
    )
    assert flags == ["-s", "workspace-write", "-a", "never"]


def test_cursor_without_flags_falls_back(proc_root: Path, tmp_path: Path) -> None:
    make_proc(
        proc_root, 105, ["cursor-agent"], "/home/u/.local/bin/cursor-agent", cwd=str(tmp_path)
    )
    flags = inherited_mode_flags_for(
        WorkerProvider.CURSOR, 105, home=str(tmp_path), proc_root=str(proc_root)
    )
    assert flags == ["--force", "--sandbox", "enabled"]
    make_proc(proc_root, 106, ["cursor-agent", "--mode=ask"], "/home/u/.local/bin/cursor-agent")
    flags = inherited_mode_flags_for(
        WorkerProvider.CURSOR, 106, home=str(tmp_path), proc_root=str(proc_root)
    )
    assert flags == ["--mode", "ask"]


def test_a_different_provider_is_unavailable(proc_root: Path, tmp_path: Path) -> None:
    make_proc(proc_root, 107, ["claude", "--permission-mode", "plan"], CLAUDE_EXE)
    with pytest.raises(MyttyError) as err:
        inherited_mode_flags_for(
            WorkerProvider.CODEX, 107, home=str(tmp_path), proc_root=str(proc_root)
        )
    assert err.value.code == ErrorCode.INHERIT_UNAVAILABLE
    assert "claude-code" in err.value.message


def test_a_shell_is_unavailable(proc_root: Path, tmp_path: Path) -> None:
    make_proc(proc_root, 108, ["-bash"], "/usr/bin/bash")
    with pytest.raises(MyttyError) as err:
        inherited_mode_flags_for(
            WorkerProvider.CLAUDE, 108, home=str(tmp_path), proc_root=str(proc_root)
        )
    assert err.value.code == ErrorCode.INHERIT_UNAVAILABLE


def test_an_unreadable_process_is_unavailable(proc_root: Path, tmp_path: Path) -> None:
    with pytest.raises(MyttyError) as err:
        inherited_mode_flags_for(
            WorkerProvider.CLAUDE, 999, home=str(tmp_path), proc_root=str(proc_root)
        )
    assert err.value.code == ErrorCode.INHERIT_UNAVAILABLE
