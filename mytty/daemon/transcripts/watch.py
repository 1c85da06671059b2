"""When to read a hooked agent's transcript: on its hook events and when inotify says it grew.

The native estimator asks the :class:`~mytty.daemon.transcripts.reader.TranscriptReader` about every
pane with a detected agent on its passes. A pane whose agent has hooks needs its transcript
read too — Claude's Esc fires no hook at all, and a job's token figures and budget live there —
and it should not wait for a poll. So :class:`TranscriptWatcher` reads a pane's transcript:

- after each event a Claude Code or Codex hook delivered for that pane (the first one finds the
  file; batched with ``call_soon``, so the event socket's reply never waits for it);
- whenever inotify reports that the file (or its directory: a new session file) changed, or
  Claude's live registry (``~/.claude/sessions/``) did; and once more when the grace of a
  registry that turned ``idle`` mid-turn is over (Esc before any answer).

Nothing here polls: a pane whose agent writes nothing costs nothing.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable

from mytty.core.estimation.turn_observation import TurnTarget
from mytty.core.events import AgentEvent, AgentProvider
from mytty.core.ids import SurfaceId
from mytty.core.jobs.tracker import AgentJob
from mytty.core.runs.book import RunBook
from mytty.daemon import inotify, procfs
from mytty.daemon.panes.identity import Pane
from mytty.daemon.transcripts.reader import TranscriptReader

log = logging.getLogger(__name__)

_READ_PROVIDERS = frozenset({AgentProvider.CLAUDE_CODE, AgentProvider.CODEX})
#: A re-read scheduled for the end of a grace comes this much after it.
RECHECK_MARGIN_S = 0.05
_WATCH_MASK = inotify.IN_MODIFY | inotify.IN_CREATE | inotify.IN_MOVED_TO | inotify.IN_ONLYDIR


class TranscriptWatcher:
    def __init__(
        self,
        *,
        reader: TranscriptReader,
        book: RunBook,
        panes: Callable[[], dict[SurfaceId, Pane]],
        foreground_agent: Callable[[Pane], tuple[AgentProvider | None, int | None]],
        newest_job: Callable[[SurfaceId], AgentJob | None],
        proc_root: str = procfs.PROC,
    ) -> None:
        self._reader = reader
        self._book = book
        self._panes = panes
        self._foreground_agent = foreground_agent
        self._newest_job = newest_job
        self._proc = proc_root
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inotify: inotify.Inotify | None = None
        self._dirty: set[SurfaceId] = set()
        self._scheduled = False
        #: inotify watch descriptor → directory; directory → the panes whose file is in it.
        self._dirs: dict[int, str] = {}
        self._watching: dict[str, set[SurfaceId]] = {}
        self._registries: set[str] = set()  # watched directories that hold Claude's registry
        self.reads = 0  # passes over a pane (for tests and logs)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        try:
            self._inotify = inotify.Inotify()
        except OSError as exc:  # then only hook events trigger reads
            log.warning("transcripts are read on hook events only: %s", exc)
            return
        loop.add_reader(self._inotify.fd, self._on_readable)

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close(self._loop)
            self._inotify = None

    # -- triggers -------------------------------------------------------------------------------
    def observe_event(self, event: AgentEvent, inserted: bool) -> None:
        """The hub's observer: a hook event for a Claude/Codex pane schedules a read of it."""
        if inserted and event.provider in _READ_PROVIDERS and not event.synthesized:
            self.mark(event.surface_id)

    def mark(self, surface_id: SurfaceId) -> None:
        self._dirty.add(surface_id)
        if not self._scheduled and self._loop is not None:
            self._scheduled = True
            self._loop.call_soon(self.read_dirty)

    def _on_readable(self) -> None:
        assert self._inotify is not None
        for ev in self._inotify.read():
            directory = self._dirs.get(ev.wd)
            if directory is None:
                continue
            if ev.mask & inotify.IN_IGNORED:  # the directory went
                self._dirs.pop(ev.wd, None)
                for surface in self._watching.pop(directory, set()):
                    self.mark(surface)
                continue
            registry = directory in self._registries
            for surface in self._watching.get(directory, ()):
                if (
                    registry
                    or ev.mask & inotify.IN_Q_OVERFLOW
                    or self._is_current(surface, directory, ev.name)
                ):
                    self.mark(surface)
                elif ev.mask & (inotify.IN_CREATE | inotify.IN_MOVED_TO):
                    self.mark(surface)  # maybe a new session's file: look again

    def _is_current(self, surface: SurfaceId, directory: str, name: str) -> bool:
        path = self._reader.current_path(surface)
        return path is not None and path == os.path.join(directory, name)

    # -- reading --------------------------------------------------------------------------------
    def read_dirty(self) -> None:
        self._scheduled = False
        dirty, self._dirty = self._dirty, set()
        panes = self._panes()
        for surface in dirty:
            pane = panes.get(surface)
            if pane is None:
                self._reader.forget(surface)
                self._unwatch(surface)
                continue
            try:
                self._read(surface, pane)
            except Exception:  # a reader's bug must not stop the rest
                log.exception("could not read the transcript of pane %s", surface)

    def _read(self, surface: SurfaceId, pane: Pane) -> None:
        provider, pid = self._foreground_agent(pane)
        if provider not in _READ_PROVIDERS or pid is None:
            return
        latest = self._book.latest_run(surface, provider)
        session = latest.session_id if latest is not None else None
        if session is None and (job := self._newest_job(surface)) is not None:
            session = job.session_id
        target = TurnTarget(
            surface_id=surface,
            provider=provider,
            pid=pid,
            cwd=procfs.cwd(pid, proc_root=self._proc),
            session_id=session,
        )
        self.reads += 1
        self._reader.observe(target)
        directories = set()
        if (path := self._reader.current_path(surface)) is not None:
            directories.add(os.path.dirname(path))
        elif (awaited := self._reader.awaited_dir(surface)) is not None:
            directories.add(awaited)  # any creation there: look again
            if surface not in self._watching.get(awaited, ()):
                self.mark(surface)  # once more: it may have appeared before the watch did
        if (registry := self._reader.registry_dir(surface)) is not None:
            directories.add(registry)  # Claude's live registry: Esc before any answer
            self._registries.add(registry)
        self._watch(surface, directories)
        delay = self._reader.recheck_in(surface)
        if delay is not None and self._loop is not None:
            self._loop.call_later(max(0.0, delay) + RECHECK_MARGIN_S, self.mark, surface)

    def _watch(self, surface: SurfaceId, directories: set[str]) -> None:
        for other, surfaces in self._watching.items():
            if other not in directories:
                surfaces.discard(surface)
        for directory in directories:
            watchers = self._watching.get(directory)
            if watchers is None:
                if self._inotify is None:
                    continue
                try:
                    wd = self._inotify.add_watch(directory, _WATCH_MASK)
                except OSError as exc:
                    log.debug("cannot watch %s: %s", directory, exc)
                    continue
                self._dirs[wd] = directory
                watchers = self._watching[directory] = set()
            watchers.add(surface)

    def _unwatch(self, surface: SurfaceId) -> None:
        for surfaces in self._watching.values():
            surfaces.discard(surface)
