"""A request's life, prefixes, messages, who may answer, the book and the stored record."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.approvals import record
from mytty.core.approvals.access import AGENT, HUMAN, Caller, may_see, refusal, who
from mytty.core.approvals.book import FINISHED_KEPT, ApprovalBook
from mytty.core.approvals.model import (
    APPROVER_LEAD,
    BY_HOOK,
    ApprovalState,
    Decision,
    clean_message,
    decided,
    expired,
    held_again,
    hold_over,
    resolve_prefix,
)
from mytty.core.ids import JobId, SurfaceId

from .builders import JOB, LEAD, PANE, request

IDS = ["0A1B2C3D-0000-4000-8000-000000000001", "0A1B9999-0000-4000-8000-000000000002"]


def test_a_prefix_names_one_request_and_an_empty_one_none() -> None:
    assert resolve_prefix(IDS, "0a1b2") == [IDS[0]]
    assert resolve_prefix(IDS, "0A1B") == IDS
    assert resolve_prefix(IDS, IDS[1].lower()) == [IDS[1]]
    assert resolve_prefix(IDS, "0A1B2C3D0000") == [IDS[0]]  # hyphens optional
    assert resolve_prefix(IDS, "  ") == [] and resolve_prefix(IDS, "") == []
    # Hyphens alone are no prefix: `approve -` with one request pending must not answer it.
    assert resolve_prefix(IDS[:1], "-") == [] and resolve_prefix(IDS, " -- ") == []
    assert resolve_prefix(IDS, "FF") == []


def test_states() -> None:
    made = request()
    assert made.open and made.state is ApprovalState.HOLDING
    assert hold_over(made).state is ApprovalState.DIALOG
    done = decided(
        made, Decision.DENY, who="human:tty", at=1002.5, delivered_by=BY_HOOK, message="m"
    )
    assert not done.open and done.latency() == 2.5 and hold_over(done) is done
    assert expired(made, 1003.0).state is ApprovalState.EXPIRED


def test_a_retried_hook_holds_again_only_within_the_hold() -> None:
    made = replace(request(), hold_until=1060.0)
    over = hold_over(made)  # its first connection hung up
    again = held_again(over, 1010.0)
    assert again is not None and again.state is ApprovalState.HOLDING
    assert again.hold_until == 1060.0  # the rest of the same hold, never a new one
    assert held_again(over, 1060.0) is None  # the hold ran out
    assert held_again(made, 1010.0) is None  # still holding: nothing to resume
    answered = decided(made, Decision.ALLOW, who="human:tty", at=1001.0, delivered_by=BY_HOOK)
    assert held_again(answered, 1010.0) is None
    assert held_again(replace(over, hold_until=None), 1010.0) is None  # there was no hold


def test_messages_are_one_line() -> None:
    assert clean_message(" use\tthe \n fixture\x1b[0m ") == "use the fixture [0m"


def test_people_answer_anything_agents_only_their_leads_workers() -> None:
    worker = request(job_id=JOB, approver=APPROVER_LEAD, lead=LEAD)
    person = Caller(HUMAN)
    lead = Caller(AGENT, LEAD, JobId("LEADJOB"))
    assert refusal(person, worker) is None and who(person, "popup") == "human:popup"
    assert refusal(lead, worker) is None and who(lead, "tty") == "lead:LEADJOB"
    assert may_see(lead, worker) and may_see(person, worker)
    assert who(Caller(AGENT, LEAD), "tty") == f"lead:{LEAD}"
    assert "own" in (refusal(Caller(AGENT, PANE), worker) or "")
    other = Caller(AGENT, SurfaceId(JOB))  # another pane
    assert "did not spawn" in (refusal(other, worker) or "") and not may_see(other, worker)
    assert "did not spawn" in (refusal(Caller(AGENT, None), worker) or "")
    human_only = replace(worker, approver="human")
    assert "--approver lead" in (refusal(lead, human_only) or "")


def test_the_book_files_open_and_finished_requests() -> None:
    book = ApprovalBook()
    made = book.put(request("a"))
    assert book.open() == [made] and book.open_for_run(made.run_id) == [made]
    assert book.open_with_event(made.event_id) == made
    done = book.put(decided(made, Decision.ALLOW, who="x", at=1.0, delivered_by=BY_HOOK))
    assert book.open() == [] and book.get(made.id) == done and len(book) == 1
    for n in range(FINISHED_KEPT + 5):
        book.put(expired(request(f"c{n}"), 1.0))
    assert len(book) == FINISHED_KEPT and book.get(made.id) is None
    assert [r.id for r in book.matching(book.all()[0].id[:12])] == [book.all()[0].id]


@given(
    st.text(max_size=20),
    st.booleans(),
    st.one_of(st.none(), st.text(max_size=10)),
    st.lists(st.text(min_size=1, max_size=8), max_size=3),
)
def test_a_record_reads_back_as_the_request(
    command: str, truncated: bool, label: str | None, paths: list[str]
) -> None:
    made = request(command, truncated=truncated, label=label, paths=tuple(paths))
    for version in (
        made,
        decided(
            made,
            Decision.DENY,
            who="rule:r",
            at=1001.0,
            delivered_by="rule",
            message="no",
            rule="r",
        ),
        expired(made, 1002.0),
    ):
        assert record.decode(record.encode(version)) == version


def test_an_unreadable_record_is_none() -> None:
    assert record.decode("{") is None and record.decode("[]") is None
    assert record.decode('{"id": 1}') is None
