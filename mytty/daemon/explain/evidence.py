"""What ``explain`` reads of the controller beyond the books: stored events and live looks.

:class:`EvidenceService` answers the ``Evidence`` port of :mod:`mytty.control.ports`:

- :meth:`recent_events`: the newest stored events of a few runs, read in a thread
  (:meth:`mytty.daemon.store.EventStore.read_run_events`: one indexed query per run, so an
  explanation costs the same after a million events as after ten);
- :meth:`observations`: what the controller sees in the pane now: its foreground from
  ``/proc`` (a fresh look, about 20 µs), native estimation's epoch, the shell's last exit
  report, the transcript's last-read turn and Codex routing. Nothing here reads a file.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from mytty.core.explain.inputs import (
    EpochView,
    EventWindow,
    Foreground,
    Observations,
    ShellView,
    StoredEvent,
    TranscriptView,
)
from mytty.core.ids import RunId, SurfaceId
from mytty.daemon import procfs
from mytty.daemon.estimation.detect import AgentDetector
from mytty.daemon.estimation.estimator import NativeEstimator
from mytty.daemon.estimation.shell_events import ShellEventWatcher
from mytty.daemon.events.codex_routing import CodexRouter
from mytty.daemon.panes.identity import PaneRegistry
from mytty.daemon.store import EventStore, StoreError
from mytty.daemon.transcripts.reader import TranscriptReader

log = logging.getLogger(__name__)

#: Codex events refused this long ago (seconds) still count when nothing better says since when.
UNPLACED_LOOKBACK_S = 600.0


class EvidenceService:
    def __init__(
        self,
        *,
        store: EventStore,
        panes: PaneRegistry,
        detector: AgentDetector,
        estimator: NativeEstimator,
        shell_events: ShellEventWatcher,
        transcripts: TranscriptReader,
        codex_router: CodexRouter,
        now: Callable[[], float],
    ) -> None:
        self._store = store
        self._panes = panes
        self._detector = detector
        self._estimator = estimator
        self._shell_events = shell_events
        self._transcripts = transcripts
        self._codex = codex_router
        self._now = now

    async def recent_events(self, run_ids: Sequence[RunId], per_run: int) -> EventWindow:
        """The newest ``per_run`` stored events of each run, oldest first (an unreadable
        store gives an empty window that says why)."""
        try:
            rows, more = await asyncio.to_thread(self._store.read_run_events, run_ids, per_run)
        except StoreError as exc:  # the live part still explains a lot: say so, go on
            log.warning("explain: %s", exc)
            return EventWindow(error=str(exc))
        return EventWindow(
            tuple(StoredEvent(sequence, event) for sequence, event in rows),
            frozenset(RunId(r) for r in more),
        )

    def observations(self, surface_id: SurfaceId, since: float | None) -> Observations:
        """What the controller sees of the pane now; ``since``: count refused Codex events
        from then (else from the agent's start, else the last ten minutes)."""
        pane = self._panes.by_surface.get(surface_id)
        if pane is None:
            return Observations(pane_alive=False)
        foreground = self._foreground(pane.pid)
        if since is None:
            since = foreground.agent_started_at
        if since is None:
            since = self._now() - UNPLACED_LOOKBACK_S
        return Observations(
            pane_alive=True,
            foreground=foreground,
            epoch=self._epoch(surface_id),
            shell=self._shell(surface_id),
            transcript=self._transcript(surface_id),
            codex_session=self._codex.session_of(surface_id),
            unplaced_codex_events=self._codex.unplaced_since(since),
        )

    def _foreground(self, pane_pid: int) -> Foreground:
        det = self._detector.detect(pane_pid)
        process = det.foreground
        # The kernel's name (what tmux shows as pane_current_command): a script's own name,
        # not its interpreter's.
        command = procfs.comm(process) if process is not None else None
        started = procfs.started_at(det.pid) if det.pid is not None else None
        return Foreground(
            process=process,
            command=command,
            provider=det.provider,
            agent_pid=det.pid,
            agent_started_at=started,
        )

    def _epoch(self, surface_id: SurfaceId) -> EpochView | None:
        epoch = self._estimator.machine.epoch(surface_id)
        if epoch is None:
            return None
        return EpochView(
            provider=epoch.provider,
            pid=epoch.pid,
            phase=epoch.phase.value,
            covered=epoch.covered,
            turn_mode=epoch.turn_mode,
            active_turn=epoch.active_turn,
            run_id=epoch.run_id,
        )

    def _shell(self, surface_id: SurfaceId) -> ShellView | None:
        state = self._shell_events.state(surface_id)
        if state is None:
            return None
        return ShellView(state.last_exit_status, state.last_exit_at, state.command_count)

    def _transcript(self, surface_id: SurfaceId) -> TranscriptView | None:
        path = self._transcripts.current_path(surface_id)
        turn = self._transcripts.last_turn(surface_id)
        if path is None and turn is None:
            return None
        return TranscriptView(
            path=path,
            turn=turn.key if turn is not None else None,
            phase=turn.phase.value if turn is not None else None,
        )
