"""The one /proc reader's rules (mytty.daemon.procfs), on a fake /proc tree and on live processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mytty.daemon import procfs


def fake_proc(root: Path, pid: int, **files: bytes | str) -> Path:
    """Files are bytes (written) or str (a symlink to that target)."""
    d = root / str(pid)
    d.mkdir(parents=True)
    for name, content in files.items():
        if isinstance(content, bytes):
            (d / name).write_bytes(content)
        else:
            (d / name).symlink_to(content)
    return d


@pytest.mark.parametrize(
    ("cmdline", "expected"),
    [
        (b"claude\0--x\0", ["claude", "--x"]),
        (b"a\0b", ["a", "b"]),  # no trailing NUL
        (b"claude\0\0\0\0\0\0", ["claude"]),  # the padding of a rewritten title
        (b"tool\0--flag\0\0--next\0", ["tool", "--flag", "", "--next"]),  # a real empty argument
        (b"", None),  # kernel thread, zombie
        (b"\0\0", None),
    ],
)
def test_argv(tmp_path: Path, cmdline: bytes, expected: list[str] | None) -> None:
    fake_proc(tmp_path, 5, cmdline=cmdline)
    assert procfs.argv(5, proc_root=str(tmp_path)) == expected


def test_arguments_and_paths_keep_their_bytes(tmp_path: Path) -> None:
    fake_proc(tmp_path, 5, cmdline=b"\xff\0", cwd=os.fsdecode(b"/tmp/d\xfe"))
    [arg] = procfs.argv(5, proc_root=str(tmp_path)) or []
    assert os.fsencode(arg) == b"\xff"
    assert os.fsencode(procfs.cwd(5, proc_root=str(tmp_path)) or "") == b"/tmp/d\xfe"


def test_names_shown_as_text_are_valid_utf8(tmp_path: Path) -> None:
    fake_proc(tmp_path, 5, comm=b"na\xffme\n", environ=b"A=1\0MYTTY_AGENT=x\xff\0")
    assert procfs.comm(5, proc_root=str(tmp_path)) == "na\ufffdme"
    assert procfs.environ_value(5, "MYTTY_AGENT", proc_root=str(tmp_path)) == "x\ufffd"
    assert procfs.environ_value(5, "MISSING", proc_root=str(tmp_path)) is None


def test_a_replaced_binary_still_names_its_program(tmp_path: Path) -> None:
    fake_proc(tmp_path, 5, exe="/usr/bin/claude (deleted)")
    fake_proc(tmp_path, 6, exe="/usr/bin/codex")
    assert procfs.exe(5, proc_root=str(tmp_path)) == "/usr/bin/claude"
    assert procfs.exe(6, proc_root=str(tmp_path)) == "/usr/bin/codex"


def test_a_deleted_working_directory_is_none(tmp_path: Path) -> None:
    fake_proc(tmp_path, 5, cwd="/work/gone (deleted)")
    fake_proc(tmp_path, 6, cwd="/work/here")
    assert procfs.cwd(5, proc_root=str(tmp_path)) is None
    assert procfs.cwd(6, proc_root=str(tmp_path)) == "/work/here"


def test_stat_fields_survive_parentheses_and_spaces_in_the_name(tmp_path: Path) -> None:
    # pid (comm) state ppid pgrp session tty_nr tpgid ...
    fake_proc(tmp_path, 5, stat=b"5 (we (ird) name) S 4 5 3 34816 77 0 0\n")
    root = str(tmp_path)
    assert procfs.parent_pid(5, proc_root=root) == 4
    assert procfs.session_id(5, proc_root=root) == 3
    assert procfs.foreground_pgid(5, proc_root=root) == 77
    assert procfs.foreground_pid(5, proc_root=root) == 77


def test_the_shell_in_front_means_no_foreground_process(tmp_path: Path) -> None:
    fake_proc(tmp_path, 5, stat=b"5 (bash) S 4 5 5 34816 5 0\n")
    assert procfs.foreground_pid(5, proc_root=str(tmp_path)) is None


def test_ancestry_walk_stops_at_the_first_known_pid(tmp_path: Path) -> None:
    fake_proc(tmp_path, 30, stat=b"30 (hook) S 20 1 1 0 0 0\n")
    fake_proc(tmp_path, 20, stat=b"20 (agent) S 10 1 1 0 0 0\n")
    fake_proc(tmp_path, 10, stat=b"10 (bash) S 1 1 1 0 0 0\n")
    root = str(tmp_path)
    assert procfs.find_ancestor(30, {10: "pane"}, proc_root=root) == "pane"
    assert procfs.find_ancestor(30, {99: "other"}, proc_root=root) is None
    assert procfs.find_ancestor(30, {10: "pane"}, max_depth=1, proc_root=root) is None


def test_open_files_and_children(tmp_path: Path) -> None:
    d = fake_proc(tmp_path, 5)
    (d / "fd").mkdir()
    (d / "fd" / "3").symlink_to("/home/u/.codex/sessions/x.jsonl")
    (d / "task" / "5").mkdir(parents=True)
    (d / "task" / "5" / "children").write_bytes(b"6 7 ")
    root = str(tmp_path)
    assert procfs.open_files(5, proc_root=root) == ["/home/u/.codex/sessions/x.jsonl"]
    assert procfs.fd_count(5, proc_root=root) == 1
    assert procfs.children(5, proc_root=root) == [6, 7]


def test_a_missing_process_is_an_answer_not_an_error(tmp_path: Path) -> None:
    root = str(tmp_path)
    assert procfs.argv(1, proc_root=root) is None
    assert procfs.exe(1, proc_root=root) is None
    assert procfs.cwd(1, proc_root=root) is None
    assert procfs.comm(1, proc_root=root) is None
    assert procfs.environ_value(1, "X", proc_root=root) is None
    assert procfs.parent_pid(1, proc_root=root) is None
    assert procfs.foreground_pid(1, proc_root=root) is None
    assert procfs.open_files(1, proc_root=root) == []
    assert procfs.fd_count(1, proc_root=root) is None
    assert procfs.children(1, proc_root=root) == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_a_live_process(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import time; time.sleep(60)", "", "x"]
    proc = subprocess.Popen(argv, cwd=tmp_path, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while procfs.argv(proc.pid) != argv and time.monotonic() < deadline:
            time.sleep(0.01)  # right after fork the child still shows our own argv
        assert procfs.argv(proc.pid) == argv
        assert procfs.exe(proc.pid) == os.path.realpath(sys.executable)
        assert procfs.cwd(proc.pid) == str(tmp_path)
        assert procfs.parent_pid(proc.pid) == os.getpid()
        assert proc.pid in procfs.children(os.getpid())
    finally:
        proc.kill()
        proc.wait()


def test_procfs_is_the_only_reader_of_proc() -> None:
    """One reader, one set of rules: no other module names a /proc path in code."""
    import ast
    import gc

    # Other tests' asyncio subprocess transports finalized inside ast.parse trip a CPython 3.11
    # bug ("AST constructor recursion depth mismatch"): collect them first.
    gc.collect()
    here = Path(procfs.__file__).resolve()
    pkg = here.parents[1]
    offenders: list[str] = []
    for path in sorted(pkg.rglob("*.py")):
        if path == here:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        offenders.extend(
            f"{path.relative_to(pkg.parent)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and (node.value == "/proc" or node.value.startswith("/proc/"))
        )
    assert offenders == [], offenders


def test_stat_brief_reads_name_foreground_group_and_start_at_once(tmp_path: Path) -> None:
    rest = "S 4 5 3 34816 77 " + " ".join(["0"] * 13) + " 4242"
    fake_proc(tmp_path, 5, stat=f"5 (we (ird) name) {rest}\n".encode())
    assert procfs.stat_brief(5, proc_root=str(tmp_path)) == (b"we (ird) name", 77, 4242)
    assert procfs.start_time(5, proc_root=str(tmp_path)) == 4242
    assert procfs.stat_brief(6, proc_root=str(tmp_path)) is None
