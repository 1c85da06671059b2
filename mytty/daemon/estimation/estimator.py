"""Native run estimation, the controller's side: runs for agents whose hooks are not installed.

The pure machines are :mod:`mytty.core.estimation.epochs`; this module feeds them and ingests what
they emit through :meth:`AgentHub.ingest`, like any hook event (semantics §9). Its inputs, each
through the cheapest channel that tells it:

* **an agent appears in a pane's foreground** — no tmux hook or notification reports that for
  every session (``%subscription-changed`` covers only the control client's own session, at
  most once a second), so one batched pass over all panes every ``native_poll`` seconds reads
  each pane's foreground group from ``/proc`` (one ``stat`` read per pane while nothing
  changes; :mod:`mytty.daemon.estimation.detect` classifies only what is new). O(panes).
* **the agent process ends** — a ``pidfd`` per detected agent, watched by the event loop: the
  kernel says so within a millisecond, no polling. The pane is then looked at again after
  ``native_exit_settle`` seconds (a shell's "finished with exit N" comes first and gives
  ``succeeded``/``failed``), at once when the agent was the pane's own process (no shell is
  left to report; the run ends ``disconnected``).
* **the command finished with exit N** — the shell-integration watcher's lines (OSC 133 ``D``
  of :mod:`mytty.shell-integration`), passed on as they are read.
* **the pane is gone** — tmux's ``pane-exited``/``after-kill-pane`` hooks reach
  :class:`~mytty.daemon.panes.service.PaneService`, which tells this estimator.
* **hooks did report** — an :meth:`AgentHub.add_observer` callback marks the epoch
  hook-covered on any event of the same pane and provider that mytty did not synthesize.
* **turns** — a :class:`TurnSource` (transcript readers) asked once per pass for each pane
  with a detected agent.

Only providers whose integration is ``not-installed`` are estimated (judged when an epoch
opens). A restarted controller re-detects every pane before the startup sweep: an agent still
running keeps its epoch (the same deterministic ids), and :meth:`agent_alive` tells the sweep
which runs still have their agent.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from mytty.core import vocab
from mytty.core.estimation.epochs import NativeEpochs, epoch_key, epoch_run_id, turn_run_id
from mytty.core.estimation.turn_observation import TurnObservation, TurnPhase, TurnTarget
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import SurfaceId
from mytty.core.runs.run import AgentRun
from mytty.core.shell.events import ShellEvent
from mytty.daemon import procfs
from mytty.daemon.agents import AgentHub
from mytty.daemon.clock import DEFAULT_TIMINGS, Clock, Timer, Timings
from mytty.daemon.estimation.detect import NOTHING, AgentDetector, Detection
from mytty.daemon.panes.identity import PaneRegistry
from mytty.daemon.store import StoreError

log = logging.getLogger(__name__)

#: How long an integration status read from disk is trusted (seconds).
STATUS_TTL_S = 2.0


class TurnSource(Protocol):
    """Per-turn observations from an agent's own transcript (the transcript readers)."""

    def observe(self, target: TurnTarget) -> TurnObservation | None:
        """The turn the agent of ``target`` is on, or None when nothing can be read."""
        ...


class NoTurns:
    """No transcript reader: runs are one per agent process."""

    def observe(self, target: TurnTarget) -> TurnObservation | None:
        return None


@dataclass(slots=True)
class _Watch:
    pid: int
    fd: int


class NativeEstimator:
    def __init__(
        self,
        *,
        hub: AgentHub,
        panes: PaneRegistry,
        clock: Clock,
        integration_status: Callable[[AgentProvider], Awaitable[str]],
        timings: Timings = DEFAULT_TIMINGS,
        detector: AgentDetector | None = None,
        turns: TurnSource | None = None,
    ) -> None:
        self._hub = hub
        self._panes = panes
        self._clock = clock
        self._status = integration_status
        self._timings = timings
        self.detector = detector if detector is not None else AgentDetector()
        self.turns: TurnSource = turns if turns is not None else NoTurns()
        self.machine = NativeEpochs(grace=timings.native_start_grace)
        #: The last detection per pane (what the machine was told follows its provider).
        self._seen: dict[SurfaceId, Detection] = {}
        self._cwd: dict[SurfaceId, str | None] = {}
        self._watches: dict[SurfaceId, _Watch] = {}
        #: Panes whose agent ended under a shell: until when its "finished with exit N" may
        #: still arrive (no pass ends the run ``disconnected`` before then).
        self._settling: dict[SurfaceId, tuple[int, float]] = {}
        self._statuses: dict[AgentProvider, tuple[str, float]] = {}
        self._queue: asyncio.Queue[list[AgentEvent]] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._dirty: set[SurfaceId] = set()
        self._full_pass_due = True
        self._fire_timer: Timer | None = None
        self._tick_timer: Timer | None = None
        self._fire_at: float | None = None
        self.passes = 0  # for tests and the bench
        self._consuming = False
        self._scanning = False
        #: What the turn source emitted of its own while it was being asked (see
        #: :meth:`source_emitted`); None when it is not being asked.
        self._asking: list[AgentEvent] | None = None

    # -- wiring -------------------------------------------------------------------------------
    def attach(self) -> None:
        self._hub.add_observer(self._on_event)

    def _on_event(self, event: AgentEvent, inserted: bool) -> None:
        if not event.synthesized:
            self.machine.mark_hook_covered(event.surface_id, event.provider)

    def source_emitted(self, event: AgentEvent) -> None:
        """The turn source emitted an event of its own (wire its ``emit`` through this).

        A Codex turn whose model API failed is a ``failed`` event of the reader on the turn's
        run, while the observation says only "completed". Seen here while the estimator asks,
        it makes the observation ``failed``: when a whole turn fell between two looks the
        reader's event reaches the run before the turn machine starts it (and is ignored), so
        the machine must end the turn ``failed`` itself rather than ``succeeded``.
        """
        if self._asking is not None:
            self._asking.append(event)

    def on_shell_event(self, surface_id: str, event: ShellEvent) -> None:
        """A line of the pane's shell integration: a command finished with its exit status."""
        if event.finished:
            self._emit(self.machine.command_finished(surface_id, event.exit_status, self._now()))

    def pane_gone(self, surface_id: SurfaceId) -> None:
        """The pane is gone (tmux said so): its agent's run ends now."""
        self._unwatch(surface_id)
        if surface_id in self._seen:
            del self._seen[surface_id]
            self._emit(self.machine.provider_changed(surface_id, None, None, self._now()))
        self.machine.forget_pane(surface_id)
        self._cwd.pop(surface_id, None)
        self._settling.pop(surface_id, None)

    def agent_alive(self, run: AgentRun) -> bool:
        """For the startup sweep: does ``run``'s pane still run its agent (as last detected)?

        True when the pane's foreground is that provider, or an unrecognised process (a hooked
        agent mytty cannot name); False when the shell or another agent is in front.
        """
        det = self._seen.get(run.surface_id)
        if det is None:
            return False
        if det.provider is not None:
            return det.provider is run.provider
        return det.foreground is not None

    def detection(self, surface_id: str) -> Detection | None:
        return self._seen.get(SurfaceId(surface_id))

    # -- startup ------------------------------------------------------------------------------
    async def restore(self) -> None:
        """Detect every pane before the startup sweep; keep the epochs still running."""
        now = self._now()
        for pane in self._panes.panes():
            det = self.detector.detect(pane.pid)
            surface = pane.surface_id
            self._seen[surface] = det
            self._watch(surface, det)
            if det.provider is None or det.pid is None:
                continue
            self._cwd[surface] = procfs.cwd(det.pid)
            suppressed = await self._suppressed(det.provider)
            epoch_run = epoch_run_id(epoch_key(surface, det.provider, det.pid, 0))
            active = [r for r in self._hub.book.runs_for(surface, det.provider) if r.is_active]
            # Native turn runs carry no session id (a hook's would have adopted one).
            turns = frozenset(r.id for r in active if r.id != epoch_run and r.session_id is None)
            if not suppressed and any(r.id == epoch_run for r in active):
                self.machine.restore_started(surface, det.provider, det.pid)
                log.info("still tracking %s in pane %s (pid %d)", det.provider, surface, det.pid)
            elif not suppressed and turns:
                self.machine.restore_started(surface, det.provider, det.pid, active_turns=turns)
                log.info("still tracking %s turns in pane %s", det.provider, surface)
            else:
                self._emit(
                    self.machine.provider_changed(
                        surface,
                        det.provider,
                        det.pid,
                        now,
                        suppressed=suppressed,
                        process_started_at=procfs.started_at(det.pid),
                    )
                )
        self._arm_fire()
        self._full_pass_due = False

    # -- the loop -----------------------------------------------------------------------------
    async def run(self) -> None:
        """Scan on every poll tick and every wake-up; ingest what the machines emit."""
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._ingest_forever(), name="native-ingest")
            self._tick_timer = self._clock.call_later(self._timings.native_poll, self._tick)
            try:
                while True:
                    await self._wake.wait()
                    self._wake.clear()
                    self._scanning = True
                    try:
                        await self.scan()
                    finally:
                        self._scanning = False
            finally:
                if self._tick_timer is not None:
                    self._tick_timer.cancel()

    def _tick(self) -> None:
        # Fixed rate, whatever else wakes the loop: exits elsewhere never postpone the pass.
        self._full_pass_due = True
        self._wake.set()
        self._tick_timer = self._clock.call_later(self._timings.native_poll, self._tick)

    async def scan(self) -> None:
        """One pass: every pane when a poll tick is due, else only the panes marked dirty."""
        if self._full_pass_due:
            self._full_pass_due = False
            self._dirty.clear()
            surfaces: Iterable[SurfaceId] = list(self._panes.by_surface)
            gone = [s for s in self._seen if s not in self._panes.by_surface]
        else:
            surfaces, self._dirty = self._dirty, set()
            gone = [s for s in surfaces if s not in self._panes.by_surface]
        self.passes += 1
        for surface in gone:
            self.pane_gone(surface)
        changes: list[tuple[SurfaceId, Detection]] = []
        observe = not isinstance(self.turns, NoTurns)
        for surface in surfaces:
            pane = self._panes.by_surface.get(surface)
            if pane is None:
                continue
            det = self.detector.detect(pane.pid)
            prev = self._seen.get(surface, NOTHING)
            if self._settles(surface, pane.pid, prev, det):
                continue  # the shell may still report the exit status: look after the settle
            self._seen[surface] = det
            if det.pid != prev.pid:
                self._watch(surface, det)
                self._cwd[surface] = procfs.cwd(det.pid) if det.pid is not None else None
            if det.provider is not prev.provider:
                changes.append((surface, det))
            elif observe and det.provider is not None and det.pid is not None:
                self._observe_turn(surface, det)
        for surface, det in changes:
            suppressed = det.provider is not None and await self._suppressed(det.provider)
            if self._seen.get(surface) is not det:
                continue  # something newer was seen meanwhile; the next pass reports it
            started = procfs.started_at(det.pid) if det.pid is not None else None
            self._emit(
                self.machine.provider_changed(
                    surface,
                    det.provider,
                    det.pid,
                    self._now(),
                    suppressed=suppressed,
                    process_started_at=started,
                )
            )
            if observe and det.provider is not None and det.pid is not None:
                self._observe_turn(surface, det)
        self._arm_fire()

    def _observe_turn(self, surface: SurfaceId, det: Detection) -> None:
        assert det.provider is not None and det.pid is not None
        epoch = self.machine.epoch(surface)
        if epoch is None or epoch.covered or epoch.provider is not det.provider:
            # Nothing to split: hooks report this agent (the transcript watcher reads its
            # transcript on their events), or it is not estimated. Don't read it twice.
            return
        latest = self._hub.book.latest_run(surface, det.provider)
        target = TurnTarget(
            surface_id=surface,
            provider=det.provider,
            pid=det.pid,
            cwd=self._cwd.get(surface),
            session_id=latest.session_id if latest is not None else None,
        )
        self._asking = []
        try:
            observation = self.turns.observe(target)
        except Exception:  # a reader's bug must not stop estimation
            log.exception("turn source failed for pane %s", surface)
            return
        finally:
            emitted, self._asking = self._asking, None
        observation = _with_failure(observation, emitted, det.provider)
        events = self.machine.observe_turn(surface, observation, self._now())
        if events:
            log.debug("pane %s turn %s: %s", surface, observation, [e.hook_name for e in events])
        self._emit(events)

    def mark_dirty(self, surface_id: SurfaceId) -> None:
        self._dirty.add(surface_id)
        self._wake.set()

    # -- start grace --------------------------------------------------------------------------
    def _arm_fire(self) -> None:
        due = self.machine.next_deadline()
        if due == self._fire_at:
            return
        if self._fire_timer is not None:
            self._fire_timer.cancel()
            self._fire_timer = None
        self._fire_at = due
        if due is not None:
            self._fire_timer = self._clock.call_later(max(0.0, due - self._now()), self._fire)

    def _fire(self) -> None:
        self._fire_timer = self._fire_at = None
        self._emit(self.machine.fire_due(self._now()))
        self._arm_fire()

    # -- process exits ------------------------------------------------------------------------
    def _watch(self, surface: SurfaceId, det: Detection) -> None:
        current = self._watches.get(surface)
        if current is not None and current.pid == det.pid:
            return
        self._unwatch(surface)
        if det.pid is None:
            return
        try:
            fd = os.pidfd_open(det.pid)
        except OSError:  # already gone: look again soon
            self._process_ended(surface, det.pid)
            return
        self._watches[surface] = _Watch(det.pid, fd)
        asyncio.get_running_loop().add_reader(fd, self._readable, surface, det.pid)

    def _unwatch(self, surface: SurfaceId) -> None:
        watch = self._watches.pop(surface, None)
        if watch is not None:
            asyncio.get_running_loop().remove_reader(watch.fd)
            os.close(watch.fd)

    def _readable(self, surface: SurfaceId, pid: int) -> None:
        watch = self._watches.get(surface)
        if watch is not None and watch.pid == pid:
            self._unwatch(surface)
        self._process_ended(surface, pid)

    def _process_ended(self, surface: SurfaceId, pid: int) -> None:
        # A shell in the pane reports "finished with exit N" a millisecond or so after its
        # command ends (even one mytty launched before the shell's first report, so whether
        # it reported before proves nothing): give it ``native_exit_settle`` to arrive before
        # the run is ended ``disconnected``. An agent that was the pane's own process left no
        # shell behind to report: look again at once.
        pane = self._panes.by_surface.get(surface)
        if pane is None or pane.pid == pid or not self._start_settle(surface, pid):
            self.machine.forget_process(surface, pid)
            self.mark_dirty(surface)

    def _start_settle(self, surface: SurfaceId, pid: int) -> bool:
        """Open the settle of ``pid``'s exit (once per exit); False when there is none."""
        settle = self._timings.native_exit_settle
        if settle <= 0:
            return False
        current = self._settling.get(surface)
        if current is None or current[0] != pid:
            self._settling[surface] = (pid, self._now() + settle)

            def look_again() -> None:
                self.machine.forget_process(surface, pid)
                self.mark_dirty(surface)

            self._clock.call_later(settle, look_again)
        return True

    def _settles(self, surface: SurfaceId, pane_pid: int, prev: Detection, det: Detection) -> bool:
        """Is an agent that just left the foreground of a shell still within its settle?

        A pass that sees the agent gone (a poll tick can come before the pidfd's wake-up)
        must not end the run ``disconnected`` while the shell's exit report may be on its way
        (a busy machine can hold the shell back for hundreds of ms).
        """
        if prev.provider is None or det.provider is not None or prev.pid in (None, pane_pid):
            self._settling.pop(surface, None)
            return False
        assert prev.pid is not None
        if not self._start_settle(surface, prev.pid):
            return False
        if self._now() < self._settling[surface][1]:
            return True
        del self._settling[surface]
        return False

    def close(self) -> None:
        for surface in list(self._watches):
            self._unwatch(surface)
        if self._fire_timer is not None:
            self._fire_timer.cancel()
        if self._tick_timer is not None:
            self._tick_timer.cancel()

    # -- helpers ------------------------------------------------------------------------------
    def _now(self) -> float:
        return self._clock.now()

    async def _suppressed(self, provider: AgentProvider) -> bool:
        cached = self._statuses.get(provider)
        now = self._now()
        if cached is None or now - cached[1] > STATUS_TTL_S:
            try:
                status = await self._status(provider)
            except Exception as exc:  # noqa: BLE001 - unreadable files: estimate (never invent a hook)
                log.warning("integration status of %s unreadable: %s", provider, exc)
                status = vocab.NOT_INSTALLED
            cached = self._statuses[provider] = (status, now)
        return cached[0] != vocab.NOT_INSTALLED

    def _emit(self, events: list[AgentEvent]) -> None:
        if events:
            self._queue.put_nowait(events)

    async def _ingest_forever(self) -> None:
        self._consuming = True
        try:
            while True:
                events = await self._queue.get()
                try:
                    await self._ingest(events)
                finally:
                    self._queue.task_done()
        finally:
            self._consuming = False

    async def _ingest(self, events: list[AgentEvent]) -> None:
        for event in events:
            try:
                await self._hub.ingest(event)
            except StoreError as exc:
                log.error("could not record %s (%s): %s", event.hook_name, event.run_id, exc)

    @property
    def busy(self) -> bool:
        """A pass is due or running (tests wait for this to clear before :meth:`drain`)."""
        return self._wake.is_set() or self._scanning

    async def drain(self) -> None:
        """Return once everything emitted so far is ingested (tests; startup)."""
        if self._consuming:
            await self._queue.join()
            return
        while not self._queue.empty():
            await self._ingest(self._queue.get_nowait())
            self._queue.task_done()


def _with_failure(
    observation: TurnObservation | None, emitted: list[AgentEvent], provider: AgentProvider
) -> TurnObservation | None:
    """``observation`` as ``failed`` (with the message) when the source also emitted a
    ``failed`` event on that turn's run; otherwise unchanged."""
    if observation is None or observation.phase is not TurnPhase.COMPLETED:
        return observation
    run = turn_run_id(provider, observation.key)
    for event in emitted:
        if event.kind is AgentEventKind.FAILED and event.run_id == run:
            return replace(observation, phase=TurnPhase.FAILED, message=event.message)
    return observation
