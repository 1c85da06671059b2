"""Reading the agents' own transcripts, a little at a time (semantics §9.4; issue 13 item 5).

:class:`TranscriptReader` is the estimator's turn source (``observe(target)``) and also what
keeps token usage per pane, turns Claude's Esc note into an ``idle`` event, and a turn that
stopped at the usage limit into a ``limit-reached`` event whose reset it keeps
(:meth:`TranscriptReader.limit_facts`). For each pane it
finds the agent's transcript, reads only what was appended since the last pass (by inode, size
and offset; a new or replaced file is tailed from its last :data:`TAIL_BYTES`), and feeds whole
lines to the pure parsers of :mod:`mytty.core.transcripts.claude` /
:mod:`mytty.core.transcripts.codex`. A pass over a pane whose file did not change costs one
``stat``.

Finding the file, with the ``HOME`` (and ``CLAUDE_CONFIG_DIR``/``CODEX_HOME``) of the agent's own
environment, since that is where the agent writes:

- Claude Code: ``<config>/projects/<slug of cwd>/<session>.jsonl`` (slug: every character but
  ASCII letters and digits becomes ``-``). The session is the hook's (or the one mytty gave the
  worker), else the one Claude's live registry ``<config>/sessions/<pid>.json`` names, else the
  newest ``.jsonl`` in the slug directory (the seed's rule; two Claudes in one directory make
  that a guess, which is why the registry comes first).
- Cursor: ``~/.cursor/chats/<md5 of cwd>/<conversationId>/store.db`` (the hook's conversation
  id, else the newest store there), its newest 400 blobs, queried at most every 5 s.
- Codex: the ``rollout-*.jsonl`` under ``$CODEX_HOME/sessions`` that the codex process (or its
  native child, under the npm wrapper) holds open; else the one named after the hook's session
  id (a shared background server holds the files for every pane).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Protocol
from urllib.parse import quote

from mytty.core.estimation.turn_observation import TurnObservation, TurnPhase, TurnTarget
from mytty.core.events import AgentEvent, AgentProvider
from mytty.core.ids import RunId, SurfaceId
from mytty.core.limits.facts import LimitFacts
from mytty.core.transcripts.claude import (
    REGISTRY_IDLE_GRACE_S,
    ClaudeInterrupt,
    ClaudeTranscript,
    interrupt_event,
    registry_idle_since,
    registry_interrupt,
)
from mytty.core.transcripts.codex import CodexRollout, failure_event
from mytty.core.transcripts.cursor import SCAN_BLOBS, cursor_turn
from mytty.core.transcripts.limits import limit_event, limit_run_id
from mytty.core.transcripts.usage import UsageReading
from mytty.daemon import procfs

log = logging.getLogger(__name__)

#: A file first seen (or replaced) is read from at most this far before its end.
TAIL_BYTES = 512 * 1024
#: At most this much of one file is read per pass; the rest waits for the next pass.
MAX_READ_PER_PASS = 4 * 1024 * 1024
#: A line longer than this is skipped (no real row is; a runaway one must not grow memory).
MAX_LINE_BYTES = 8 * 1024 * 1024
#: Cursor's store is a database, not a log: it is queried at most this often per pane.
CURSOR_CACHE_S = 5.0
#: How often a pane whose file was found by a guess (newest file) looks for a newer one.
RELOCATE_EVERY_S = 2.0
#: Limited turns whose facts are kept per pane (a job parks on the newest).
MAX_LIMITS_PER_PANE = 8


def claude_slug(path: str) -> str:
    """Claude's project directory name for ``path``: non-alphanumerics become ``-``."""
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in path)


class _Parser(Protocol):
    @property
    def observation(self) -> TurnObservation | None: ...

    def report(self) -> TurnObservation | None: ...
    @property
    def usage(self) -> UsageReading: ...
    def feed(self, line: bytes) -> None: ...


@dataclass
class _Tail:
    """Where reading one file stands."""

    path: str
    inode: int = -1
    offset: int = 0
    pending: bytes = b""
    skipping: bool = False  # inside a line that is dropped (torn by the tail, or too long)

    def read_lines(self) -> tuple[list[bytes], bool]:
        """Whole lines appended since the last call, and whether the file was new or replaced
        (so its parser must start over). Raises OSError when the file is unreadable."""
        with open(self.path, "rb") as f:
            st = os.fstat(f.fileno())
            restarted = st.st_ino != self.inode or st.st_size < self.offset
            if restarted:
                self.inode = st.st_ino
                self.offset = max(0, st.st_size - TAIL_BYTES)
                self.pending = b""
                self.skipping = self.offset > 0  # the first line read is likely torn
            if st.st_size == self.offset:
                return [], restarted
            f.seek(self.offset)
            data = f.read(min(st.st_size - self.offset, MAX_READ_PER_PASS))
        self.offset += len(data)
        return self._split(data), restarted

    def _split(self, data: bytes) -> list[bytes]:
        parts = (self.pending + data).split(b"\n")
        self.pending = parts.pop()
        if self.skipping and parts:
            parts.pop(0)
            self.skipping = False
        if len(self.pending) > MAX_LINE_BYTES:
            self.pending, self.skipping = b"", True
        return [p for p in parts if p.strip()]


@dataclass
class _Transcript:
    provider: AgentProvider
    tail: _Tail
    parser: _Parser
    #: The usage read before this file was last restarted (a replaced file adds to it).
    carried: UsageReading = field(default_factory=UsageReading)

    def advance(self) -> None:
        lines, restarted = self.tail.read_lines()
        if restarted:
            self.carried = self.carried + self.parser.usage
            self.parser = _new_parser(self.provider)
        for line in lines:
            self.parser.feed(line)

    @property
    def usage(self) -> UsageReading:
        return self.carried + self.parser.usage


def _new_parser(provider: AgentProvider) -> _Parser:
    return ClaudeTranscript() if provider is AgentProvider.CLAUDE_CODE else CodexRollout()


@dataclass
class _PaneFiles:
    """One pane's transcripts: every file it had (a new session, Claude's /clear, adds to the
    pane's figures instead of replacing them) and the one it is on now."""

    key: tuple[AgentProvider, int, str | None]  # provider, pid, session id
    files: dict[str, _Transcript] = field(default_factory=dict)
    current: str | None = None
    relocate: bool = True
    guessed: bool = False
    #: Files found only by the newest-file guess: dropped (figures too) once the pane's real
    #: file is known, since the guess may have been another agent's in the same directory.
    guesses: set[str] = field(default_factory=set)
    located_at: float = 0.0

    @property
    def usage(self) -> UsageReading:
        total = UsageReading()
        for transcript in self.files.values():
            total = total + transcript.usage
        return total


class TranscriptReader:
    """The turn source over transcripts, plus usage per pane and the Claude interrupt event."""

    def __init__(
        self,
        *,
        emit: Callable[[AgentEvent], None],
        on_usage: Callable[[SurfaceId, UsageReading], None] | None = None,
        clock: Callable[[], float] = time.time,
        proc_root: str = procfs.PROC,
        own_home: str | None = None,
        session_hint: Callable[[str], str | None] | None = None,
    ) -> None:
        self._emit = emit
        #: The session a pane's agent was given when its hooks have not said one (a spawned
        #: Claude worker's --session-id), so its file is found without a guess.
        self._session_hint = session_hint
        self._on_usage = on_usage
        self._reported: dict[str, UsageReading] = {}
        self._clock = clock
        self._proc = proc_root
        self._own_home = own_home or os.path.expanduser("~")
        self._panes: dict[str, _PaneFiles] = {}
        self._cursor_cache: dict[str, tuple[int, float, TurnObservation | None]] = {}
        self._registry_dirs: dict[str, str] = {}
        self._awaited: dict[str, str | None] = {}
        self._recheck: dict[str, float] = {}
        self._emitted: dict[str, ClaudeInterrupt] = {}
        self._failed: dict[str, str] = {}  # the Codex turn whose failure was emitted, per pane
        #: Per pane, the facts of the limited turns read (by their run), newest last.
        self._limits: dict[str, dict[RunId, LimitFacts]] = {}

    # -- the estimator's turn source ------------------------------------------------------------
    def observe(self, target: TurnTarget) -> TurnObservation | None:
        """The latest turn the pane's transcript shows (None when there is none to read)."""
        if target.provider is AgentProvider.CURSOR:
            return self._cursor(target)
        transcript = self._advance(target)
        if transcript is None:
            return None
        surface = SurfaceId(target.surface_id)
        if isinstance(transcript.parser, ClaudeTranscript):
            self._check_interrupt(surface, target, transcript.parser)
            self._check_limits(surface, target.provider, transcript.parser)
        elif isinstance(transcript.parser, CodexRollout):
            self._check_failure(surface, transcript.parser)
            self._check_limits(surface, target.provider, transcript.parser)
        if self._on_usage is not None:
            usage = self._panes[surface].usage
            if usage != self._reported.get(surface):
                self._reported[surface] = usage
                self._on_usage(surface, usage)
        return transcript.parser.report()

    def usage(self, surface_id: str) -> UsageReading | None:
        """What the pane's agents spent so far, as their transcripts say (None: nothing read)."""
        pane = self._panes.get(surface_id)
        return pane.usage if pane is not None else None

    def limit_facts(self, surface_id: str, run_id: RunId) -> LimitFacts | None:
        """What the pane's transcript said about the usage limit that stopped run ``run_id``
        (None: it said nothing of that run, or it was not read yet)."""
        return self._limits.get(surface_id, {}).get(run_id)

    def registry_dir(self, surface_id: str) -> str | None:
        """Where the pane's Claude keeps its live registry, once looked at."""
        return self._registry_dirs.get(surface_id)

    def awaited_dir(self, surface_id: str) -> str | None:
        """Where the pane's transcript will appear, while it has not yet (Claude)."""
        return self._awaited.get(surface_id)

    def recheck_in(self, surface_id: str) -> float | None:
        """Seconds until a read of the pane could see what it cannot yet (Claude's registry
        said idle, the grace is not over); taken once."""
        return self._recheck.pop(surface_id, None)

    def current_path(self, surface_id: str) -> str | None:
        """The transcript the pane's agent writes now, once found."""
        pane = self._panes.get(surface_id)
        return pane.current if pane is not None else None

    def last_turn(self, surface_id: str) -> TurnObservation | None:
        """The turn the pane's transcript showed at its last read (no I/O; ``explain``)."""
        cached = self._cursor_cache.get(surface_id)
        if cached is not None:
            return cached[2]
        pane = self._panes.get(surface_id)
        if pane is None or pane.current is None or pane.current not in pane.files:
            return None
        return pane.files[pane.current].parser.observation

    def forget(self, surface_id: str) -> None:
        self._panes.pop(surface_id, None)
        self._cursor_cache.pop(surface_id, None)
        self._registry_dirs.pop(surface_id, None)
        self._awaited.pop(surface_id, None)
        self._recheck.pop(surface_id, None)
        self._emitted.pop(surface_id, None)
        self._failed.pop(surface_id, None)
        self._limits.pop(surface_id, None)
        self._reported.pop(surface_id, None)

    # -- internals ------------------------------------------------------------------------------
    def _cursor(self, target: TurnTarget) -> TurnObservation | None:
        """Cursor's store, read at most every :data:`CURSOR_CACHE_S` per pane."""
        now = time.monotonic()
        cached = self._cursor_cache.get(target.surface_id)
        if cached is not None and cached[0] == target.pid and now - cached[1] < CURSOR_CACHE_S:
            return cached[2]
        observation = None
        store = self._cursor_store(target)
        if store is not None:
            conversation = os.path.basename(os.path.dirname(store))
            observation = cursor_turn(conversation, _newest_blobs(store))
        self._cursor_cache[target.surface_id] = (target.pid, now, observation)
        return observation

    def _cursor_store(self, target: TurnTarget) -> str | None:
        if target.cwd is None:
            return None
        home = self._env(target.pid, "HOME") or self._own_home
        cwd_bytes = target.cwd.encode("utf-8", "surrogateescape")
        workspace = hashlib.md5(cwd_bytes, usedforsecurity=False).hexdigest()
        chats = os.path.join(home, ".cursor", "chats", workspace)
        if target.session_id is not None and "/" not in target.session_id:
            path = os.path.join(chats, target.session_id, "store.db")
            if os.path.isfile(path):
                return path
        best: tuple[float, str] | None = None
        try:
            with os.scandir(chats) as entries:
                for entry in entries:
                    path = os.path.join(entry.path, "store.db")
                    try:
                        mtime = os.stat(path).st_mtime
                    except OSError:
                        continue
                    if best is None or mtime > best[0]:
                        best = (mtime, path)
        except OSError:
            return None
        return best[1] if best is not None else None

    def _advance(self, target: TurnTarget) -> _Transcript | None:
        if target.provider not in (AgentProvider.CLAUDE_CODE, AgentProvider.CODEX):
            return None
        if target.session_id is None and self._session_hint is not None:
            target = replace(target, session_id=self._session_hint(target.surface_id))
        key = (target.provider, target.pid, target.session_id)
        pane = self._panes.get(target.surface_id)
        if pane is None:
            pane = self._panes[target.surface_id] = _PaneFiles(key)
        elif pane.key != key:  # a new process or session: maybe another file
            pane.key, pane.relocate = key, True
        now = time.monotonic()
        if pane.relocate or (pane.guessed and now - pane.located_at >= RELOCATE_EVERY_S):
            self._locate(pane, target, now)
        transcript = pane.files.get(pane.current) if pane.current is not None else None
        if transcript is None:
            return None
        try:
            transcript.advance()
        except OSError:  # gone or unreadable: look again next pass
            pane.relocate = True
            return None
        return transcript

    def _locate(self, pane: _PaneFiles, target: TurnTarget, now: float) -> None:
        pane.located_at = now
        if target.provider is AgentProvider.CLAUDE_CODE:
            path, guessed = self._claude_file(target)
        else:
            path, guessed = self._codex_file(target), False
        pane.guessed = guessed
        if path is None:
            return
        pane.relocate = False
        pane.current = path
        if guessed:
            pane.guesses.add(path)
        else:
            for wrong in pane.guesses - {path}:
                pane.files.pop(wrong, None)
            pane.guesses.clear()
        if path not in pane.files:
            pane.files[path] = _Transcript(
                target.provider, _Tail(path), _new_parser(target.provider)
            )

    def _env(self, pid: int, name: str) -> str | None:
        value = procfs.environ_value(pid, name, proc_root=self._proc)
        return value or None

    def _claude_config(self, pid: int) -> str:
        return self._env(pid, "CLAUDE_CONFIG_DIR") or os.path.join(
            self._env(pid, "HOME") or self._own_home, ".claude"
        )

    def _claude_file(self, target: TurnTarget) -> tuple[str | None, bool]:
        config = self._claude_config(target.pid)
        projects = os.path.join(config, "projects")
        session = target.session_id or _registry_session(config, target.pid)
        cwd = target.cwd
        slug_dir = os.path.join(projects, claude_slug(cwd)) if cwd is not None else projects
        # Claude creates its transcript (and directories) at the first prompt, maybe after the
        # hook fired: until the file exists, the closest existing directory is where to look.
        self._awaited[target.surface_id] = next(
            (d for d in (slug_dir, projects, config) if os.path.isdir(d)), None
        )
        found: str | None
        if session is not None:
            path = os.path.join(slug_dir, f"{session}.jsonl")
            found = path if cwd is not None and os.path.isfile(path) else None
            found = found or _find_in_subdirs(projects, f"{session}.jsonl")
            guessed = False
        else:
            found = _newest_jsonl(slug_dir) if cwd is not None else None
            guessed = True
        if found is not None:
            self._awaited.pop(target.surface_id, None)
        return found, guessed

    def _codex_file(self, target: TurnTarget) -> str | None:
        home = self._env(target.pid, "CODEX_HOME") or os.path.join(
            self._env(target.pid, "HOME") or self._own_home, ".codex"
        )
        sessions = os.path.realpath(os.path.join(home, "sessions")) + os.sep
        for pid in (target.pid, *procfs.children(target.pid, proc_root=self._proc)):
            for path in procfs.open_files(pid, proc_root=self._proc):
                name = os.path.basename(path)
                if (
                    path.startswith(sessions)
                    and name.startswith("rollout-")
                    and name.endswith(".jsonl")
                ):
                    return path
        if target.session_id is not None:
            return _find_rollout(sessions, target.session_id)
        return None

    def _check_failure(self, surface_id: SurfaceId, rollout: CodexRollout) -> None:
        """Emitted before the observation goes back to the estimator, so the run is ``failed``
        before a native ``succeeded`` could reach it (which the reducer then ignores)."""
        failure = rollout.failure
        if failure is None or self._failed.get(surface_id) == failure[0]:
            return
        self._failed[surface_id] = failure[0]
        turn, message = failure
        self._emit(failure_event(surface_id, turn, message, rollout.session_id, self._clock()))

    def _check_limits(
        self,
        surface_id: SurfaceId,
        provider: AgentProvider,
        parser: ClaudeTranscript | CodexRollout,
    ) -> None:
        """Each limited turn read: its facts kept, its ``limit-reached`` event emitted once
        (before the observation goes back to the estimator, like a failure)."""
        limits, parser.limits = parser.limits, []
        known = self._limits.setdefault(surface_id, {})
        for limit in limits:
            run_id = limit_run_id(provider, limit.turn)
            fresh = run_id not in known
            known.pop(run_id, None)
            known[run_id] = limit.facts
            while len(known) > MAX_LIMITS_PER_PANE:
                del known[next(iter(known))]
            if fresh:
                self._emit(
                    limit_event(provider, surface_id, limit, parser.session_id, self._clock())
                )

    def _check_interrupt(
        self, surface_id: SurfaceId, target: TurnTarget, parser: ClaudeTranscript
    ) -> None:
        interrupt = parser.interrupt
        obs = parser.observation
        if interrupt is None and obs is not None and obs.phase is TurnPhase.ACTIVE:
            # Esc before Claude answered writes no row: ask its live registry.
            config = self._claude_config(target.pid)
            self._registry_dirs[surface_id] = os.path.join(config, "sessions")
            registry = _registry(config, target.pid)
            if registry is not None and registry.get("sessionId") in (None, parser.session_id):
                now = self._clock()
                interrupt = registry_interrupt(parser, registry, now)
                since = registry_idle_since(parser, registry)
                if interrupt is None and since is not None:  # look again once the grace is over
                    self._recheck[surface_id] = since + REGISTRY_IDLE_GRACE_S - now
        if interrupt is None or self._emitted.get(surface_id) == interrupt:
            return
        self._emitted[surface_id] = interrupt
        self._emit(interrupt_event(surface_id, interrupt, parser.session_id, self._clock()))


def _newest_blobs(store: str) -> list[tuple[int, object]]:
    """The newest blobs of a Cursor store (read-only; the agent keeps writing it, WAL mode)."""
    try:
        conn = sqlite3.connect(f"file:{quote(store)}?mode=ro", uri=True, timeout=0.2)
    except sqlite3.Error:
        return []
    try:
        rows = conn.execute(
            "SELECT rowid, data FROM blobs ORDER BY rowid DESC LIMIT ?", (SCAN_BLOBS,)
        ).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()
    return [(int(rowid), data) for rowid, data in rows]


def _registry(config: str, pid: int) -> dict[str, object] | None:
    """Claude's live registry ``<config>/sessions/<pid>.json`` (there while the CLI runs)."""
    try:
        with open(os.path.join(config, "sessions", f"{pid}.json"), "rb") as f:
            data = json.loads(f.read(64 * 1024))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _registry_session(config: str, pid: int) -> str | None:
    """The session id Claude's live registry gives."""
    data = _registry(config, pid)
    session = data.get("sessionId") if data is not None else None
    if isinstance(session, str) and session and "/" not in session and session not in (".", ".."):
        return session
    return None


def _newest_jsonl(directory: str) -> str | None:
    best: tuple[float, str] | None = None
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if not entry.name.endswith(".jsonl") or not entry.is_file():
                    continue
                mtime = entry.stat().st_mtime
                if best is None or mtime > best[0]:
                    best = (mtime, entry.path)
    except OSError:
        return None
    return best[1] if best is not None else None


def _find_in_subdirs(root: str, name: str) -> str | None:
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                path = os.path.join(entry.path, name)
                if entry.is_dir() and os.path.isfile(path):
                    return path
    except OSError:
        pass
    return None


def _find_rollout(sessions: str, session_id: str) -> str | None:
    """``sessions/YYYY/MM/DD/rollout-*-<session_id>.jsonl``, newest days first."""
    suffix = f"-{session_id}.jsonl"
    for level in _sorted_dirs(sessions):
        for month in _sorted_dirs(level):
            for day in _sorted_dirs(month):
                try:
                    names = os.listdir(day)
                except OSError:
                    continue
                for name in names:
                    if name.startswith("rollout-") and name.endswith(suffix):
                        return os.path.join(day, name)
    return None


def _sorted_dirs(path: str) -> list[str]:
    try:
        names = sorted(os.listdir(path), reverse=True)
    except OSError:
        return []
    return [os.path.join(path, n) for n in names if os.path.isdir(os.path.join(path, n))]


class IngestSoon:
    """``emit`` for the reader: hands each event to ``AgentHub.ingest`` on the running loop
    (the reader is called from synchronous code), holding the tasks until they finish."""

    def __init__(
        self,
        ingest: Callable[[AgentEvent], Awaitable[bool]],
        *,
        settle: Callable[[SurfaceId], None] | None = None,
    ) -> None:
        self._ingest = ingest
        self._settle = settle
        self._tasks: set[asyncio.Future[bool]] = set()

    def __call__(self, event: AgentEvent) -> None:
        if self._settle is not None:  # first the pane's job binds to the run being ended
            self._settle(event.surface_id)
        task = asyncio.ensure_future(self._ingest(event))
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Future[bool]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.warning("could not store a transcript event: %s", exc)

    async def flush(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
