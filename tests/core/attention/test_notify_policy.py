"""Which transitions notify, once each, never from before the start, with a per-pane cooldown."""

from __future__ import annotations

import uuid

import pytest

from mytty.core.attention.items import AttentionBook, AttentionItem, AttentionKind
from mytty.core.attention.notify_policy import (
    Notification,
    NotifyGate,
    Verdict,
    describe,
    notification_for,
    notification_for_item,
)
from mytty.core.config import NOTIFY_KINDS
from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId
from mytty.core.runs.book import RunBook

K = AgentEventKind
PANE = SurfaceId(str(uuid.UUID(int=1)).upper())
OTHER = SurfaceId(str(uuid.UUID(int=2)).upper())


class Books:
    def __init__(self) -> None:
        self.runs = RunBook()
        self.attention = AttentionBook()
        self.run_id = RunId(str(uuid.uuid4()).upper())

    def apply(
        self, kind: AgentEventKind, at: float, message: str | None = None, long: float = 300.0
    ) -> Notification | None:
        event = AgentEvent(
            id=str(uuid.uuid4()).upper(),
            run_id=self.run_id,
            surface_id=PANE,
            provider=AgentProvider.CLAUDE_CODE,
            kind=kind,
            occurred_at=at,
            message=message,
        )
        result = self.runs.apply(event)
        self.attention.observe(event, result)
        return notification_for(
            event, self.attention.get(event.id), self.runs.get(event.run_id), long
        )


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (K.APPROVAL_REQUESTED, "approval"),
        (K.INPUT_REQUESTED, "input"),
        (K.FAILED, "failure"),
        (K.DISCONNECTED, "disconnect"),
    ],
)
def test_transitions_needing_a_human_notify(kind: AgentEventKind, expected: str) -> None:
    books = Books()
    assert books.apply(K.STARTED, 100.0) is None
    n = books.apply(kind, 101.0, message="Bash: rm -rf build")
    assert n is not None and n.kind == expected
    assert (n.surface_id, n.run_id, n.provider) == (PANE, books.run_id, "claude-code")
    assert n.message == "Bash: rm -rf build"


def test_a_disconnect_of_a_finished_run_is_no_news() -> None:
    books = Books()
    books.apply(K.STARTED, 100.0)
    books.apply(K.SUCCEEDED, 101.0)
    assert books.apply(K.DISCONNECTED, 102.0) is None


@pytest.mark.parametrize(
    ("threshold", "lasted", "notifies"),
    [(300.0, 299.0, False), (300.0, 300.0, True), (60.0, 61.0, True), (600.0, 400.0, False)],
)
def test_success_notifies_only_after_the_threshold(
    threshold: float, lasted: float, notifies: bool
) -> None:
    books = Books()
    books.apply(K.STARTED, 1000.0)
    n = books.apply(K.SUCCEEDED, 1000.0 + lasted, long=threshold)
    assert (n is not None and n.kind == "long-success") is notifies


def test_running_again_is_not_a_notification() -> None:
    books = Books()
    books.apply(K.STARTED, 1.0)
    books.apply(K.APPROVAL_REQUESTED, 2.0)
    assert books.apply(K.RUNNING, 3.0) is None


def note(
    key: str = "E1", at: float = 50.0, pane: SurfaceId = PANE, kind: str = "approval"
) -> Notification:
    return Notification(key, kind, pane, RunId("R"), "codex", None, at)


def test_the_gate_claims_each_transition_once() -> None:
    gate = NotifyGate(started_at=10.0, kinds=NOTIFY_KINDS, cooldown=0.0)
    assert gate.claim(note()) is Verdict.SEND
    assert gate.claim(note()) is Verdict.DUPLICATE
    assert gate.claim(note("E2")) is Verdict.SEND


def test_nothing_from_before_the_start_and_no_disabled_kind() -> None:
    gate = NotifyGate(started_at=10.0, kinds=("failure",), cooldown=0.0)
    assert gate.claim(note(at=9.9, kind="failure")) is Verdict.BEFORE_START
    assert gate.claim(note(kind="approval")) is Verdict.KIND_OFF
    assert gate.claim(note(kind="failure")) is Verdict.SEND


def test_focus_and_cooldown_are_per_pane() -> None:
    gate = NotifyGate(started_at=0.0, kinds=NOTIFY_KINDS, cooldown=30.0)
    assert gate.admit(note("A"), focused=True, now=100.0) is Verdict.FOCUSED
    assert gate.admit(note("A"), focused=False, now=100.0) is Verdict.SEND
    assert gate.admit(note("B"), focused=False, now=129.0) is Verdict.COOLDOWN
    assert gate.admit(note("C", pane=OTHER), focused=False, now=129.0) is Verdict.SEND
    assert gate.admit(note("D"), focused=False, now=130.0) is Verdict.SEND


def test_the_cooldown_is_per_kind() -> None:
    gate = NotifyGate(started_at=0.0, kinds=NOTIFY_KINDS, cooldown=30.0)
    assert gate.admit(note("A", kind="long-success"), focused=False, now=100.0) is Verdict.SEND
    assert gate.admit(note("B", kind="approval"), focused=False, now=101.0) is Verdict.SEND
    assert gate.admit(note("C", kind="approval"), focused=False, now=102.0) is Verdict.COOLDOWN


def test_a_focused_pane_does_not_start_its_cooldown() -> None:
    gate = NotifyGate(started_at=0.0, kinds=NOTIFY_KINDS, cooldown=30.0)
    gate.admit(note("A"), focused=True, now=100.0)
    assert gate.admit(note("B"), focused=False, now=101.0) is Verdict.SEND


def test_retuning_keeps_what_was_sent_and_when() -> None:
    """A reloaded config.toml: new kinds and cooldown, but no repeat and no cut-short cooldown."""
    gate = NotifyGate(started_at=0.0, kinds=("failure",), cooldown=30.0)
    assert gate.claim(note("A", kind="approval")) is Verdict.KIND_OFF
    assert gate.claim(note("F", kind="failure")) is Verdict.SEND
    assert gate.admit(note("F", kind="failure"), focused=False, now=100.0) is Verdict.SEND
    gate.retune(kinds=("failure", "approval"), cooldown=60.0)
    assert gate.claim(note("F", kind="failure")) is Verdict.DUPLICATE
    assert gate.claim(note("A2", kind="approval")) is Verdict.SEND
    assert gate.admit(note("G", kind="failure"), focused=False, now=159.0) is Verdict.COOLDOWN
    assert gate.admit(note("H", kind="failure"), focused=False, now=160.0) is Verdict.SEND
    gate.retune(kinds=("approval",), cooldown=0.0)
    assert gate.claim(note("I", kind="failure")) is Verdict.KIND_OFF


def test_the_text_names_the_pane_and_what_it_needs() -> None:
    n = Notification("E", "approval", PANE, RunId("R"), "codex", "apply patch", 1.0)
    assert describe(n, "reviewer") == ("mytty: reviewer", "codex needs approval: apply patch")
    assert describe(n, None)[0] == "mytty"


@pytest.mark.parametrize("kind", list(AttentionKind))
def test_every_attention_kind_is_handled(kind: AttentionKind) -> None:
    item = AttentionItem("I", PANE, RunId("R"), AgentProvider.CODEX, kind, None, 1.0)
    n = notification_for_item(item)
    assert n is None or n.kind in NOTIFY_KINDS
