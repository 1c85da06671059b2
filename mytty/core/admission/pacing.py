"""How ``mytty resume`` paces the workers it restarts (pure).

After a reboot every lost worker would start at once, and simultaneous starts of one account
can invalidate a login token the whole fleet shares. So resumed workers start in bursts:

- at most ``start_burst`` at a time: a burst begins only when none of the previous burst's
  workers is still starting (``launching``),
- bursts begin at least ``start_interval_seconds`` apart,
- after :data:`FAILURES_TO_STOP` failed starts in a row (a worker that ended ``launch-failed``
  or ``lost`` before its first run, or whose pane could not be made) the rest is not started:
  the resumption stops and an attention item says why.

The state is the controller's memory of the current resumption; a restart begins afresh.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

#: Failed starts in a row after which ``mytty resume`` stops.
FAILURES_TO_STOP = 3


@dataclass(frozen=True, slots=True)
class Pacing:
    """``[admission] start_burst`` and ``start_interval_seconds``."""

    burst: int = 2
    interval: float = 10.0

    def describe(self) -> str:
        return f"{self.burst} at a time, {self.interval:g} s apart"


@dataclass(frozen=True, slots=True)
class PaceState:
    #: When the last burst began (None: none yet).
    burst_at: float | None = None
    #: The jobs of the last burst.
    burst: tuple[str, ...] = ()
    #: Failed starts since the last good one.
    failures: int = 0
    #: Stopped after too many failures: nothing paced starts until the next resumption.
    stopped: bool = False


def slots(state: PaceState, pacing: Pacing, now: float, still_starting: int) -> int:
    """How many paced starts may begin now (``still_starting``: how many of the last burst
    are still ``launching``)."""
    if state.stopped or still_starting > 0:
        return 0
    if state.burst_at is not None and now < state.burst_at + pacing.interval:
        return 0
    return max(1, pacing.burst)


def next_burst_at(state: PaceState, pacing: Pacing) -> float | None:
    """When the interval since the last burst is over (None: no burst yet)."""
    return state.burst_at + pacing.interval if state.burst_at is not None else None


def began(state: PaceState, job_ids: Iterable[str], now: float) -> PaceState:
    """A burst of paced starts began at ``now`` (no jobs: nothing changes)."""
    ids = tuple(job_ids)
    if not ids:
        return state
    return replace(state, burst_at=now, burst=ids)


def settled(state: PaceState, ok: bool) -> PaceState:
    """One paced start's outcome: ``ok`` (its worker's first run started) or failed."""
    if ok:
        return replace(state, failures=0)
    failures = state.failures + 1
    return replace(state, failures=failures, stopped=state.stopped or failures >= FAILURES_TO_STOP)


def restarted(state: PaceState) -> PaceState:
    """A new ``mytty resume``: a stopped pacing starts again (the failure count too)."""
    return replace(state, failures=0, stopped=False)
