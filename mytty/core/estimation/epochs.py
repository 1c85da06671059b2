"""Native run estimation, the pure part: one *epoch* per pane, and per-turn runs inside it.

When a provider's hooks are not installed, the controller still knows two things about a pane:
which agent runs in its foreground (``/proc``, :mod:`mytty.core.estimation.detect`) and, through
shell integration, that the foreground command finished with some exit status. This module
turns those facts into ordinary :class:`~mytty.core.events.AgentEvent` values that go through
the same ingest path as hook events (semantics §9.2–9.6). Time comes in as an argument.

**Epochs.** An epoch is one stretch of one agent process in one pane:

* ``provider_changed(provider, pid)``: unchanged → nothing. Otherwise the old epoch ends (a
  ``started`` one that hooks did not cover reports ``mytty.native.processExited`` →
  ``disconnected``), and a new one opens in ``pending-start`` with a deadline ``grace`` seconds
  away, unless the provider is *suppressed* (its integration is installed or needs repair).
* ``fire_due(now)``: each pending epoch past its deadline is ``started`` and reports
  ``mytty.native.launchObserved`` → ``started``.
* ``command_finished(exit)`` (OSC 133 ``D``): a pending epoch is dropped silently; a started one
  reports ``mytty.native.commandFinished`` → ``succeeded`` (exit 0), ``failed`` (non-zero) or
  ``disconnected`` (no status) and is ``ended``, so the process going away later is silent.
* Any event from the provider's own hooks for that pane marks the epoch *hook-covered*: from
  then on it reports nothing at all (a late hook installation takes over cleanly).

**Turns** (§9.4). A transcript reader may report, per pane, the turn the agent is on
(:class:`~mytty.core.estimation.turn_observation.TurnObservation`). The first report switches the epoch to
turn mode (a started epoch hands off: ``mytty.native.turnHandoff`` → ``idle``; a pending one is
marked started without a start event), and from then on each turn is a run of its own with the
run id the provider's hooks would give it, so a hook arriving later lands on the same run.
A turn first seen already ended is started and ended at once, unless it is what the epoch's
first look found and began before the process started, or gives no time (a difference from the
original, which ignores it: a fast answer came and went between two looks and no run ever
showed it). A ``failed`` turn (Codex's model API error, in
its rollout) ends ``mytty.native.turnFailed`` → ``failed`` with the error's message (also a
mytty addition: the original knows only active, completed and interrupted).

Estimation never reports ``waiting-input`` or ``waiting-approval``: nothing here can see them.
Every event has ``sessionID`` None and a deterministic id (§9.6), so a restarted controller that
re-detects the same process re-derives the same ids and the store drops the repeats.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from mytty.core.estimation.turn_observation import WITH_MESSAGE, TurnObservation, TurnPhase
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, stable_uuid

#: Seconds a newly detected agent must stay in the foreground before its run starts.
START_GRACE_SECONDS = 3.0

#: Hand-offs remembered for :meth:`NativeEpochs.successor` (oldest forgotten first).
MAX_SUCCESSORS = 1000

LAUNCH_OBSERVED = "mytty.native.launchObserved"
COMMAND_FINISHED = "mytty.native.commandFinished"
PROCESS_EXITED = "mytty.native.processExited"
TURN_HANDOFF = "mytty.native.turnHandoff"
TURN_SUPERSEDED = "mytty.native.turnSuperseded"
TURN_STARTED = "mytty.native.turnStarted"
TURN_COMPLETED = "mytty.native.turnCompleted"
TURN_INTERRUPTED = "mytty.native.turnInterrupted"
#: A turn the transcript records as failed (Codex's model API error): a mytty addition.
TURN_FAILED = "mytty.native.turnFailed"
#: A turn the transcript records as stopped at the usage limit: a mytty addition.
TURN_LIMITED = "mytty.native.turnLimited"

#: Every hookName this module emits (all ``mytty.``-prefixed, so every event is synthesized).
NATIVE_HOOK_NAMES: frozenset[str] = frozenset(
    {
        LAUNCH_OBSERVED,
        COMMAND_FINISHED,
        PROCESS_EXITED,
        TURN_HANDOFF,
        TURN_SUPERSEDED,
        TURN_STARTED,
        TURN_COMPLETED,
        TURN_INTERRUPTED,
        TURN_FAILED,
        TURN_LIMITED,
    }
)

_K = AgentEventKind

#: The turn event that ends a turn, by the phase the transcript reports.
_ENDING = {
    TurnPhase.COMPLETED: "completed",
    TurnPhase.INTERRUPTED: "interrupted",
    TurnPhase.FAILED: "failed",
    TurnPhase.LIMITED: "limited",
}


class EpochPhase(StrEnum):
    PENDING_START = "pending-start"
    STARTED = "started"
    ENDED = "ended"


def epoch_key(surface_id: str, provider: AgentProvider, pid: int, n: int) -> str:
    """``<SURFACE>\\0<provider>\\0<pid>\\0<n>``: n counts the epochs of (pane, pid) from 0."""
    return "\0".join((surface_id.upper(), provider.value, str(pid), str(n)))


def _began_in(epoch: Epoch, observation: TurnObservation) -> bool:
    """The turn began while this epoch's process ran (both times known)."""
    began, started = observation.started_at, epoch.process_started_at
    return began is not None and started is not None and began >= started


def epoch_run_id(key: str) -> RunId:
    return RunId(stable_uuid("run", "native", key))


def turn_run_id(provider: AgentProvider, turn_key: str) -> RunId:
    """The run id the provider's own hooks give the turn (the same formula)."""
    return RunId(stable_uuid("run", provider.value, turn_key))


@dataclass(slots=True)
class Epoch:
    """One agent process's stretch in one pane (mutable: the machine owns it)."""

    surface_id: SurfaceId
    provider: AgentProvider
    pid: int
    key: str
    phase: EpochPhase
    deadline: float
    covered: bool = False
    turn_mode: bool = False
    active_turn: str | None = None
    started_turns: set[str] = field(default_factory=set)
    #: Turn runs a previous controller left active (restored epochs): the first observation
    #: of one of them takes it up as the active turn instead of ignoring it.
    resumable: frozenset[RunId] = frozenset()
    #: The transcript was looked at for this epoch before (whatever it said): a turn first
    #: seen already finished began after that look, so it is this process's (see
    #: :meth:`NativeEpochs.observe_turn`); on the first look it may be an old session's.
    looked: bool = False
    #: When the agent process started (Unix seconds; None: unknown). A turn the transcript
    #: says began after it is this process's, even on the first look.
    process_started_at: float | None = None

    @property
    def run_id(self) -> RunId:
        return epoch_run_id(self.key)


class NativeEpochs:
    """The epoch and turn machines of every pane (semantics §9.3–9.4).

    Each method returns the events to ingest, in order; none does I/O.
    """

    def __init__(self, grace: float = START_GRACE_SECONDS) -> None:
        self.grace = grace
        self._epochs: dict[str, Epoch] = {}
        #: What was last reported per pane: (provider, pid), both None for "no agent".
        self._reported: dict[str, tuple[AgentProvider | None, int | None]] = {}
        #: Epochs opened so far per (pane, pid); forgotten when the process ends.
        self._counters: dict[tuple[str, int], int] = {}
        #: The last turn observation per pane (acted on only when it changes).
        self._observed: dict[str, TurnObservation] = {}
        #: Epoch run handed off → the run of the first turn after it (see :meth:`successor`).
        self._successors: dict[RunId, RunId] = {}
        self._handed_off: dict[str, RunId] = {}  # pane → its epoch run, until a turn starts

    # -- queries ----------------------------------------------------------------------------
    def epoch(self, surface_id: str) -> Epoch | None:
        return self._epochs.get(surface_id)

    def epochs(self) -> list[Epoch]:
        return list(self._epochs.values())

    def next_deadline(self) -> float | None:
        """When :meth:`fire_due` next has something to do (None: nothing pending)."""
        pending = [e.deadline for e in self._epochs.values() if e.phase is EpochPhase.PENDING_START]
        return min(pending) if pending else None

    # -- inputs -------------------------------------------------------------------------------
    def provider_changed(
        self,
        surface_id: SurfaceId,
        provider: AgentProvider | None,
        pid: int | None,
        now: float,
        *,
        suppressed: bool = False,
        process_started_at: float | None = None,
    ) -> list[AgentEvent]:
        """The pane's foreground agent is now ``provider`` (process ``pid``, started at
        ``process_started_at`` when known), or none."""
        if provider is None:
            pid = None
        if self._reported.get(surface_id, (None, None)) == (provider, pid):
            return []
        out = self._end(surface_id, now)
        if provider is None or pid is None:
            self._reported.pop(surface_id, None)
            return out
        self._reported[surface_id] = (provider, pid)
        if not suppressed:
            n = self._counters.get((surface_id, pid), 0)
            self._counters[(surface_id, pid)] = n + 1
            self._epochs[surface_id] = Epoch(
                surface_id=surface_id,
                provider=provider,
                pid=pid,
                key=epoch_key(surface_id, provider, pid, n),
                phase=EpochPhase.PENDING_START,
                deadline=now + self.grace,
                process_started_at=process_started_at,
            )
        return out

    def restore_started(
        self,
        surface_id: SurfaceId,
        provider: AgentProvider,
        pid: int,
        n: int = 0,
        *,
        active_turns: frozenset[RunId] | None = None,
    ) -> Epoch:
        """Take over an epoch a previous controller had started (its runs are still active).

        Nothing is emitted: the runs already exist with these same ids. ``active_turns``
        (None: the epoch was not in turn mode) are the turn runs still active; the first
        observation naming one of them continues it.
        """
        self._reported[surface_id] = (provider, pid)
        self._counters[(surface_id, pid)] = max(self._counters.get((surface_id, pid), 0), n + 1)
        epoch = Epoch(
            surface_id=surface_id,
            provider=provider,
            pid=pid,
            key=epoch_key(surface_id, provider, pid, n),
            phase=EpochPhase.STARTED,
            deadline=0.0,
            turn_mode=active_turns is not None,
            resumable=active_turns or frozenset(),
        )
        self._epochs[surface_id] = epoch
        return epoch

    def fire_due(self, now: float) -> list[AgentEvent]:
        """Start every pending epoch whose grace has passed."""
        out: list[AgentEvent] = []
        for epoch in self._epochs.values():
            if epoch.phase is not EpochPhase.PENDING_START or epoch.deadline > now:
                continue
            epoch.phase = EpochPhase.STARTED
            if not epoch.covered:
                out.append(
                    _event(
                        epoch,
                        stable_uuid("event", "native", "started", epoch.key),
                        epoch.run_id,
                        _K.STARTED,
                        LAUNCH_OBSERVED,
                        now,
                    )
                )
        return out

    def command_finished(
        self, surface_id: str, exit_status: int | None, now: float
    ) -> list[AgentEvent]:
        """The pane's foreground command finished (OSC 133 ``D``) with ``exit_status``."""
        epoch = self._epochs.get(surface_id)
        if epoch is None or epoch.phase is EpochPhase.ENDED:
            return []
        if epoch.phase is EpochPhase.PENDING_START:
            del self._epochs[surface_id]  # it never started: nothing to report
            return []
        epoch.phase = EpochPhase.ENDED
        if epoch.covered:
            return []
        kind = _K.DISCONNECTED if exit_status is None else _K.SUCCEEDED
        if exit_status:
            kind = _K.FAILED
        target = self._finish_target(epoch)
        if target is None:
            return []
        run_id, suffix = target
        event_id = stable_uuid("event", "native", "command-finished", suffix)
        return [_event(epoch, event_id, run_id, kind, COMMAND_FINISHED, now)]

    def mark_hook_covered(self, surface_id: str, provider: AgentProvider) -> None:
        """The provider's own hooks reported for this pane: the epoch goes silent for good."""
        epoch = self._epochs.get(surface_id)
        if epoch is not None and epoch.provider is provider:
            epoch.covered = True

    def observe_turn(
        self, surface_id: str, observation: TurnObservation | None, now: float
    ) -> list[AgentEvent]:
        """What the agent's transcript says about its current turn (None: nothing readable)."""
        epoch = self._epochs.get(surface_id)
        looked_before = epoch is not None and epoch.looked
        if epoch is not None:
            epoch.looked = True
        if observation is None or self._observed.get(surface_id) == observation:
            return []
        self._observed[surface_id] = observation
        if epoch is None or epoch.covered:
            return []
        out: list[AgentEvent] = []
        if not epoch.turn_mode:
            epoch.turn_mode = True
            if epoch.phase is EpochPhase.PENDING_START:
                epoch.phase = EpochPhase.STARTED
            elif epoch.phase is EpochPhase.STARTED:
                event_id = stable_uuid("event", "native", "turn-handoff", epoch.key)
                out.append(_event(epoch, event_id, epoch.run_id, _K.IDLE, TURN_HANDOFF, now))
                self._handed_off[surface_id] = epoch.run_id
        if epoch.phase is EpochPhase.ENDED:
            return out
        for passed in observation.before:
            out += self._passed_turn(surface_id, epoch, passed, now)
        key = observation.key
        if epoch.resumable:
            if epoch.active_turn is None and turn_run_id(epoch.provider, key) in epoch.resumable:
                epoch.active_turn = key
                epoch.started_turns.add(key)
            epoch.resumable = frozenset()
        if observation.phase is TurnPhase.ACTIVE:
            if key != epoch.active_turn:
                if epoch.active_turn is not None:
                    out.append(self._turn_event(epoch, epoch.active_turn, "superseded", now))
                if key not in epoch.started_turns:
                    out += self._start_turn(surface_id, epoch, key, now)
                epoch.active_turn = key
        elif key == epoch.active_turn:
            out.append(self._ending(epoch, observation, now))
            epoch.active_turn = None
        elif key not in epoch.started_turns and (looked_before or _began_in(epoch, observation)):
            # A whole turn between two looks (a fast answer: the real Claude and Codex finish
            # a short one well within a 0.5 s pass): the first look at it already shows it
            # ended. The original ignores it (§9.4), so a job waiting for it never saw a
            # run; here it is started and ended at once. On the epoch's first look only when
            # the transcript says the turn began after the process started: a resumed
            # session's transcript already ends with an old, finished turn.
            if epoch.active_turn is not None:
                out.append(self._turn_event(epoch, epoch.active_turn, "superseded", now))
            out += self._start_turn(surface_id, epoch, key, now)
            out.append(self._ending(epoch, observation, now))
            epoch.active_turn = None
        return out

    def _passed_turn(
        self, surface_id: str, epoch: Epoch, passed: TurnObservation, now: float
    ) -> list[AgentEvent]:
        """A turn that ended before the reported one began, both since the last look.

        The turn this epoch was on ends as the transcript says (before, the next turn's start
        superseded it: a queued prompt made a finished turn read ``idle``). A turn never seen
        is a run only when the transcript says it began while this process ran: a first read
        of a file also passes every older turn in it, which must not become runs.
        """
        key = passed.key
        if key == epoch.active_turn:
            epoch.active_turn = None
            return [self._ending(epoch, passed, now)]
        if key in epoch.started_turns or not _began_in(epoch, passed):
            return []
        out: list[AgentEvent] = []
        if epoch.active_turn is not None:
            out.append(self._turn_event(epoch, epoch.active_turn, "superseded", now))
            epoch.active_turn = None
        out += self._start_turn(surface_id, epoch, key, now)
        out.append(self._ending(epoch, passed, now))
        return out

    def _start_turn(self, surface_id: str, epoch: Epoch, key: str, now: float) -> list[AgentEvent]:
        epoch.started_turns.add(key)
        handed_off = self._handed_off.pop(surface_id, None)
        if handed_off is not None:
            self._remember_successor(handed_off, turn_run_id(epoch.provider, key))
        return [self._turn_event(epoch, key, "started", now)]

    def successor(self, run_id: RunId) -> RunId | None:
        """The turn run that continues an epoch run handed off to turns (None: not one).

        A job bound to the epoch run before the transcript showed a turn follows its task
        there instead of reading the hand-off's ``idle`` as an interruption.
        """
        return self._successors.get(run_id)

    def _remember_successor(self, epoch_run: RunId, turn_run: RunId) -> None:
        self._successors[epoch_run] = turn_run
        while len(self._successors) > MAX_SUCCESSORS:
            del self._successors[next(iter(self._successors))]

    def forget_process(self, surface_id: str, pid: int) -> None:
        """The process ended: its epoch counter for this pane starts over (§9.6)."""
        self._counters.pop((surface_id, pid), None)

    def forget_pane(self, surface_id: str) -> None:
        """The pane is gone (call :meth:`provider_changed` with None first to report the end)."""
        self._epochs.pop(surface_id, None)
        self._reported.pop(surface_id, None)
        self._observed.pop(surface_id, None)
        self._handed_off.pop(surface_id, None)
        for key in [k for k in self._counters if k[0] == surface_id]:
            del self._counters[key]

    # -- helpers ------------------------------------------------------------------------------
    def _end(self, surface_id: str, now: float) -> list[AgentEvent]:
        self._handed_off.pop(surface_id, None)
        epoch = self._epochs.pop(surface_id, None)
        if epoch is None or epoch.phase is not EpochPhase.STARTED or epoch.covered:
            return []
        target = self._finish_target(epoch)
        if target is None:
            return []
        run_id, suffix = target
        event_id = stable_uuid("event", "native", "process-exited", suffix)
        return [_event(epoch, event_id, run_id, _K.DISCONNECTED, PROCESS_EXITED, now)]

    @staticmethod
    def _finish_target(epoch: Epoch) -> tuple[RunId, str] | None:
        """(run, id suffix) a finish or exit goes to: the epoch's run, or in turn mode the
        active turn's (None when no turn is active)."""
        if not epoch.turn_mode:
            return epoch.run_id, epoch.key
        if epoch.active_turn is None:
            return None
        return turn_run_id(epoch.provider, epoch.active_turn), f"{epoch.key}\0{epoch.active_turn}"

    def _ending(self, epoch: Epoch, observation: TurnObservation, now: float) -> AgentEvent:
        what = _ENDING[observation.phase]
        message = observation.message if observation.phase in WITH_MESSAGE else None
        return self._turn_event(
            epoch, observation.key, what, now, message=message, answer=observation.answer
        )

    @staticmethod
    def _turn_event(
        epoch: Epoch,
        turn_key: str,
        what: str,
        now: float,
        *,
        message: str | None = None,
        answer: str | None = None,
    ) -> AgentEvent:
        kind, hook = {
            "superseded": (_K.IDLE, TURN_SUPERSEDED),
            "started": (_K.STARTED, TURN_STARTED),
            "completed": (_K.SUCCEEDED, TURN_COMPLETED),
            "interrupted": (_K.IDLE, TURN_INTERRUPTED),
            "failed": (_K.FAILED, TURN_FAILED),
            "limited": (_K.LIMIT_REACHED, TURN_LIMITED),
        }[what]
        event_id = stable_uuid("event", "native", f"turn-{what}", epoch.key, turn_key)
        run_id = turn_run_id(epoch.provider, turn_key)
        return _event(epoch, event_id, run_id, kind, hook, now, message=message, answer=answer)


def _event(
    epoch: Epoch,
    event_id: str,
    run_id: RunId,
    kind: AgentEventKind,
    hook: str,
    now: float,
    *,
    message: str | None = None,
    answer: str | None = None,
) -> AgentEvent:
    return AgentEvent(
        id=event_id,
        run_id=run_id,
        surface_id=epoch.surface_id,
        provider=epoch.provider,
        kind=kind,
        occurred_at=now,
        session_id=None,
        message=message,
        hook_name=hook,
        last_assistant_message=answer,
    )
