"""The one reader of ``/proc``: process facts the controller needs, with one set of rules.

Used for a pane's foreground process, caller identity (ancestry), agent detection, codex
routing (open files), ``--access inherit`` (argv, executable, cwd of the lead agent) and worktree
clean-up (which processes work in a directory).

The rules, the same for every caller:

* A process that is gone, unreadable or half-made is an answer, not an error: readers return
  ``None`` (lists: empty) and never raise.
* **argv** splits ``cmdline`` at NULs and drops the empty strings at its end: a process that
  rewrites its title (``process.title`` in node, as ``claude`` may) leaves NUL padding there,
  which a real trailing empty argument cannot be told from. Empty arguments before the last
  real one are kept (``--flag ""`` must not swallow the next flag). An empty ``cmdline``
  (kernel thread, zombie) is ``None``.
* **Paths and arguments keep their bytes** (``os.fsdecode``: undecodable bytes survive as
  surrogates and ``os.fsencode`` gives them back); **names shown as text** (``comm``,
  environment values) are decoded as UTF-8 with U+FFFD for bad bytes.
* **exe** drops the kernel's `` (deleted)`` mark: a binary upgraded in place while it runs
  still names the program it is. **cwd** is ``None`` for a deleted directory: nothing can start
  there.

``proc_root`` exists for tests that build a fake ``/proc`` tree. The reads take tens of
microseconds, so they run on the event loop.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")
PROC = "/proc"
_DELETED_SUFFIX = " (deleted)"


def _path(pid: int, name: str, proc_root: str) -> str:
    return os.path.join(proc_root, str(pid), name)


def _read(pid: int, name: str, proc_root: str) -> bytes | None:
    try:
        with open(_path(pid, name, proc_root), "rb") as f:
            return f.read()
    except OSError:
        return None


def _link(pid: int, name: str, proc_root: str) -> str | None:
    try:
        return os.readlink(_path(pid, name, proc_root))
    except OSError:
        return None


def _stat_fields(pid: int, proc_root: str = PROC) -> list[bytes] | None:
    data = _read(pid, "stat", proc_root)
    if not data or b")" not in data:
        return None
    # The command name may contain spaces and parentheses: split after the last ')'.
    return data[data.rindex(b")") + 2 :].split()


def parent_pid(pid: int, *, proc_root: str = PROC) -> int | None:
    fields = _stat_fields(pid, proc_root)
    return int(fields[1]) if fields else None


def session_id(pid: int, *, proc_root: str = PROC) -> int | None:
    """The process's session id (the pane's shell leads the pane's session)."""
    fields = _stat_fields(pid, proc_root)
    return int(fields[3]) if fields else None


def start_time(pid: int, *, proc_root: str = PROC) -> int | None:
    """When the process started (clock ticks since boot): with the pid, it names one process."""
    fields = _stat_fields(pid, proc_root)
    return int(fields[19]) if fields and len(fields) > 19 else None


_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def started_at(pid: int, *, proc_root: str = PROC) -> float | None:
    """When the process started, in Unix seconds (to a clock tick, 10 ms); None if unknown.

    ``stat``'s start time counts ticks since boot on the boot-time clock, so now minus the
    boot-time clock's reading plus it is the wall-clock time it started, suspends included.
    """
    ticks = start_time(pid, proc_root=proc_root)
    if ticks is None:
        return None
    since_boot = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / _TICKS_PER_SECOND
    return time.time() - since_boot


def stat_brief(pid: int, *, proc_root: str = PROC) -> tuple[bytes, int, int] | None:
    """(comm, tpgid, start time) from one read of ``stat``: what a cheap look at a pane needs
    (``comm`` changes when the process execs another program)."""
    data = _read(pid, "stat", proc_root)
    if not data or b")" not in data:
        return None
    end = data.rindex(b")")
    fields = data[end + 2 :].split()
    if len(fields) <= 19:
        return None
    return data[data.find(b"(") + 1 : end], int(fields[5]), int(fields[19])


def foreground_pgid(pane_pid: int, *, proc_root: str = PROC) -> int | None:
    """The foreground process group of the pane's terminal (``tpgid``)."""
    fields = _stat_fields(pane_pid, proc_root)
    if not fields:
        return None
    tpgid = int(fields[5])
    return tpgid if tpgid > 0 else None


def foreground_pid(pane_pid: int, *, proc_root: str = PROC) -> int | None:
    """The foreground process (group leader), or None when the shell itself is in front."""
    tp = foreground_pgid(pane_pid, proc_root=proc_root)
    if tp is None or tp == pane_pid:
        return None
    return tp


def argv(pid: int, *, proc_root: str = PROC) -> list[str] | None:
    """The process's arguments (without the NUL padding of a rewritten title)."""
    raw = _read(pid, "cmdline", proc_root)
    if not raw:
        return None
    args = raw.rstrip(b"\0").split(b"\0")
    return [os.fsdecode(a) for a in args] if args != [b""] else None


def exe(pid: int, *, proc_root: str = PROC) -> str | None:
    """The executable's path, without the `` (deleted)`` mark of a replaced binary."""
    path = _link(pid, "exe", proc_root)
    if path is None:
        return None
    return path.removesuffix(_DELETED_SUFFIX) or None


def cwd(pid: int, *, proc_root: str = PROC) -> str | None:
    """The current directory, or None when it is unreadable or was deleted."""
    path = _link(pid, "cwd", proc_root)
    if not path or path.endswith(_DELETED_SUFFIX):
        return None
    return path


def comm(pid: int, *, proc_root: str = PROC) -> str | None:
    """The process's short name (what ``ps`` shows; a process may set it)."""
    raw = _read(pid, "comm", proc_root)
    return None if raw is None else raw.strip().decode("utf-8", "replace")


def environ_value(pid: int, name: str, *, proc_root: str = PROC) -> str | None:
    """One variable of a process's exec-time environment."""
    raw = _read(pid, "environ", proc_root)
    if raw is None:
        return None
    prefix = name.encode() + b"="
    for entry in raw.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode("utf-8", "replace")
    return None


def environ(pid: int, *, proc_root: str = PROC) -> dict[str, str] | None:
    """The process's whole exec-time environment (None when unreadable)."""
    raw = _read(pid, "environ", proc_root)
    if raw is None:
        return None
    out: dict[str, str] = {}
    for entry in raw.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        if sep and name:
            out[name.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return out


def open_files(pid: int, *, proc_root: str = PROC) -> list[str]:
    """Where the process's file descriptors point (paths, ``socket:[…]``, ``pipe:[…]``)."""
    fd_dir = _path(pid, "fd", proc_root)
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return []
    targets = []
    for fd in fds:
        try:
            targets.append(os.readlink(os.path.join(fd_dir, fd)))
        except OSError:
            continue
    return targets


def fd_count(pid: int, *, proc_root: str = PROC) -> int | None:
    """How many file descriptors the process holds (None when unreadable)."""
    try:
        return len(os.listdir(_path(pid, "fd", proc_root)))
    except OSError:
        return None


def find_ancestor(
    pid: int, candidates: Mapping[int, T], max_depth: int = 64, *, proc_root: str = PROC
) -> T | None:
    """Walk up from ``pid`` to the first pid in ``candidates``; return its value."""
    depth = 0
    current: int | None = pid
    while current is not None and current > 1 and depth < max_depth:
        hit = candidates.get(current)
        if hit is not None:
            return hit
        current = parent_pid(current, proc_root=proc_root)
        depth += 1
    return None


def children(pid: int, *, proc_root: str = PROC) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(_path(pid, "task", proc_root))
    except OSError:
        return out
    for tid in tasks:
        raw = _read(pid, os.path.join("task", tid, "children"), proc_root)
        if raw is not None:
            out.extend(int(x) for x in raw.split())
    return out


def pids(*, proc_root: str = PROC) -> list[int]:
    """Every process id ``/proc`` lists right now."""
    try:
        names = os.listdir(proc_root)
    except OSError:
        return []
    return [int(name) for name in names if name.isdigit()]


def pids_working_in(directory: str, *, proc_root: str = PROC) -> list[int]:
    """Processes whose current directory is ``directory`` or below it (by real path).

    A process whose cwd can't be read (another user's, a zombie) is not counted: only this
    user's processes can hold work mytty could remove.
    """
    root = os.path.realpath(directory)
    inside = root.rstrip("/") + "/"
    found = []
    for pid in pids(proc_root=proc_root):
        where = cwd(pid, proc_root=proc_root)
        if where is not None and (where == root or where.startswith(inside)):
            found.append(pid)
    return found


class ProcStat:
    """The figures of one ``stat`` line a resource sample needs."""

    __slots__ = ("cpu_ticks", "pid", "ppid", "rss_pages", "start_ticks")

    def __init__(self, pid: int, ppid: int, start_ticks: int, cpu_ticks: int, rss_pages: int):
        self.pid = pid
        self.ppid = ppid
        self.start_ticks = start_ticks
        self.cpu_ticks = cpu_ticks  # utime + stime
        self.rss_pages = rss_pages


PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
TICKS_PER_SECOND = _TICKS_PER_SECOND


def process_table(*, proc_root: str = PROC) -> dict[int, ProcStat]:
    """Every process's parent, start time, CPU time and resident pages, from one read of its
    ``stat`` each: one pass over ``/proc``, about 5 µs a process (raw ``os.read`` under a
    directory descriptor; ``open()`` costs five times that)."""
    table: dict[int, ProcStat] = {}
    try:
        names = os.listdir(proc_root)
        root_fd = os.open(proc_root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return table
    try:
        for name in names:
            if not name.isdigit():
                continue
            try:
                fd = os.open(f"{name}/stat", os.O_RDONLY, dir_fd=root_fd)
                try:
                    data = os.read(fd, 4096)
                finally:
                    os.close(fd)
                # The command name may hold spaces and parentheses: split after the last ')'.
                fields = data[data.rindex(b")") + 2 :].split(None, 22)
                table[int(name)] = ProcStat(
                    int(name),
                    int(fields[1]),
                    int(fields[19]),
                    int(fields[11]) + int(fields[12]),
                    int(fields[21]),
                )
            except (OSError, ValueError, IndexError):
                continue  # gone, or half-made: no answer, not an error
    finally:
        os.close(root_fd)
    return table


def descendants(root: int, table: Mapping[int, ProcStat]) -> list[int]:
    """``root`` and every process below it in ``table`` (from :func:`process_table`)."""
    kids: dict[int, list[int]] = {}
    for stat in table.values():
        kids.setdefault(stat.ppid, []).append(stat.pid)
    return tree_of(root, kids)


def tree_of(root: int, kids: Mapping[int, list[int]]) -> list[int]:
    """``root`` and its descendants, given each pid's children."""
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, ()))
    return out


def own_cgroup(*, proc_root: str = PROC) -> str | None:
    """This process's cgroup v2 path (the ``0::`` line of ``/proc/self/cgroup``), or None."""
    raw = _read(os.getpid(), "cgroup", proc_root)
    if raw is None:
        return None
    for line in raw.decode("utf-8", "replace").splitlines():
        if line.startswith("0::"):
            return line[3:] or "/"
    return None
