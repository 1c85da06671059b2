"""The truth soak's pure half (scripts/bench/truth): what a stand-in's log says it was doing,
which of mytty's states count as right for that, and the figures of a run.

Everything here is a function of its arguments (no clock, no I/O), so it is unit-tested
(tests/bench/test_truth_model.py) apart from the soak that feeds it. Times are CLOCK_MONOTONIC
seconds, one clock for the stand-ins and the harness (Linux shares it across processes).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# -- truth states (what the agent really did) -----------------------------------------------------

STARTING = "starting"  # the process is up, its first turn not begun
IDLE = "idle"  # up with no turn yet (a resumed agent at its prompt)
RUNNING = "running"
WAITING_APPROVAL = "waiting-approval"
WAITING_INPUT = "waiting-input"
SUCCEEDED = "succeeded"
FAILED = "failed"
INTERRUPTED = "interrupted"  # a turn ended by Esc
EXITED = "exited"  # the session ended normally
CRASHED = "crashed"  # the CLI died mid-turn (exit 1)
KILLED = "killed"  # its pane or the whole tmux server was killed under it, mid-turn
GONE = "gone"  # killed between turns: the job had finished and keeps its result
#: The harness sent the next prompt (``agent send`` to a finished job) and the turn has not
#: begun: the job is right to read ``launching`` (re-armed for the run on its way).
PROMPTED = "prompted"
#: The turn met the account's usage limit: the job is right to read ``parked`` until the turn
#: that continues it (mytty's, after the reset) begins.
PARKED = "parked"

#: The states a turn ends in: an ``agent wait --until completed`` should wake at the first.
ENDINGS = frozenset({SUCCEEDED, FAILED, INTERRUPTED, EXITED, CRASHED, KILLED})
#: Between turns: a kill then leaves the job's last result standing (:data:`GONE`).
_FINISHED = frozenset({IDLE, SUCCEEDED, FAILED, INTERRUPTED, PROMPTED})
#: States a job passes through on its way to the truth's (re-armed by a prompt, admitted):
#: shown within the allowance after a change, they are lag, not wrong.
TRANSITIONAL = frozenset({"launching", "queued"})

#: mytty's job states that are right for each truth state.
ACCEPT: dict[str, frozenset[str]] = {
    STARTING: frozenset({"queued", "launching", "running", "idle"}),
    IDLE: frozenset({"launching", "idle", "succeeded", "failed"}),
    RUNNING: frozenset({"running"}),
    WAITING_APPROVAL: frozenset({"waiting-approval"}),
    WAITING_INPUT: frozenset({"waiting-input"}),
    SUCCEEDED: frozenset({"succeeded"}),
    FAILED: frozenset({"failed"}),
    # disconnected: how mytty ends a job whose run Esc interrupted (its run went idle).
    INTERRUPTED: frozenset({"succeeded", "failed", "idle", "disconnected"}),
    EXITED: frozenset({"succeeded", "failed", "disconnected"}),
    # launch-failed too: a stand-in crashes before its turn's first hook, so mytty saw its agent
    # exit before the run began (what a crash before the prompt reached the hooks looks like).
    CRASHED: frozenset({"failed", "disconnected", "launch-failed"}),
    KILLED: frozenset({"lost", "disconnected", "failed", "absent"}),
    GONE: frozenset({"succeeded", "failed", "idle", "lost", "disconnected", "absent"}),
    PROMPTED: frozenset({"launching", "running"}),
    PARKED: frozenset({"parked"}),
}

#: A sample with no reading (controller down, pane not found): never scored.
UNAVAILABLE = None


def truth_of_line(line: str, current: str | None) -> str | None:
    """The truth state a stand-in's screen line starts, or None when it changes nothing."""
    if line.startswith("STANDIN turn "):
        if line.endswith(" started"):
            return RUNNING
        if " done" in line:
            if current in (PARKED, INTERRUPTED):
                # The turn ended at the limit (parked until continued), or after Esc (mytty
                # shows it interrupted, not finished).
                return None
            return FAILED if line.endswith("(failed)") else SUCCEEDED
    if line.startswith("  \u23bf  You've hit your "):  # Claude's usage-limit error row
        return PARKED
    if line == "STANDIN waiting for approval" or line.endswith("· Running hook"):
        # Codex runs its PermissionRequest hook (which may hold for a person) before its
        # dialog: the approval wait begins with the hook.
        return WAITING_APPROVAL
    if line == "STANDIN waiting for input":
        return WAITING_INPUT
    if current == WAITING_APPROVAL and (
        line.startswith(("STANDIN tool ran", "STANDIN tool denied", "STANDIN tool rejected"))
        or "Allowed by PermissionRequest hook" in line
    ):
        return RUNNING
    if line in ("STANDIN interrupted by Esc", "STANDIN prompt put back by Esc"):
        return INTERRUPTED
    if line == "STANDIN bye":
        return EXITED
    if line in ("STANDIN crashing", "STANDIN exiting with an error"):
        return CRASHED
    if line == "STANDIN ready" and current == STARTING:
        return IDLE
    return None


@dataclass(frozen=True, slots=True)
class Change:
    """The truth became ``state`` at ``t`` (``turn``: the stand-in's turn number, if any)."""

    t: float
    state: str
    turn: int | None = None


def changes_from_log(rows: Iterable[dict[str, object]]) -> list[Change]:
    """A stand-in's truth log (its header row, then ``{"t", "line"}`` rows) as changes."""
    out: list[Change] = []
    current: str | None = None
    turn: int | None = None
    for row in rows:
        t = row.get("t")
        if not isinstance(t, (int, float)):
            continue
        line = row.get("line")
        if line is None and "pane" in row:
            state: str | None = STARTING
        elif isinstance(line, str):
            state = truth_of_line(line, current)
            if state == RUNNING and line.startswith("STANDIN turn "):
                turn = _turn_number(line)
        else:
            state = None
        if state is not None and state != current:
            out.append(Change(float(t), state, turn))
            current = state
    return out


def _turn_number(line: str) -> int | None:
    words = line.split()
    return int(words[2]) if len(words) > 2 and words[2].isdigit() else None


def merge_changes(*streams: Sequence[Change]) -> list[Change]:
    """Several sources of one agent's truth (its processes' logs, the harness's own acts) in
    time order, repeats dropped."""
    out: list[Change] = []
    for change in sorted((c for s in streams for c in s), key=lambda c: c.t):
        if change.state == KILLED and out and out[-1].state in _FINISHED:
            change = Change(change.t, GONE, change.turn)
        if not out or out[-1].state != change.state:
            out.append(change)
    return out


def state_at(changes: Sequence[Change], t: float) -> Change | None:
    """The change in force at ``t`` (None before the first)."""
    index = bisect.bisect_right([c.t for c in changes], t) - 1
    return changes[index] if index >= 0 else None


class _Timeline:
    """Changes indexed by time: the change in force, the one before it and the next, each
    in O(log n) (a 30-minute agent has thousands of readings and hundreds of changes)."""

    def __init__(self, changes: Sequence[Change]) -> None:
        self.changes = changes
        self.times = [c.t for c in changes]

    def at(self, t: float) -> tuple[Change | None, Change | None, Change | None]:
        """(in force at ``t``, the one before it, the first after ``t``)."""
        i = bisect.bisect_right(self.times, t)
        now = self.changes[i - 1] if i >= 1 else None
        before = self.changes[i - 2] if i >= 2 else None
        after = self.changes[i] if i < len(self.changes) else None
        return now, before, after


# -- scoring one agent -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sample:
    """mytty's view of one agent at ``t`` (``shown`` None: no reading)."""

    t: float
    shown: str | None


@dataclass
class Score:
    """One agent's figures against its truth."""

    observed_s: float = 0.0  # agent-seconds with a reading
    lag_s: float = 0.0  # wrong, but within the allowance after a truth change
    wrong_s: float = 0.0  # wrong past the allowance
    wrong_by: dict[str, float] = field(default_factory=dict)  # "truth->shown": seconds
    lags: list[float] = field(default_factory=list)  # truth change → first right sample
    unseen: list[tuple[float, str, float]] = field(default_factory=list)  # (t, state, lasted)
    stuck: list[tuple[float, float, str, str]] = field(default_factory=list)  # t, s, truth, shown
    wrong_spans: list[tuple[float, float]] = field(default_factory=list)  # merged, for the plot


def accepted(truth: str) -> frozenset[str]:
    return ACCEPT.get(truth, frozenset())


def score_agent(
    changes: Sequence[Change],
    samples: Sequence[Sample],
    *,
    allowance: float,
    lead: float = 1.0,
    stuck_after: float = 10.0,
    max_slice: float = 1.0,
) -> Score:
    """Compare one agent's samples with its truth.

    Each sample stands for the time to the next one (at most ``max_slice``: a gap in sampling
    is not scored). A wrong sample is *lag*, not wrong, when it is within ``allowance`` seconds
    after a truth change and still shows the previous truth (or a transitional state), or
    within ``lead`` seconds before a change and already shows the next truth (a stand-in logs a
    line after the hook that reported it has run). A shown state that stays the same for more
    than ``stuck_after`` seconds while wrong for more than that is a stuck state.
    """
    score = Score()
    timeline = _Timeline(changes)
    run: list[Any] = []  # the current stretch of one shown state: [start, shown, wrong s, truth]
    for i, sample in enumerate(samples):
        end = samples[i + 1].t if i + 1 < len(samples) else sample.t
        width = min(max(end - sample.t, 0.0), max_slice)
        now, before, upcoming = timeline.at(sample.t)
        if now is None or sample.shown is UNAVAILABLE:
            run = _close_stuck(score, run, sample.t, stuck_after)
            continue
        if not run or run[1] != sample.shown:
            run = _close_stuck(score, run, sample.t, stuck_after)
            run = [sample.t, sample.shown, 0.0, now.state]
        score.observed_s += width
        verdict = _judge_sample((now, before, upcoming), sample, allowance, lead)
        if verdict == "right":
            continue
        if verdict == "lag":
            score.lag_s += width
            continue
        score.wrong_s += width
        run[2] += width
        _add_span(score.wrong_spans, sample.t, sample.t + width)
        key = f"{now.state}->{sample.shown}"
        score.wrong_by[key] = score.wrong_by.get(key, 0.0) + width
    if samples:
        _close_stuck(score, run, samples[-1].t, stuck_after)
    _transition_lags(score, changes, samples, allowance)
    return score


def _judge_sample(
    around: tuple[Change, Change | None, Change | None],
    sample: Sample,
    allowance: float,
    lead: float,
) -> str:
    """``right``, ``lag`` or ``wrong`` (see :func:`score_agent`); ``around``: the change in
    force at the sample, the one before it and the next."""
    now, before, upcoming = around
    shown = sample.shown
    if shown in accepted(now.state):
        return "right"
    if sample.t - now.t <= allowance and (
        before is None or shown in accepted(before.state) or shown in TRANSITIONAL
    ):
        return "lag"
    if upcoming is not None and upcoming.t - sample.t <= lead and shown in accepted(upcoming.state):
        return "lag"
    return "wrong"


def _add_span(spans: list[tuple[float, float]], start: float, end: float) -> None:
    if spans and start - spans[-1][1] < 1e-6:
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))


def _close_stuck(score: Score, run: list[Any], t: float, stuck_after: float) -> list[Any]:
    """End a stretch of one shown state; a stuck state when it was wrong long enough."""
    if run and run[2] > stuck_after:
        score.stuck.append((run[0], t - run[0], run[3], run[1]))
    return []


def _transition_lags(
    score: Score, changes: Sequence[Change], samples: Sequence[Sample], allowance: float
) -> None:
    """For each truth change: seconds to the first sample showing a right state, before the
    next change; a state never shown while it lasted longer than the allowance is unseen."""
    readable = [s for s in samples if s.shown is not UNAVAILABLE]
    if not readable:
        return
    times = [s.t for s in readable]
    last_t = readable[-1].t
    for i, change in enumerate(changes):
        until = changes[i + 1].t if i + 1 < len(changes) else last_t
        if change.t > last_t or change.t < readable[0].t:
            continue
        right = accepted(change.state)
        hit = None
        for k in range(bisect.bisect_left(times, change.t), len(readable)):
            if readable[k].t >= until:
                break
            if readable[k].shown in right:
                hit = readable[k]
                break
        if hit is not None:
            score.lags.append(hit.t - change.t)
        elif until - change.t > allowance + 0.5:
            score.unseen.append((change.t, change.state, until - change.t))


# -- waits and results ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Wait:
    """One ``agent wait --until completed`` the harness ran (``woke``: when it returned)."""

    agent: str
    started: float
    woke: float | None  # None: it never returned (killed at the end of the run)
    timed_out: bool
    timeout: float


def judge_wait(wait: Wait, changes: Sequence[Change], late_after: float) -> str:
    """``ok``, ``late``, ``early`` (woke before the turn ended), ``never`` (timed out or never
    returned though the turn had ended) or ``expected-timeout``."""
    ended = next((c.t for c in changes if c.t >= wait.started and c.state in ENDINGS), None)
    if wait.woke is None or wait.timed_out:
        limit = wait.started + wait.timeout if wait.woke is None else wait.woke
        if ended is not None and ended < limit - late_after:
            return "never"
        return "expected-timeout"
    if ended is None or wait.woke < ended - 0.25:
        return "early"
    # A follow-up sent while the turn ran carries the job on to the turn it starts, so the
    # wait is on time when it woke soon enough after the last ending before it.
    last = ending_before(changes, wait.started, wait.woke)
    assert last is not None
    return "late" if wait.woke - last.t > late_after else "ok"


def ending_before(changes: Sequence[Change], since: float, woke: float) -> Change | None:
    """The last turn ending after ``since`` and at or before ``woke`` (a quarter second of
    slack: the stand-in logs its end after the hook that reported it)."""
    found = None
    for c in changes:
        if c.t > woke + 0.25:
            break
        if c.t >= since and c.state in ENDINGS:
            found = c
    return found


def judge_results(results: Sequence[tuple[str, int | None, str | None]]) -> dict[str, int]:
    """``(agent, expected turn, lastAssistantMessage)`` read after each completed wait:
    ``lost`` when there is no message or it names another turn (``… turn N …``, as the
    stand-ins word a plain turn's answer), ``doubled`` when one message was handed out for two
    different turns of the same agent. A message naming no turn (a denied tool's, a subagent's
    report) is checked for nothing else."""
    lost = doubled = checked = 0
    seen: dict[tuple[str, str], int | None] = {}
    for agent, turn, message in results:
        if turn is None:
            continue
        checked += 1
        named = named_turn(message)
        if message is None or (named is not None and named != turn):
            lost += 1
            continue
        previous = seen.setdefault((agent, message), turn)
        if previous != turn:
            doubled += 1
    return {"checked": checked, "lost": lost, "doubled": doubled}


# -- the run's figures ---------------------------------------------------------------------------


def named_turn(message: str | None) -> int | None:
    words = (message or "").replace(".", " ").split()
    for i, word in enumerate(words[:-1]):
        if word == "turn" and words[i + 1].isdigit():
            return int(words[i + 1])
    return None


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile (``p`` in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def lag_figures(lags: Sequence[float]) -> dict[str, float | int | None]:
    def r(v: float | None) -> float | None:
        return None if v is None else round(v, 3)

    return {
        "transitions": len(lags),
        "p50": r(percentile(lags, 50)),
        "p95": r(percentile(lags, 95)),
        "p99": r(percentile(lags, 99)),
        "max": r(max(lags) if lags else None),
    }


def add_scores(scores: Iterable[Score]) -> Score:
    total = Score()
    for s in scores:
        total.observed_s += s.observed_s
        total.lag_s += s.lag_s
        total.wrong_s += s.wrong_s
        for k, v in s.wrong_by.items():
            total.wrong_by[k] = total.wrong_by.get(k, 0.0) + v
        total.lags.extend(s.lags)
        total.unseen.extend(s.unseen)
        total.stuck.extend(s.stuck)
    return total


def view_figures(total: Score) -> dict[str, object]:
    """The figures of one view (the jobs list, or tmux's ``@mytty_state``) over a group."""
    observed = total.observed_s
    return {
        "agentSeconds": round(observed, 1),
        "wrongSeconds": round(total.wrong_s, 2),
        "wrongPercent": round(100 * total.wrong_s / observed, 3) if observed else None,
        "lagSeconds": round(total.lag_s, 2),
        "wrongBy": {
            k: round(v, 2) for k, v in sorted(total.wrong_by.items(), key=lambda kv: -kv[1])
        },
        "lag": lag_figures(total.lags),
        "unseenStates": len(total.unseen),
        "stuckOver10s": len(total.stuck),
    }


def verdicts(figures: Mapping[str, object], targets: Mapping[str, float]) -> dict[str, bool]:
    """Each target against the figures: ``wrongPercent``, ``lagP99Hooked``,
    ``lagP99Unhooked``, ``stuck``, ``waitsNever``, ``resultsLostOrDoubled``."""
    out: dict[str, bool] = {}
    for name, limit in targets.items():
        value = figures.get(name)
        out[name] = isinstance(value, (int, float)) and value <= limit
    return out
