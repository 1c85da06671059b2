"""Watching a worker's pane while its job waits for the first run (issue 26).

A worker that cannot start reports nothing through its hooks: an offline Claude exits in a
second and a half, a Codex that is not signed in waits at its sign-in screen. Left to the launch
window, the job would stay ``launching`` for 30 s and then blame the hooks. This watches what
the pane itself says and hands it to the job tracker as :class:`~mytty.core.jobs.tracker.LaunchClues`:

- the shell integration reports the launch command's exit (a ``D`` line): the pane is captured
  at once and the agent's own last words (:func:`~mytty.core.jobs.launch_screen.last_words`)
  end the job ``launch-failed``;
- the pane is captured a few times during the launch window (and every few seconds while it
  shows a sign-in screen) for :func:`~mytty.core.jobs.launch_screen.sign_in_line`.

Each note is timestamped: only what happened after the job was (re)armed counts. Everything is
event- or timer-driven through the controller's :class:`~mytty.daemon.clock.Clock`; a look is a
task of its own and never blocks the loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass

from mytty.core.events import WorkerProvider
from mytty.core.ids import SurfaceId
from mytty.core.jobs.launch_screen import last_words, sign_in_line
from mytty.core.shell.events import ShellEvent
from mytty.daemon.clock import Clock
from mytty.tmux.port import ScreenCapture

log = logging.getLogger(__name__)

#: When, after a job is armed, its pane is looked at for a sign-in screen (seconds).
LOOKS_AFTER_S = (1.5, 4.0, 10.0, 20.0)
#: How often a pane that shows a sign-in screen is looked at again (to see it go).
SIGN_IN_RELOOK_S = 5.0

Screen = Callable[[SurfaceId], Awaitable[ScreenCapture | None]]


@dataclass(frozen=True, slots=True)
class PaneNote:
    """What a look at a worker's pane found, and when."""

    at: float
    exited: str | None = None  # the agent's last words after its exit ("" for none)
    exit_status: int | None = None
    sign_in: str | None = None


@dataclass(frozen=True, slots=True)
class Watched:
    """A job the watch looks after: its pane, provider and when it was armed."""

    job_id: str
    surface_id: SurfaceId
    provider: WorkerProvider
    armed_at: float


class LaunchWatch:
    """Notes per pane for the jobs that wait for their first run (see the module docstring).

    ``watched(surface)`` names the job of a pane that still waits (or None); ``settle(job_id)``
    reconciles that job now and wakes its waiters.
    """

    def __init__(
        self,
        *,
        screen: Screen,
        clock: Clock,
        watched: Callable[[SurfaceId], Watched | None],
        settle: Callable[[str], None],
    ) -> None:
        self._screen = screen
        self._clock = clock
        self._watched = watched
        self._settle = settle
        self._notes: dict[SurfaceId, PaneNote] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def note(self, surface_id: SurfaceId, armed_at: float) -> PaneNote | None:
        """The pane's note, if it is from after ``armed_at`` (an older one is about a job
        that is over)."""
        note = self._notes.get(surface_id)
        return note if note is not None and note.at >= armed_at else None

    def forget(self, surface_id: SurfaceId) -> None:
        self._notes.pop(surface_id, None)

    # -- triggers ---------------------------------------------------------------------------
    def arm(self, watched: Watched) -> None:
        """A job was spawned, re-armed or resumed: schedule its looks."""
        self._notes.pop(watched.surface_id, None)
        surface = watched.surface_id
        for delay in LOOKS_AFTER_S:
            self._clock.call_later(delay, lambda: self._look_soon(surface))

    def on_shell_event(self, surface_id: str, event: ShellEvent) -> None:
        """The shell integration's listener: a command finished in a watched pane."""
        surface = SurfaceId(surface_id)
        if event.finished and self._watched(surface) is not None:
            self._start(self._look_after_exit(surface, event.exit_status))

    def _look_soon(self, surface_id: SurfaceId) -> None:
        if self._watched(surface_id) is not None:
            self._start(self._look_for_sign_in(surface_id))

    def _start(self, coro: Coroutine[object, object, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:  # no running loop (a unit test of the rules): nothing to look at
            coro.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- looks ------------------------------------------------------------------------------
    async def _capture(self, surface_id: SurfaceId) -> tuple[Watched, ScreenCapture] | None:
        watched = self._watched(surface_id)
        if watched is None:
            return None
        try:
            shot = await self._screen(surface_id)
        except Exception as exc:  # noqa: BLE001 - a look that fails just notes nothing
            log.debug("could not look at pane %s: %s", surface_id, exc)
            return None
        return None if shot is None else (watched, shot)

    async def _look_after_exit(self, surface_id: SurfaceId, status: int | None) -> None:
        """The agent left the pane: note its last words, and settle its job."""
        seen = await self._capture(surface_id)
        if seen is None:
            return
        watched, shot = seen
        words = last_words(shot.text, shot.cursor_row) or ""
        self._notes[surface_id] = PaneNote(self._clock.now(), exited=words, exit_status=status)
        self._settle(watched.job_id)

    async def _look_for_sign_in(self, surface_id: SurfaceId) -> None:
        """Note a sign-in screen (or that one went), and settle the job when that changed."""
        seen = await self._capture(surface_id)
        if seen is None:
            return
        watched, shot = seen
        line = sign_in_line(watched.provider, shot.text)
        before = self.note(surface_id, watched.armed_at)
        if before is not None and before.exited is not None:
            return  # the exit says more
        if line is None and (before is None or before.sign_in is None):
            return
        self._notes[surface_id] = PaneNote(self._clock.now(), sign_in=line)
        if line is not None:
            self._clock.call_later(SIGN_IN_RELOOK_S, lambda: self._look_soon(surface_id))
        self._settle(watched.job_id)
