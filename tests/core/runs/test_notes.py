"""Status notes: validation and the automatic clearing rule."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.events import AgentEvent, AgentEventKind, AgentProvider
from mytty.core.ids import RunId, SurfaceId, stable_uuid
from mytty.core.runs.notes import CLEARING_KINDS, StatusNotes
from mytty.core.validation import validate_status

PANE = SurfaceId(stable_uuid("test", "pane"))
OTHER_PANE = SurfaceId(stable_uuid("test", "other-pane"))


def event(
    kind: AgentEventKind, pane: str = PANE, provider: AgentProvider = AgentProvider.CODEX
) -> AgentEvent:
    return AgentEvent(
        id=stable_uuid("notes", kind, pane),
        run_id=RunId(stable_uuid("test", "run")),
        surface_id=SurfaceId(pane),
        provider=provider,
        kind=kind,
        occurred_at=0.0,
    )


@pytest.mark.parametrize(
    "text",
    ["reviewing tests", "x", "a" * 100, "日本語のメモ" * 16, "🧪" * 100, "tab-free, émoji ✓"],
)
def test_valid_notes(text: str) -> None:
    assert validate_status(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a" * 101,
        "🧪" * 101,
        "two\nlines",
        "carriage\r",
        "tab\there",
        "bell\x07",
        "del\x7f",
        "zero\u200dwidth joiner",  # Cf
        "bidi\u202eoverride",  # Cf
        "bom\ufeff",  # Cf
        "c1\x85",  # Cc (NEL)
        "lone\ud800surrogate",
    ],
)
def test_invalid_notes(text: str) -> None:
    problem = validate_status(text)
    assert isinstance(problem, str) and problem


@pytest.mark.parametrize("value", [None, 5, b"bytes", ["list"]])
def test_non_strings_are_invalid(value: object) -> None:
    assert validate_status(value) is not None


def test_counts_scalars_not_bytes_or_graphemes() -> None:
    family = "\U0001f468"  # a man, four UTF-8 bytes but one scalar
    assert validate_status(family * 100) is None
    # e + combining acute: one grapheme, two scalars
    assert validate_status("e\u0301" * 50) is None
    assert validate_status("e\u0301" * 50 + "x") is not None


def test_set_get_clear() -> None:
    notes = StatusNotes()
    assert notes.get(PANE) is None
    notes.set(PANE, "compiling")
    notes.set(OTHER_PANE, "waiting for review")
    assert notes.get(PANE) == "compiling"
    notes.set(PANE, "linting")
    assert notes.get(PANE) == "linting"
    assert notes.clear(PANE)
    assert not notes.clear(PANE)
    assert notes.get(PANE) is None
    assert notes.snapshot() == {OTHER_PANE: "waiting for review"}


def test_set_rejects_invalid_text_and_keeps_the_old_note() -> None:
    notes = StatusNotes()
    notes.set(PANE, "fine")
    with pytest.raises(ValueError, match="empty"):
        notes.set(PANE, "")
    with pytest.raises(ValueError):
        notes.set(PANE, "line\nbreak")
    assert notes.get(PANE) == "fine"


@pytest.mark.parametrize("kind", list(AgentEventKind))
def test_observe_clears_on_lifecycle_kinds_only(kind: AgentEventKind) -> None:
    notes = StatusNotes()
    notes.set(PANE, "busy")
    notes.set(OTHER_PANE, "also busy")
    cleared = notes.observe(event(kind, provider=AgentProvider.CURSOR))
    clears = kind in {
        AgentEventKind.IDLE,
        AgentEventKind.STARTED,
        AgentEventKind.SUCCEEDED,
        AgentEventKind.FAILED,
        AgentEventKind.DISCONNECTED,
        AgentEventKind.LIMIT_REACHED,  # mytty's: the turn ended at a usage limit
    }
    assert cleared == clears
    assert notes.get(PANE) == (None if clears else "busy")
    assert notes.get(OTHER_PANE) == "also busy"  # keyed on the pane alone


def test_clearing_kinds_constant() -> None:
    assert {
        AgentEventKind.IDLE,
        AgentEventKind.STARTED,
        AgentEventKind.SUCCEEDED,
        AgentEventKind.FAILED,
        AgentEventKind.DISCONNECTED,
        AgentEventKind.LIMIT_REACHED,
    } == CLEARING_KINDS


def test_observe_without_a_note_reports_nothing_cleared() -> None:
    assert not StatusNotes().observe(event(AgentEventKind.FAILED))


def test_forget_pane() -> None:
    notes = StatusNotes()
    notes.set(PANE, "x")
    notes.forget_pane(PANE)
    notes.forget_pane(PANE)
    assert notes.get(PANE) is None


@given(st.text(max_size=120))
def test_validation_matches_its_definition(text: str) -> None:
    ok = 0 < len(text) <= 100 and all(
        unicodedata.category(ch) not in {"Cc", "Cf", "Cs"} for ch in text
    )
    assert (validate_status(text) is None) == ok
