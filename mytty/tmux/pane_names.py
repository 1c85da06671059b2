"""tmux's own names for a pane, wherever a command takes a pane id.

``mytty ls``, ``mytty attention`` and tmux itself name a pane ``mytty:1.0``
(``session:window.pane``) or ``%3``; a user copies those. A command that takes a pane id takes
them too, read as tmux reads a target pane: ``%N`` is that pane, ``@N`` (a window) and
``session:window`` the window's active pane, ``$N`` (a session) the active pane of its active
window, and ``session:window.pane`` the pane with that index (the window by index, else by
name). Only text that looks like a tmux name is read this way (``%``, ``@`` or ``$`` first, or a
``:``): a surface id or its prefix never does. The rule is pure: the caller hands in the
panes it knows, each with its last ``list-panes`` row.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

from mytty.tmux.port import PaneRow


class _Listed(Protocol):
    @property
    def row(self) -> PaneRow | None: ...


P = TypeVar("P", bound=_Listed)

#: What the failure message lists as accepted.
FORMS = "%N, session:window.pane, @N or $N"


def is_tmux_name(text: str) -> bool:
    """Whether ``text`` is written as a tmux target rather than a mytty id."""
    text = text.strip()
    return text[:1] in ("%", "@", "$") or ":" in text


def find(text: str, panes: Iterable[P]) -> P | None:
    """The pane of ``panes`` that tmux's name ``text`` names, or None."""
    text = text.strip()
    listed = [(p.row, p) for p in panes if p.row is not None]
    if text.startswith("%"):
        return next((p for row, p in listed if row.pane_id == text), None)
    if text.startswith("@"):
        return _active([(row, p) for row, p in listed if row.window_id == text])
    if text.startswith("$") and ":" not in text:
        return _active(
            [(row, p) for row, p in listed if row.session_id == text and row.window_active]
        )
    session, colon, rest = text.partition(":")
    if not colon or not session or not rest:
        return None
    in_session = [(row, p) for row, p in listed if session in (row.session_name, row.session_id)]
    window, dot, index = rest.rpartition(".")
    if dot and window and index.isdigit():
        return next(
            (p for row, p in _in_window(in_session, window) if row.pane_index == int(index)), None
        )
    return _active(_in_window(in_session, rest))


def _in_window(rows: list[tuple[PaneRow, P]], window: str) -> list[tuple[PaneRow, P]]:
    by_index = [(r, p) for r, p in rows if window.isdigit() and r.window_index == int(window)]
    return by_index or [(r, p) for r, p in rows if window in (r.window_name, r.window_id)]


def _active(rows: list[tuple[PaneRow, P]]) -> P | None:
    if not rows:
        return None
    active = [p for row, p in rows if row.pane_active]
    return active[0] if active else min(rows, key=lambda rp: rp[0].pane_index)[1]
