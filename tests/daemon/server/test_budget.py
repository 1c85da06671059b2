"""The connection budget's rules (mytty/daemon/server/budget.py), without sockets.

tests/reliability/test_connection_budget.py holds a real controller to them under a
1024-descriptor limit.
"""

from __future__ import annotations

import pytest

from mytty.core.errors import ErrorCode, MyttyError
from mytty.daemon.server.budget import Admission, Budget, Entry, Ledger, Rules

RULES = Rules(reply=lambda why: why.encode(), is_short=lambda line: line == b"short")


def test_a_budget_keeps_a_reserve_and_gives_each_peer_a_quarter_of_the_rest() -> None:
    assert Budget.of(477) == Budget(477, 59, 104)
    assert Budget.of(477).waiting == 418
    assert Budget.of(8) == Budget(8, 4, 1)  # never a reserve of more than half
    tiny = Budget.of(1)
    assert tiny.reserve == 0 and tiny.per_peer == 1


def fill(ledger: Ledger, pid: int, n: int) -> None:
    ledger.connections[pid] += n


def test_a_peer_past_its_share_is_refused_and_others_are_not() -> None:
    ledger = Ledger(Budget.of(477), "control")
    fill(ledger, 7, 104)
    entry, why = ledger.entry(7, None, RULES)
    assert entry is Entry.REFUSE and "pid 7" in why and "at most 104 at once" in why
    assert "descriptor limit of" in why
    assert ledger.entry(8, None, RULES) == (Entry.SERVE, "")


def test_the_reserve_takes_short_requests_only() -> None:
    ledger = Ledger(Budget.of(477), "control")
    for pid in range(5):  # 5 peers, 418 connections: everything but the reserve
        fill(ledger, pid, 84 if pid < 4 else 82)
    assert ledger.held == 418
    assert ledger.entry(99, b"short", RULES) == (Entry.SERVE, "")
    entry, why = ledger.entry(99, b"long", RULES)
    assert entry is Entry.REFUSE and "short requests such as list" in why
    # A request not read yet may take a few of the reserve, no more.
    for _ in range(59 // 2):
        assert ledger.entry(99, None, RULES)[0] is Entry.SERVE_UNSORTED
        ledger.unsorted += 1
    assert ledger.entry(99, None, RULES)[0] is Entry.REFUSE
    # Without rules (the event socket) nothing is told apart.
    assert ledger.entry(99, None, None) == (Entry.SERVE, "")


def test_a_full_budget_refuses_everybody() -> None:
    ledger = Ledger(Budget.of(477), "control")
    fill(ledger, 1, 104)
    fill(ledger, 2, 104)
    fill(ledger, 3, 104)
    fill(ledger, 4, 104)
    fill(ledger, 5, 61)
    assert ledger.held == 477
    assert ledger.entry(6, b"short", RULES)[0] is Entry.REFUSE
    assert not ledger.may_refuse_later(6)


def test_admission_counts_a_peers_requests_and_the_waiting_ones() -> None:
    ledger = Ledger(Budget(limit=10, reserve=2, per_peer=3), "control")
    claims = [Admission(ledger, 1) for _ in range(3)]
    for claim in claims:
        claim.admit(short=False)
    assert (ledger.admitted[1], ledger.waiting) == (3, 3)
    with pytest.raises(MyttyError) as err:
        Admission(ledger, 1).admit(short=True)
    assert err.value.code is ErrorCode.TOO_MANY_REQUESTS and "at most 3 at once" in str(err.value)
    for pid in (2, 3):
        for _ in range(2):
            Admission(ledger, pid).admit(short=False)
    assert ledger.waiting == 7
    Admission(ledger, 4).admit(short=False)  # the 8th: 10 - 2 reserved
    with pytest.raises(MyttyError) as err:
        Admission(ledger, 5).admit(short=False)
    assert err.value.code is ErrorCode.TOO_MANY_REQUESTS and "use at most 8" in str(err.value)
    Admission(ledger, 5).admit(short=True)  # a short one still gets in
    for claim in claims:
        claim.release()
        claim.release()  # twice is once
    assert ledger.admitted[1] == 0 and ledger.waiting == 5


def test_an_unsorted_connection_leaves_the_count_once_sorted() -> None:
    ledger = Ledger(Budget.of(100), "control")
    claim = Admission(ledger, 1, unsorted=True)
    ledger.unsorted += 1
    claim.admit(short=True)
    assert ledger.unsorted == 0
    claim.release()
    assert ledger.unsorted == 0 and ledger.admitted[1] == 0
