"""The controller side of shell events on a real directory with real inotify: lines appended
by a writer reach the state without polling; whatever does not belong is ignored."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from mytty.daemon.estimation.shell_events import RESUME_TAIL, ShellEventWatcher

A = "11111111-2222-3333-4444-555555555555"
B = "66666666-7777-8888-9999-AAAAAAAAAAAA"
CAPS = {A: "A1" * 32, B: "B2" * 32}


def line(surface: str, status: int, cwd: str = "/tmp", cap: str | None = None) -> bytes:
    return f"D {status} - {cap or CAPS[surface]} {cwd}\n".encode()


def append(directory: Path, surface: str, data: bytes) -> None:
    with open(directory / f"{surface}.ev", "ab") as f:  # what the shells do: open, append, close
        f.write(data)


def watcher(directory: Path, live: set[str]) -> ShellEventWatcher:
    return ShellEventWatcher(
        directory,
        authorize=lambda s, cap: s in live and CAPS.get(s) == cap,
        is_live=lambda s: s in live,
    )


async def until(predicate: Callable[[], object], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)  # only yields: the watcher is woken by inotify


def run(body: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(body())


def test_appended_lines_reach_the_state_and_the_directory_is_private(tmp_path: Path) -> None:
    directory = tmp_path / "shell"

    async def body() -> None:
        w = watcher(directory, {A, B})
        w.start(asyncio.get_running_loop())
        try:
            assert (directory.stat().st_mode & 0o777) == 0o700
            append(directory, A, line(A, 0) + line(A, 1, "/home/u%20x"))
            append(directory, B, line(B, 42))
            await until(lambda: (s := w.state(A)) is not None and s.command_count == 2)
            a = w.state(A)
            assert a is not None and (a.last_exit_status, a.cwd) == (1, "/home/u x")
            await until(lambda: (s := w.state(B)) is not None and s.last_exit_status == 42)
            # A line written in two pieces counts once, when it is whole. inotify reports
            # writes in order, so once B's later line is in, A's first piece was read.
            append(directory, A, line(A, 7)[:5])
            append(directory, B, line(B, 43))
            await until(lambda: (s := w.state(B)) is not None and s.last_exit_status == 43)
            assert a.command_count == 2
            append(directory, A, line(A, 7)[5:])
            await until(lambda: a.command_count == 3 and a.last_exit_status == 7)
        finally:
            w.close()

    run(body)


def test_lines_that_do_not_belong_are_ignored(tmp_path: Path) -> None:
    directory = tmp_path / "shell"
    dead = "99999999-9999-9999-9999-999999999999"

    async def body() -> None:
        w = watcher(directory, {A, B})
        w.start(asyncio.get_running_loop())
        try:
            append(directory, A, line(A, 3, cap=CAPS[B]))  # B's capability in A's file
            append(directory, A, b"garbage\n" + b"x" * 100_000 + b"\n")
            append(directory, dead, f"D 1 - {'C3' * 32} /\n".encode())  # no such pane
            (directory / "notes.txt").write_text("D 1\n")
            # A FIFO under a live pane's name: opening it must not block the controller.
            os.mkfifo(directory / f"{B}.ev")
            w.drain(B)  # returns at once (a blocking open would hang the test)
            # A symlink under a live pane's name is not followed.
            (tmp_path / "elsewhere").write_bytes(line(A, 9))
            append(directory, A, line(A, 5))
            await until(lambda: w.state(A) is not None)
            a = w.state(A)
            assert a is not None and (a.command_count, a.last_exit_status) == (1, 5)
            assert w.rejected_lines == 2  # the capability and the garbage; the long line is
            # skipped while being split, never held in memory whole
            assert w.state(B) is None and w.state(dead) is None
            os.unlink(directory / f"{B}.ev")
            os.symlink(tmp_path / "elsewhere", directory / f"{B}.ev")
            w.drain(B)
            assert w.state(B) is None
        finally:
            w.close()

    run(body)


def test_a_restart_resumes_from_the_tail_and_deletes_files_of_closed_panes(tmp_path: Path) -> None:
    directory = tmp_path / "shell"
    directory.mkdir(mode=0o700)
    bulk = line(A, 1) * (2 * RESUME_TAIL // len(line(A, 1)))
    append(directory, A, bulk + line(A, 42, "/last"))
    append(directory, B, line(B, 0))

    async def body() -> None:
        w = watcher(directory, {A})  # B's pane closed while no controller ran
        w.start(asyncio.get_running_loop())
        try:
            a = w.state(A)
            assert a is not None and (a.last_exit_status, a.cwd) == (42, "/last")
            # Only the tail was read back, not the whole file.
            assert a.command_count <= RESUME_TAIL // len(line(A, 1)) + 1
            assert not (directory / f"{B}.ev").exists()
            # A replaced file (new inode) is read from its start.
            os.unlink(directory / f"{A}.ev")
            append(directory, A, line(A, 8, "/new"))
            await until(lambda: a.cwd == "/new" and a.last_exit_status == 8)
            w.forget(A)
            assert w.state(A) is None and not (directory / f"{A}.ev").exists()
        finally:
            w.close()

    run(body)


def test_a_removed_directory_is_recreated_and_watched_again(tmp_path: Path) -> None:
    directory = tmp_path / "shell"

    async def body() -> None:
        w = watcher(directory, {A})
        w.start(asyncio.get_running_loop())
        try:
            os.rmdir(directory)
            await until(directory.is_dir)
            append(directory, A, line(A, 6))
            await until(lambda: (s := w.state(A)) is not None and s.last_exit_status == 6)
        finally:
            w.close()

    run(body)


def test_listeners_hear_lines_as_they_come_but_not_the_history_read_at_start(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "shell"
    directory.mkdir(mode=0o700)
    append(directory, A, line(A, 3))  # written while no controller ran

    async def body() -> None:
        w = watcher(directory, {A})
        heard: list[tuple[str, int | None]] = []
        w.add_listener(lambda surface, event: heard.append((surface, event.exit_status)))
        w.start(asyncio.get_running_loop())
        try:
            state = w.state(A)
            assert state is not None and state.last_exit_status == 3  # the state has it…
            assert heard == []  # …but it is history: nobody is told a command just finished
            append(directory, A, line(A, 0))
            await until(lambda: heard == [(A, 0)])
        finally:
            w.close()

    run(body)
