"""tmux's names for a pane, read as tmux reads a target pane (issue 26, item 5)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from mytty.core.ids import TmuxPaneId
from mytty.tmux.pane_names import find, is_tmux_name
from mytty.tmux.port import PaneRow


@dataclass
class P:
    name: str
    row: PaneRow | None


def row(
    pane: str, session: str, sid: str, window: int, wid: str, index: int, **kw: bool
) -> PaneRow:
    return PaneRow(
        pane_id=TmuxPaneId(pane),
        pane_pid=1,
        session_id=sid,
        session_name=session,
        window_id=wid,
        window_index=window,
        pane_index=index,
        window_active=kw.get("window_active", False),
        pane_active=kw.get("pane_active", False),
        dead=False,
        left=0,
        top=0,
        width=80,
        height=24,
        window_width=80,
        window_height=24,
        session_attached=0,
        surface="",
        current_command="bash",
        current_path="/",
        window_name="editor" if wid == "@2" else "shell",
    )


PANES = [
    P("a", row("%0", "mytty", "$0", 0, "@0", 0, window_active=False)),
    P("b", row("%1", "mytty", "$0", 0, "@0", 1, pane_active=True)),
    P("c", row("%2", "mytty", "$0", 1, "@2", 0, window_active=True, pane_active=False)),
    P("d", row("%3", "mytty", "$0", 1, "@2", 1, window_active=True, pane_active=True)),
    P("e", row("%4", "work", "$1", 3, "@5", 0, window_active=True, pane_active=True)),
    P("unlisted", None),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("%1", "b"),
        ("%4", "e"),
        (" %3 ", "d"),
        ("mytty:0.1", "b"),
        ("mytty:1.0", "c"),
        ("work:3.0", "e"),
        ("mytty:editor.0", "c"),
        ("mytty:0", "b"),  # the window's active pane
        ("@0", "b"),
        ("@2", "d"),
        ("$0", "d"),  # the active pane of the session's active window
        ("$1", "e"),
        ("$0:0.0", "a"),
        ("%9", None),
        ("mytty:0.7", None),
        ("nosuch:0.0", None),
        ("@9", None),
        ("$7", None),
        (":0.1", None),
    ],
)
def test_find(text: str, expected: str | None) -> None:
    found = find(text, PANES)
    assert (found.name if found else None) == expected


def test_only_tmux_shaped_text_is_read_as_a_tmux_name() -> None:
    for text in ("%1", "@1", "$1", "mytty:0.1", "work:2"):
        assert is_tmux_name(text)
    for text in ("04AA9DA1", "04aa9da1-f255-412d-808a-a53e2525db4f", "", "mytty"):
        assert not is_tmux_name(text)
