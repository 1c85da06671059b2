"""When parked jobs go on: margin, one account at a time, backing off, holding (core.limits.park)."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.ids import JobId, RunId
from mytty.core.limits.park import (
    MAX_REPARKS,
    HeldSend,
    LimitRules,
    Park,
    backoff,
    due_at,
    held_by_streak,
    held_from_record,
    held_to_record,
    park_from_record,
    park_to_record,
    plan,
)

RESET = 1_796_169_600.0
RULES = LimitRules(margin=120.0, stagger=5.0)


def park(n: int, *, until: float | None = RESET, account: str = "acct", **kw: Any) -> Park:
    return replace(
        Park(RunId(f"R{n}"), parked_at=RESET - 100 + n, until=until, account=account), **kw
    )


def jobs(*parks: Park) -> list[tuple[JobId, Park]]:
    return [(JobId(f"J{i}"), p) for i, p in enumerate(parks)]


def test_one_park_goes_on_at_the_reset_plus_the_margin() -> None:
    [slot] = plan(jobs(park(0)), RULES)
    assert slot.at == RESET + 120 and slot.job_id == "J0"


def test_four_parks_of_one_account_go_on_in_order_stagger_apart() -> None:
    slots = plan(jobs(park(3), park(1), park(0), park(2)), RULES)
    assert [s.job_id for s in slots] == ["J2", "J1", "J3", "J0"]  # by the order they parked
    assert [s.at for s in slots] == [RESET + 120 + 5 * i for i in range(4)]


def test_accounts_go_on_independently() -> None:
    slots = plan(jobs(park(0, account="a"), park(1, account="b")), RULES)
    assert [s.at for s in slots] == [RESET + 120, RESET + 120]


def test_the_newest_park_of_an_account_speaks_for_it() -> None:
    later = RESET + 3600
    slots = plan(jobs(park(0), park(1, until=later)), RULES)
    assert [s.at for s in slots] == [later + 120, later + 125]


def test_a_continued_park_delays_the_next_one_of_its_account() -> None:
    slots = plan(jobs(park(0, continued_at=RESET + 200), park(1)), RULES)
    assert [(s.job_id, s.at) for s in slots] == [("J1", RESET + 205)]
    slots = plan(jobs(park(1)), RULES, {"acct": RESET + 300})
    assert slots[0].at == RESET + 305


def test_backing_off_doubles_and_holds_after_three_reparks() -> None:
    assert [backoff(n, 120) for n in (1, 2, 3, 4)] == [120, 240, 480, 960]
    # The first park and three re-parks right after going on; the third re-park stays.
    assert [held_by_streak(n) for n in range(1, MAX_REPARKS + 3)] == [False] * 3 + [True] * 2
    assert due_at(park(0, streak=3), RULES) == RESET + 480


def test_without_a_reset_or_when_held_nothing_is_planned() -> None:
    assert plan(jobs(park(0, until=None), park(1, held=True)), RULES) == []
    assert plan(jobs(park(0)), replace(RULES, auto_resume=False)) == []


def test_resume_now_overrides_everything_but_the_stagger() -> None:
    now = RESET - 50
    slots = plan(jobs(park(0, until=None, resume_now_at=now), park(1, resume_now_at=now)), RULES)
    assert [s.at for s in slots] == [now, now + 5]
    held = park(2, held=True, resume_now_at=now)
    assert due_at(held, RULES) is None  # a hold stays until lifted (limits resume lifts it)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c"]),
            st.none() | st.floats(RESET, RESET + 10_000),
            st.integers(1, 3),
        ),
        max_size=12,
    )
)
def test_plan_never_bursts_an_account(entries: list[tuple[str, float | None, int]]) -> None:
    parks = jobs(*(park(i, account=a, until=u, streak=s) for i, (a, u, s) in enumerate(entries)))
    slots = plan(parks, RULES)
    assert len({s.job_id for s in slots}) == len(slots)
    for account in {s.account for s in slots}:
        times = sorted(s.at for s in slots if s.account == account)
        assert all(b - a >= RULES.stagger - 1e-9 for a, b in itertools.pairwise(times))
    for slot in slots:
        assert slot.at >= slot.due


def test_records_round_trip() -> None:
    full = park(
        0,
        limit="five_hour",
        account_label="claude",
        streak=2,
        held=True,
        resume_now_at=RESET,
        continued_at=RESET + 1,
    )
    assert park_from_record(park_to_record(full)) == full
    assert park_from_record(park_to_record(park(1, until=None))) == park(1, until=None)
    sends = (HeldSend("one", True), HeldSend("two\nlines", False))
    assert held_from_record(held_to_record(sends)) == sends
