"""Sanitation of session ids, tool names, tool-use ids and messages (providers.md §1.4)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.answers import MAX_ANSWER_JSON_BYTES, clamp_utf8, clip_answer
from mytty.hook.fields import (
    MAX_MESSAGE_BYTES,
    approval_message,
    sanitize_message,
    sanitize_session_id,
    sanitize_tool_name,
    sanitize_tool_use_id,
)

CONTROLS = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))]


@pytest.mark.parametrize(
    "value",
    ["2f295c41-79c8-40fa-854a-def4848899c0", "ses_01JZ8K2B7N4X", "a" * 256, "セッション", "a b"],
)
def test_valid_session_ids_pass_verbatim(value: str) -> None:
    assert sanitize_session_id(value) == value


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        12,
        ["s"],
        "a" * 257,
        "é" * 129,  # 258 UTF-8 bytes
        " leading",
        "trailing ",
        "\ttab",
        "new\nline",
        "nul\x00",
        "del\x7f",
        "c1\x85",
        "lone\ud800surrogate",
    ],
)
def test_bad_session_ids_are_dropped_whole(value: object) -> None:
    assert sanitize_session_id(value) is None


@given(st.text())
def test_accepted_session_ids_obey_every_rule(value: str) -> None:
    out = sanitize_session_id(value)
    if out is not None:
        assert out == value
        assert value.strip() == value
        assert 0 < len(value.encode("utf-8")) <= 256
        assert not any(ch in value for ch in CONTROLS)


def test_tool_use_id_strips_controls_instead_of_rejecting() -> None:
    assert sanitize_tool_use_id("call-abc-1\nfc_def_1") == "call-abc-1fc_def_1"
    assert sanitize_tool_use_id("\n\t") is None
    assert sanitize_tool_use_id(5) is None


def test_tool_names_are_cut_to_128_bytes_on_a_character_boundary() -> None:
    assert sanitize_tool_name("Bash") == "Bash"
    assert sanitize_tool_name("x" * 200) == "x" * 128
    cut = sanitize_tool_name("é" * 100)  # 200 bytes
    assert cut == "é" * 64
    assert sanitize_tool_name("Ba\x00sh\x1b") == "Bash"
    assert sanitize_tool_name("") is None
    assert sanitize_tool_name(None) is None


@given(st.text())
def test_tool_name_and_id_bounds(value: str) -> None:
    for func, limit in ((sanitize_tool_name, 128), (sanitize_tool_use_id, 256)):
        out = func(value)
        if out is not None:
            raw = out.encode("utf-8")  # always encodable, even from lone surrogates
            assert 0 < len(raw) <= limit
            assert not any(ch in out for ch in CONTROLS)


@given(st.text(), st.integers(min_value=0, max_value=64))
def test_clamp_utf8_is_a_valid_prefix(value: str, limit: int) -> None:
    out = clamp_utf8(value, limit)
    raw = out.encode("utf-8")
    assert len(raw) <= limit
    assert value.encode("utf-8", "replace").startswith(raw)


def test_messages_keep_text_and_are_bounded() -> None:
    assert sanitize_message("line one\nline two") == "line one\nline two"
    assert sanitize_message("") is None
    assert sanitize_message(None) is None
    assert sanitize_message(["x"]) is None
    long = sanitize_message("m" * (MAX_MESSAGE_BYTES + 10))
    assert long is not None and len(long.encode()) == MAX_MESSAGE_BYTES


def test_approval_fallback_message() -> None:
    assert approval_message("Bash") == "Bash requires approval"
    assert approval_message(None) is None


# -- the final answer ------------------------------------------------------------------------


def _encoded(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8"))


def test_a_short_answer_passes_untouched() -> None:
    assert clip_answer("Done: 3 files changed.") == "Done: 3 files changed."
    assert clip_answer("") is None and clip_answer(None) is None and clip_answer(7) is None


def test_a_long_answer_keeps_its_beginning_and_end_and_says_what_was_cut() -> None:
    text = "BEGIN " + "x" * 100_000 + " END"
    clipped = clip_answer(text)
    assert clipped is not None
    assert clipped.startswith("BEGIN ") and clipped.endswith(" END")
    assert _encoded(clipped) <= MAX_ANSWER_JSON_BYTES
    head, marker_and_tail = clipped.split("\n\n[… mytty cut ", 1)
    cut = int(marker_and_tail.split(" ", 1)[0])
    tail = marker_and_tail.split("…]\n\n", 1)[1]
    assert len(head) + cut + len(tail) == len(text)


@settings(max_examples=200)
@given(
    st.text(min_size=1, max_size=3000),
    st.integers(min_value=200, max_value=4000),
)
def test_a_clipped_answer_always_fits(text: str, limit: int) -> None:
    clipped = clip_answer(text, limit)
    assert clipped is not None
    assert _encoded(clipped) <= limit
    clipped.encode("utf-8")  # always encodable, even from lone surrogates
    if _encoded(text) <= limit and "\ud800" not in text:
        assert clipped == clamp_utf8(text, len(text) * 4)


def test_the_answer_of_a_huge_stop_still_fits_the_envelope() -> None:
    # Control characters and quotes grow sixfold/twofold when escaped.
    text = ('\x01"' * 40_000) + "final words"
    clipped = clip_answer(text)
    assert clipped is not None and clipped.endswith("final words")
    assert _encoded(clipped) <= MAX_ANSWER_JSON_BYTES
