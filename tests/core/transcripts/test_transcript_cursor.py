"""Cursor's chat store → the turn, on blobs in the store's shape (JSON messages among
non-JSON blobs such as the protobuf root)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.estimation.turn_observation import TurnObservation, TurnPhase
from mytty.core.transcripts.cursor import SCAN_BLOBS, cursor_turn

CONV = "f1ff7b74-0a28-4dd4-a452-e01ae080eb20"


def blob(role: str, *content: dict[str, object]) -> bytes:
    return json.dumps({"role": role, "content": list(content)}).encode()


USER = blob("user", {"type": "text", "text": "fix the test"})
CALL = blob(
    "assistant",
    {"type": "text", "text": "Let me look."},
    {"type": "tool-call", "toolCallId": "t1", "toolName": "Shell", "args": {"command": "ls"}},
)
RESULT = blob("tool", {"type": "tool-result", "toolCallId": "t1", "result": "a b"})
ANSWER = blob("assistant", {"type": "reasoning", "text": "…"}, {"type": "text", "text": "Done."})
ROOT = b"\x0a\x20" + bytes(32)  # the protobuf root blob


def newest_first(*blobs: bytes) -> list[tuple[int, object]]:
    return [(rowid, data) for rowid, data in reversed(list(enumerate(blobs, start=1)))]


def test_a_turn_with_a_tool_call_is_active_until_the_answer() -> None:
    assert cursor_turn(CONV, newest_first(USER, ROOT, CALL, RESULT)) == TurnObservation(
        f"{CONV}#1", TurnPhase.ACTIVE
    )
    assert cursor_turn(CONV, newest_first(USER, CALL, RESULT, ANSWER, ROOT)) == TurnObservation(
        f"{CONV}#1", TurnPhase.COMPLETED
    )


def test_the_newest_user_text_is_the_turn() -> None:
    blobs = newest_first(USER, ANSWER, USER, CALL)
    assert cursor_turn(CONV, blobs) == TurnObservation(f"{CONV}#3", TurnPhase.ACTIVE)


def test_only_the_newest_400_blobs_are_looked_at() -> None:
    blobs = newest_first(USER, *([RESULT] * SCAN_BLOBS))
    assert cursor_turn(CONV, blobs) is None
    assert cursor_turn(CONV, newest_first()) is None


@given(
    st.lists(st.tuples(st.integers(), st.binary(max_size=60) | st.text(max_size=30)), max_size=30)
)
def test_garbage_blobs_never_crash(rows: list[tuple[int, object]]) -> None:
    cursor_turn(CONV, rows)
