"""How ``mytty resume`` paces the workers it restarts (pure).

After a reboot every lost worker would start at once, and simultaneous starts of one account
can invalidate a login token the whole fleet shares. So resumed workers start in bursts:

- at most ``start_burst`` at a time: a burst takes up to ``start_burst`` starts (made within
  ``start_interval_seconds`` of its first), and the next burst begins only when none of its
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
    size = max(1, pacing.burst)
    if state.stopped:
        return 0
    if state.burst_at is None:
        return size
    within = now < state.burst_at + pacing.interval
    if within and len(state.burst) < size:
        return size - len(state.burst)  # the current burst is not full yet
    if still_starting > 0 or within:
        return 0
    return size


def next_burst_at(state: PaceState, pacing: Pacing) -> float | None:
    """When the interval since the last burst is over (None: no burst yet)."""
    return state.burst_at + pacing.interval if state.burst_at is not None else None


def began(state: PaceState, pacing: Pacing, job_ids: Iterable[str], now: float) -> PaceState:
    """Paced starts were made at ``now``: they join the current burst while it has room and
    its interval runs, else they begin a new one (no jobs: nothing changes)."""
    ids = tuple(job_ids)
    if not ids:
        return state
    joining = (
        state.burst_at is not None
        and now < state.burst_at + pacing.interval
        and len(state.burst) < max(1, pacing.burst)
    )
    if joining:
        return replace(state, burst=state.burst + ids)
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
