"""The send-key table: tmux names, aliases, modifier spellings, and what is refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.keys import MODIFIER_NAMES, ModifierError, UnknownKeyError, guide_text, tmux_key


@pytest.mark.parametrize(
    ("key", "mods", "expected"),
    [
        ("escape", [], "Escape"),
        ("Esc", [], "Escape"),
        ("ESC", [], "Escape"),
        ("return", [], "Enter"),
        ("delete", [], "BSpace"),  # the seed's name: the macOS delete key
        ("DC", [], "DC"),
        ("pageup", [], "PPage"),
        ("PageUp", [], "PPage"),
        ("PgUp", [], "PPage"),
        ("pgdn", [], "NPage"),
        ("F1", [], "F1"),
        ("f12", [], "F12"),
        ("a", [], "a"),
        ("A", [], "A"),
        (" ", [], "Space"),
        ("c", ["ctrl"], "C-c"),
        ("c", ["control"], "C-c"),
        ("c", ["C"], "C-c"),
        ("C-c", [], "C-c"),
        ("ctrl-c", [], "C-c"),
        ("Ctrl+C", [], "C-C"),
        ("ctrl-shift-a", [], "C-A"),
        ("C--", [], "C--"),
        ("x", ["alt"], "M-x"),
        ("x", ["option"], "M-x"),
        ("x", ["command"], "M-x"),
        ("M-x", [], "M-x"),
        ("a", ["shift"], "A"),
        ("tab", ["shift"], "BTab"),
        ("S-Tab", [], "BTab"),
        ("up", ["shift", "control"], "C-S-Up"),
        ("page-up", [], "PPage"),
    ],
)
def test_accepted(key: str, mods: list[str], expected: str) -> None:
    assert tmux_key(key, mods) == expected


@pytest.mark.parametrize("key", ["", "ab", "ctrl", "C-", "hyper-c", "F13", "é", "\x01", "page"])
def test_unknown_keys(key: str) -> None:
    with pytest.raises(UnknownKeyError):
        tmux_key(key)


@pytest.mark.parametrize("mods", [["hyper"], ["control", "fn"], [""], ["ctrl-"]])
def test_unknown_modifiers(mods: list[str]) -> None:
    with pytest.raises(ModifierError):
        tmux_key("c", mods)


@given(st.sampled_from(sorted(MODIFIER_NAMES)), st.sampled_from(["a", "up", "F5", "7"]))
def test_every_modifier_spelling_works_in_any_case(spelling: str, key: str) -> None:
    assert tmux_key(key, [spelling.upper()]) == tmux_key(key, [spelling])


@given(st.text(min_size=1, max_size=3))
def test_the_result_is_a_known_name_or_a_refusal(key: str) -> None:
    # tmux types an unknown name as text, so anything accepted must be one tmux knows.
    try:
        name = tmux_key(key)
    except UnknownKeyError:
        return
    assert name.isascii() and name.isprintable()


def test_the_guide_lists_the_names() -> None:
    text = guide_text()
    for word in ("PPage", "pageup", "BSpace", "Escape", "esc", "ctrl", "alt", "C-c", "F1 … F12"):
        assert word in text, word
