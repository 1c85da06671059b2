"""Time as an input: the controller's clock and timers, and the durations its rules use.

Everything in the controller that asks "what time is it" or "call me in N seconds" for a rule
(the launch window of a job, the Cursor approval estimate, attention items' ages) goes through
one :class:`Clock` built at the composition root, so tests drive time instead of waiting it
out. Production uses :class:`SystemClock` and :data:`DEFAULT_TIMINGS`, exactly the durations
the seeds give. :class:`ManualClock` is the test clock: time moves only when told to.

Left on the real clock on purpose: socket and request timeouts, retry back-off and retention
passes, which guard the process rather than decide what a run or job is.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Protocol

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.estimation.epochs import START_GRACE_SECONDS
from mytty.core.jobs.tracker import LAUNCH_WINDOW_SECONDS

#: Seconds a Cursor ``preToolUse`` may go unanswered before it counts as an approval prompt.
CURSOR_APPROVAL_SECONDS = 10.0

#: The seed's foreground-process poll (semantics §9.1).
NATIVE_POLL_SECONDS = 0.5
#: A shell reports "finished" about a millisecond after its command exits (tmux.md §3.1), but
#: on a loaded machine the shell itself may not run for a few hundred ms (CI saw > 0.25 s with
#: two busy cores): the wait before ``disconnected`` leaves it that room.
NATIVE_EXIT_SETTLE_SECONDS = 0.5

#: The test-only variable that shortens the durations of a controller (see :func:`timings_from`).
TIMINGS_ENV = "MYTTY_TEST_TIMINGS"


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Wall-clock seconds since the epoch (the time events carry)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` once ``delay`` seconds have passed on this clock."""
        ...


class SystemClock:
    """The real clock: ``time.time`` and the running event loop's timers."""

    def now(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0.0, delay), callback)


class _ManualTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock for tests: ``advance`` moves time and runs the timers that fall due, in order."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._seq = itertools.count()
        self._due: list[tuple[float, int, _ManualTimer, Callable[[], None]]] = []

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _ManualTimer()
        heapq.heappush(self._due, (self._now + max(0.0, delay), next(self._seq), timer, callback))
        return timer

    @property
    def pending(self) -> int:
        """Timers not yet run nor cancelled."""
        return sum(1 for _, _, timer, _ in self._due if not timer.cancelled)

    def advance(self, seconds: float) -> None:
        target = self._now + seconds
        while self._due and self._due[0][0] <= target:
            at, _, timer, callback = heapq.heappop(self._due)
            self._now = max(self._now, at)
            if not timer.cancelled:
                callback()
        self._now = target


@dataclass(frozen=True, slots=True)
class Timings:
    """The durations the controller's rules use, in seconds."""

    #: A spawned job that sees no run of its agent within this long is ``launch-failed``.
    launch_window: float = LAUNCH_WINDOW_SECONDS
    #: See :data:`CURSOR_APPROVAL_SECONDS`.
    cursor_approval: float = CURSOR_APPROVAL_SECONDS
    #: A detected agent without hooks must stay in front this long before its run starts.
    native_start_grace: float = START_GRACE_SECONDS
    #: How often the foreground of every pane is looked at (agent starts have no event).
    native_poll: float = NATIVE_POLL_SECONDS
    #: After an agent process ends in a pane with shell integration, how long its shell's
    #: "finished with exit N" may take before the run ends ``disconnected`` instead.
    native_exit_settle: float = NATIVE_EXIT_SETTLE_SECONDS
    #: The longest pause between two attempts to reach a host that went away.
    host_backoff_max: float = 60.0


DEFAULT_TIMINGS = Timings()


def timings_from(env: Mapping[str, str]) -> Timings:
    """:data:`DEFAULT_TIMINGS`, or the test-only overrides in ``MYTTY_TEST_TIMINGS``.

    The value is ``name=seconds`` pairs separated by commas (``cursor_approval=1``); the test
    harness sets it for tests that exercise a duration's effect rather than its length. Any
    other name or a non-positive number refuses to start (``invalid-request``), so a typo never
    runs a controller with silently different timings.
    """
    text = env.get(TIMINGS_ENV, "").strip()
    if not text:
        return DEFAULT_TIMINGS
    names = {f.name for f in fields(Timings)}
    values: dict[str, float] = {}
    for part in text.split(","):
        name, _, number = part.partition("=")
        name = name.strip()
        try:
            seconds = float(number)
        except ValueError:
            seconds = -1.0
        if name not in names or not seconds > 0:
            raise MyttyError(
                ErrorCode.INVALID_REQUEST,
                f"{TIMINGS_ENV}: {part.strip()!r} is not name=seconds with a name in "
                f"{', '.join(sorted(names))}",
            )
        values[name] = seconds
    return replace(DEFAULT_TIMINGS, **values)
