"""Hypothesis strategies for text that tmux would not take literally unless it is escaped.

Drawn from fragments that mean something to tmux's command parser (``;`` quotes ``\\`` ``$``
``~`` newlines), its format language (``#(…)`` ``#{…}`` ``##`` ``#S`` ``%d``), its status-line
drawing (``#[fg=red]`` ``##[``) and its listings (the field separator), mixed with any other
text. ``MYTTY_FUZZ_SCALE`` multiplies the example counts, as in the rest of the reliability
suite.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SCALE = float(os.environ.get("MYTTY_FUZZ_SCALE", "1"))

#: The marker a ``#(…)`` fragment would create in the tmux server's $HOME if it ever ran.
PWNED = "PWNED"

FRAGMENTS = (
    "#(",
    f"#(cd;touch {PWNED})",
    "#{",
    "#{pane_id}",
    "}",
    ")",
    "#",
    "##",
    "###",
    "#S",
    "#H",
    "#,",
    "#}",
    "#[fg=red]",
    "##[",
    "#[",
    "[",
    "]",
    ";",
    "'",
    '"',
    "\\",
    "$HOME",
    "${X}",
    "~",
    "%",
    "%d",
    "%%",
    ",",
    ":",
    " ",
    "é",
    "日本",
    "\u2028",
)
#: Control characters (allowed where the text is not drawn: directories, option values).
CONTROLS = ("\n", "\t", "\r", "\x1f", "\x1b", "\x7f", "\x01")


def settings_for(examples: int) -> settings:
    """Hypothesis settings for ``examples`` cases (times MYTTY_FUZZ_SCALE)."""
    return settings(
        max_examples=max(1, round(examples * SCALE)),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


def _joined(pieces: st.SearchStrategy[str], max_pieces: int) -> st.SearchStrategy[str]:
    return st.lists(pieces, min_size=1, max_size=max_pieces).map("".join)


def any_text(max_pieces: int = 12) -> st.SearchStrategy[str]:
    """Text of any Unicode scalars but NUL, rich in tmux syntax."""
    other = st.text(
        st.characters(exclude_categories=["Cs"], exclude_characters="\0"), min_size=1, max_size=4
    )
    return _joined(st.one_of(st.sampled_from(FRAGMENTS + CONTROLS), other), max_pieces)


#: Characters that take exactly one cell and that tmux draws as they are.
_DRAWABLE = st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.sampled_from("éßüñø")


def drawable_text(max_pieces: int = 10) -> st.SearchStrategy[str]:
    """Printable one-cell text with tmux syntax: what a label, note or message may hold."""
    pieces = st.one_of(
        st.sampled_from(
            tuple(f for f in FRAGMENTS if (f.isprintable() and f.isascii()) or f == "é")
        ),
        st.text(_DRAWABLE, min_size=1, max_size=4),
    )
    return _joined(pieces, max_pieces).filter(lambda t: t.strip() == t and t != "")


def directory_name(max_pieces: int = 10) -> st.SearchStrategy[str]:
    """A file name (no ``/``, no NUL, at most 255 bytes, not ``.`` or ``..``) rich in syntax."""
    return (
        any_text(max_pieces)
        .map(lambda t: t.replace("/", "_"))
        .filter(lambda t: t not in (".", "..") and 0 < len(t.encode()) <= 255)
    )
