"""Reading what ``--access inherit`` copies from the lead agent: its argv and its stored mode.

The pure rules live in :mod:`mytty.core.jobs.inherit_flags`; this module does the I/O they need:

* a process's argv, executable and cwd (through :mod:`mytty.daemon.procfs`);
* Claude Code's current permission mode from its session transcript
  (``~/.claude/projects/<slug>/<session>.jsonl``), which also reflects a mode switched
  interactively (shift+tab) after launch;
* the whole inherit procedure in :func:`inherited_mode_flags_for`.

Blocking file reads; call from a worker thread.
"""

from __future__ import annotations

import json
import os
import re

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.estimation.detect import classify_process
from mytty.core.events import WorkerProvider
from mytty.core.jobs.inherit_flags import (
    CLAUDE_STORED_MODES,
    inherit_mode_flags,
    scan_inherited_flags,
)
from mytty.daemon import procfs

#: How much of a transcript's end is read (records before that are old news).
TRANSCRIPT_TAIL_BYTES = 512 * 1024

_SAFE_SESSION_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,255}")
_MODE_RECORD_TYPES = frozenset({"permission-mode", "user"})


# --------------------------------------------------------------------------------------------
# Claude Code transcripts
# --------------------------------------------------------------------------------------------


def claude_project_slug(path: str) -> str:
    """Claude Code's directory name for a project: every character but ASCII letters and digits
    becomes ``-`` (one per UTF-16 unit, as Claude's JavaScript does it), e.g. ``/tmp/a_b`` →
    ``-tmp-a-b``."""
    out: list[str] = []
    for ch in path:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        else:
            out.append("-" * (2 if ord(ch) > 0xFFFF else 1))
    return "".join(out)


def _slug_candidates(cwd: str) -> list[str]:
    # Claude names the directory after the cwd it sees (symlinks resolved); also try the
    # spelling we were given, which differs when a symlink is involved.
    seen: list[str] = []
    for path in (os.path.realpath(cwd), os.path.normpath(os.path.abspath(cwd))):
        slug = claude_project_slug(path)
        if slug not in seen:
            seen.append(slug)
    return seen


def _newest_jsonl(directory: str) -> str | None:
    best: tuple[float, str] | None = None
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return None
    for entry in entries:
        if not entry.name.endswith(".jsonl"):
            continue
        try:
            if not entry.is_file():
                continue
            key = (entry.stat().st_mtime, entry.name)
        except OSError:
            continue
        if best is None or key > best:
            best = key
    return os.path.join(directory, best[1]) if best is not None else None


def claude_transcript_path(cwd: str, session_id: str | None, home: str) -> str | None:
    """Find the transcript of a Claude session.

    With a session id: ``<slug>/<session>.jsonl`` under ``~/.claude/projects``, or that file name
    in any project directory (the slug rule has edge cases such as very long paths). Without
    one: the most recently written ``.jsonl`` in the cwd's project directory.
    """
    projects = os.path.join(home, ".claude", "projects")
    slugs = _slug_candidates(cwd)
    if session_id is not None and _SAFE_SESSION_ID.fullmatch(session_id):
        name = session_id + ".jsonl"
        for slug in slugs:
            candidate = os.path.join(projects, slug, name)
            if os.path.isfile(candidate):
                return candidate
        try:
            project_dirs = sorted(e.path for e in os.scandir(projects) if e.is_dir())
        except OSError:
            project_dirs = []
        for directory in project_dirs:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
    for slug in slugs:
        newest = _newest_jsonl(os.path.join(projects, slug))
        if newest is not None:
            return newest
    return None


def _read_tail_lines(path: str, limit: int) -> list[bytes]:
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            start = max(0, size - limit)
            f.seek(start)
            data = f.read(limit)
    except OSError:
        return []
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # the first line is cut off
    return lines


def claude_mode_from_transcript(
    path: str, *, tail_bytes: int = TRANSCRIPT_TAIL_BYTES
) -> str | None:
    """The last valid ``permissionMode`` on a main-thread ``permission-mode`` or ``user`` record."""
    mode: str | None = None
    for line in _read_tail_lines(path, tail_bytes):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict) or record.get("type") not in _MODE_RECORD_TYPES:
            continue
        if record.get("isSidechain") is True:
            continue
        value = record.get("permissionMode")
        if isinstance(value, str) and value in CLAUDE_STORED_MODES:
            mode = value
    return mode


def claude_stored_mode(cwd: str, session_id: str | None, home: str) -> str | None:
    """Claude Code's current permission mode for the session in ``cwd``, or None when unknown."""
    path = claude_transcript_path(cwd, session_id, home)
    if path is None:
        return None
    return claude_mode_from_transcript(path)


def claude_live_session(pid: int, home: str) -> str | None:
    """The session id a running Claude Code process registered in ``~/.claude/sessions/<pid>.json``."""
    try:
        with open(os.path.join(home, ".claude", "sessions", f"{pid}.json"), "rb") as f:
            record = json.loads(f.read(64 * 1024))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    value = record.get("sessionId")
    return value if isinstance(value, str) and value else None


# --------------------------------------------------------------------------------------------
# Cursor
# --------------------------------------------------------------------------------------------


def cursor_stored_mode(cwd: str, conversation_id: str | None, home: str) -> str | None:
    """Cursor's current mode (``plan`` or ``ask``) from its conversation ``store.db``.

    TODO: the original reads the mode from the ``meta`` of
    ``~/.cursor/chats/<workspace>/<conversation>/store.db``, but the reference material does not
    document that table's layout (nor how ``<workspace>`` is derived), so this returns None and a
    Cursor lead without mode flags falls back to the workspace-write flags. Caveat: both stored
    Cursor modes are read-only, so a lead that switched to plan/ask interactively gets a worker
    with *wider* rights than its own; such a caller should pass ``--access review``.
    """
    del cwd, conversation_id, home
    return None


# --------------------------------------------------------------------------------------------
# The inherit procedure
# --------------------------------------------------------------------------------------------


def inherited_mode_flags_for(
    worker: WorkerProvider,
    pid: int,
    *,
    home: str,
    cwd: str | None = None,
    session_id: str | None = None,
    proc_root: str = procfs.PROC,
) -> list[str]:
    """The mode flags a ``worker`` inherits from the lead agent process ``pid``.

    The process must be readable and, judged from its executable and argv alone (no
    ``MYTTY_AGENT`` hint), be the same provider as the worker; otherwise MyttyError
    ``inherit-unavailable``. Flags come from argv, else from the lead's stored mode (Claude:
    transcript; ``cwd`` and ``session_id`` default to the process's cwd and its live session
    record), else the workspace-write flags.
    """
    argv = procfs.argv(pid, proc_root=proc_root)
    if argv is None:
        raise MyttyError(
            ErrorCode.INHERIT_UNAVAILABLE,
            f"couldn't read the command line of the lead agent (pid {pid})",
        )
    exe = procfs.exe(pid, proc_root=proc_root)
    lead = classify_process(exe, argv)
    if lead != worker.agent_provider:
        seen = lead.value if lead is not None else "no known agent"
        raise MyttyError(
            ErrorCode.INHERIT_UNAVAILABLE,
            f"the anchor pane runs {seen}, not {worker.agent_provider.value}; "
            "pass --access review or --access workspace-write",
        )
    flags = scan_inherited_flags(worker, argv)
    stored: str | None = None
    if not flags and worker is WorkerProvider.CLAUDE:
        lead_cwd = cwd if cwd is not None else procfs.cwd(pid, proc_root=proc_root)
        sid = session_id if session_id is not None else claude_live_session(pid, home)
        if lead_cwd is not None:
            stored = claude_stored_mode(lead_cwd, sid, home)
    elif not flags and worker is WorkerProvider.CURSOR:
        lead_cwd = cwd if cwd is not None else procfs.cwd(pid, proc_root=proc_root)
        if lead_cwd is not None:
            stored = cursor_stored_mode(lead_cwd, session_id, home)
    return inherit_mode_flags(worker, flags, stored)
