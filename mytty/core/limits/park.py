"""A parked job's park, and the rules that decide when mytty continues it.

A job whose run stopped at its provider account's usage limit is ``parked``: not failed, not
running. Its :class:`Park` records which run stopped (``run_id``), what the provider said
(``until``: the reset, ``limit``: the window), the account (:mod:`mytty.core.limits.account`)
and mytty's own bookkeeping. :func:`plan` turns every parked job into the moment mytty
continues it:

- **The margin.** At the reset plus ``[limits] resume_margin_seconds`` (120 s by default), so
  the provider's own clock has surely passed it (Claude's subscriber CLI continues by itself
  30 to 90 s after the reset; mytty's later turn then finds a new run and sends nothing).
- **One account at a time.** The jobs of one account go on one after another,
  ``[limits] stagger_seconds`` (5 s) apart, in the order they would go on (then the order they
  parked): a fleet does not burst back into the limit. The newest park of an account speaks
  for the whole account: a job parked on an earlier reset waits for a later one another job
  of that account met since.
- **Backing off.** A job that parks again right after it went on (no turn of it ended
  otherwise in between) waits twice as long past the reset each time:
  margin × 2^(streak - 1). After :data:`MAX_REPARKS` re-parks in a row it stays parked (held)
  until ``mytty limits resume`` says otherwise.
- **No reset, no resume.** A park without a reset time waits for ``mytty limits resume``; so
  does a job held with ``mytty limits hold``, and every park while ``[limits] auto_resume`` is
  off.
- **Now.** ``mytty limits resume`` sets ``resume_now_at``: the job goes on from then, still one
  account at a time.

Once mytty sent the continuation (``continued_at``), the job waits for its conversation's next
run, which ends the park; the first such run is also how a continuation by the agent itself
(Claude's own) ends it, so there is never a second one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from mytty.core.events import format_timestamp
from mytty.core.ids import JobId, RunId
from mytty.core.jobs.record_fields import optional_time

#: A job parked again this many times right after going on stays parked (held).
MAX_REPARKS = 3
#: ``[limits]`` defaults.
DEFAULT_MARGIN_S = 120.0
DEFAULT_STAGGER_S = 5.0
#: What mytty types into a parked worker's session, or passes to ``--resume``, to go on.
DEFAULT_CONTINUATION = (
    "Your usage limit has reset (mytty paused you while it was reached). Continue the task you "
    "were working on when the limit was reached; do not repeat work that is already done."
)


@dataclass(frozen=True, slots=True)
class HeldSend:
    """An ``agent send`` that arrived while its job was parked: delivered after it goes on."""

    text: str
    press_enter: bool


@dataclass(frozen=True, slots=True)
class Park:
    """Why and how long a job is parked (see the module docstring)."""

    #: The run that stopped at the limit.
    run_id: RunId
    parked_at: float
    #: The provider's reset (Unix seconds); None: it gave none.
    until: float | None = None
    #: The window or plan, in the provider's words (``five_hour``, ``seven_day``, …).
    limit: str | None = None
    #: The account's key and a human label (:mod:`mytty.core.limits.account`).
    account: str | None = None
    account_label: str | None = None
    #: Parks in a row with no other end of a turn in between (1: the first).
    streak: int = 1
    #: Stays parked until ``mytty limits resume``: held by a human, or too many parks in a row.
    held: bool = False
    #: ``mytty limits resume``: go on from this time, whatever the reset.
    resume_now_at: float | None = None
    #: When mytty sent the continuation; the park ends with the conversation's next run.
    continued_at: float | None = None
    #: Why it is held, when mytty holds it (None: not held, or held by a human).
    note: str | None = None
    #: What the provider said is known: its record was read, or nothing came in time (then it
    #: gave no reset). A hook reports the limit a moment before the record that has the reset.
    settled: bool = False


@dataclass(frozen=True, slots=True)
class LimitRules:
    """``[limits]`` of config.toml as the planner uses it."""

    margin: float = DEFAULT_MARGIN_S
    stagger: float = DEFAULT_STAGGER_S
    auto_resume: bool = True


@dataclass(frozen=True, slots=True)
class Slot:
    """When one parked job goes on: ``at`` (stagger applied) and ``due`` (before it)."""

    job_id: JobId
    account: str
    at: float
    due: float


def backoff(streak: int, margin: float) -> float:
    """Seconds after the reset the ``streak``-th park in a row goes on: margin × 2^(streak-1)."""
    return margin * float(2 ** max(0, streak - 1))


def held_by_streak(streak: int) -> bool:
    """Does the ``streak``-th park in a row stay parked? (after :data:`MAX_REPARKS` re-parks)"""
    return streak > MAX_REPARKS


def due_at(park: Park, rules: LimitRules, account_until: float | None = None) -> float | None:
    """When ``park`` would go on before staggering (None: it waits for ``limits resume``)."""
    if park.held or park.continued_at is not None:
        return None
    if park.resume_now_at is not None:
        return park.resume_now_at
    if park.until is None or not rules.auto_resume:
        return None
    until = park.until if account_until is None else max(park.until, account_until)
    return until + backoff(park.streak, rules.margin)


def account_of_park(job_id: JobId, park: Park) -> str:
    """The account a park is planned under (one of its own when mytty could not tell)."""
    return park.account if park.account is not None else f"?{job_id}"


def newest_until(parks: Iterable[Park]) -> float | None:
    """The reset the newest park of one account names (None: it named none)."""
    newest = max(parks, key=lambda p: p.parked_at, default=None)
    return newest.until if newest is not None else None


def plan(
    parked: Sequence[tuple[JobId, Park]],
    rules: LimitRules,
    last_continued: Mapping[str, float] | None = None,
) -> list[Slot]:
    """When each parked job goes on, earliest first (jobs that wait for a human are left out).

    ``last_continued``: by account, when mytty last sent a continuation there (the next job
    of that account goes on at least ``stagger`` later). Parks that were already continued
    count for it too.
    """
    by_account: dict[str, list[tuple[JobId, Park]]] = {}
    for job_id, park in parked:
        by_account.setdefault(account_of_park(job_id, park), []).append((job_id, park))
    slots: list[Slot] = []
    for account, members in by_account.items():
        previous = (last_continued or {}).get(account)
        for _, park in members:
            if park.continued_at is not None:
                previous = (
                    park.continued_at if previous is None else max(previous, park.continued_at)
                )
        account_until = newest_until(p for _, p in members)
        waiting = []
        for job_id, park in members:
            due = due_at(park, rules, account_until)
            if due is not None:
                waiting.append((due, park.parked_at, job_id))
        for due, _, job_id in sorted(waiting):
            at = due if previous is None else max(due, previous + rules.stagger)
            slots.append(Slot(job_id, account, at, due))
            previous = at
    slots.sort(key=lambda s: (s.at, s.job_id))
    return slots


def describe(park: Park, job_id: str, resumes_at: float | None, auto_resume: bool) -> str:
    """A parked job's ``message``: why it waits and what happens next, in one line."""
    window = f" ({park.limit})" if park.limit else ""
    resume = f"`mytty limits resume {job_id}` continues it"
    if park.continued_at is not None:
        return (
            f"Usage limit{window} reset: mytty continued it on its conversation at "
            f"{_iso(park.continued_at)} and waits for its next turn."
        )
    if park.held:
        why = park.note or "held with `mytty limits hold`"
        return f"Parked at its usage limit{window}; held: {why}. {resume}."
    if park.resume_now_at is not None and resumes_at is not None:
        return f"Parked at its usage limit{window}; mytty continues it at {_iso(resumes_at)}."
    if park.until is None:
        return f"Parked at its usage limit{window}; the provider gave no reset time: {resume}."
    if not auto_resume or resumes_at is None:
        return (
            f"Parked at its usage limit{window} until {_iso(park.until)}; [limits] auto_resume "
            f"is off: {resume}."
        )
    return (
        f"Parked at its usage limit{window} until {_iso(park.until)}; mytty continues it on its "
        f"conversation at {_iso(resumes_at)}."
    )


def _iso(seconds: float) -> str:
    return format_timestamp(seconds)


# -- the stored form (a job record's "park" and "held" fields) -----------------------------------


def park_to_record(park: Park) -> dict[str, object]:
    return {
        "run": park.run_id,
        "at": park.parked_at,
        "until": park.until,
        "limit": park.limit,
        "account": park.account,
        "accountLabel": park.account_label,
        "streak": park.streak,
        "held": park.held,
        "resumeNow": park.resume_now_at,
        "continued": park.continued_at,
        "note": park.note,
        "settled": park.settled,
    }


def _text(value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError("not a string")
    return value


def park_from_record(obj: object) -> Park:
    """The park a record holds; raises TypeError/KeyError when it is malformed."""
    if not isinstance(obj, dict):
        raise TypeError("park is not an object")
    run = obj["run"]
    at = optional_time(obj["at"])
    streak = obj["streak"]
    if not isinstance(run, str) or at is None:
        raise TypeError("park without its run")
    if isinstance(streak, bool) or not isinstance(streak, int) or streak < 1:
        raise TypeError("not a streak")
    return Park(
        run_id=RunId(run),
        parked_at=at,
        until=optional_time(obj["until"]),
        limit=_text(obj["limit"]),
        account=_text(obj["account"]),
        account_label=_text(obj["accountLabel"]),
        streak=streak,
        held=obj["held"] is True,
        resume_now_at=optional_time(obj["resumeNow"]),
        continued_at=optional_time(obj["continued"]),
        note=_text(obj.get("note")),
        settled=obj.get("settled", True) is True,
    )


def held_to_record(held: Sequence[HeldSend]) -> list[list[object]]:
    return [[send.text, send.press_enter] for send in held]


def held_from_record(obj: object) -> tuple[HeldSend, ...]:
    if not isinstance(obj, list):
        raise TypeError("held sends are not a list")
    out = []
    for item in obj:
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
            raise TypeError("not a held send")
        out.append(HeldSend(item[0], item[1] is True))
    return tuple(out)
