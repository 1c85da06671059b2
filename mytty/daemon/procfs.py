"""Process facts from /proc: foreground process of a pane, argv, ancestry, exec-time env.

These are cheap (tens of microseconds) reads, so they run on the event loop.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TypeVar

T = TypeVar("T")


def _stat_fields(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # The command name may contain spaces and parentheses: split after the last ')'.
    return data[data.rindex(b")") + 2 :].split()


def parent_pid(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[1]) if fields else None


def session_id(pid: int) -> int | None:
    """The process's session id (the pane's shell leads the pane's session)."""
    fields = _stat_fields(pid)
    return int(fields[3]) if fields else None


def foreground_pgid(pane_pid: int) -> int | None:
    """The foreground process group of the pane's terminal (``tpgid``)."""
    fields = _stat_fields(pane_pid)
    if not fields:
        return None
    tpgid = int(fields[5])
    return tpgid if tpgid > 0 else None


def foreground_pid(pane_pid: int) -> int | None:
    """The foreground process (group leader), or None when the shell itself is in front."""
    tp = foreground_pgid(pane_pid)
    if tp is None or tp == pane_pid:
        return None
    return tp


def argv(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    # Drop the NUL padding a process leaves when it rewrites its title.
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]


def exe(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def comm(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/comm", "rb") as f:
            return f.read().strip().decode("utf-8", "replace")
    except OSError:
        return None


def environ_value(pid: int, name: str) -> str | None:
    """One variable of a process's exec-time environment."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    prefix = name.encode() + b"="
    for entry in raw.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode("utf-8", "replace")
    return None


def find_ancestor(pid: int, candidates: Mapping[int, T], max_depth: int = 64) -> T | None:
    """Walk up from ``pid`` to the first pid in ``candidates``; return its value."""
    depth = 0
    current: int | None = pid
    while current is not None and current > 1 and depth < max_depth:
        hit = candidates.get(current)
        if hit is not None:
            return hit
        current = parent_pid(current)
        depth += 1
    return None


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
                out.extend(int(x) for x in f.read().split())
        except OSError:
            continue
    return out
