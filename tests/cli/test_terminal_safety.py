"""What agents write never talks to a person's terminal, and mytty-ctl's reply stays one line."""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from rich.table import Table
from rich.text import Text

from mytty.cli import client, popup
from mytty.core.terminal_text import printable

from .conftest import FakeController, ctl_env, run_ctl

CONTROLS = [chr(c) for c in (*range(0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0))]
HOSTILE = "job\x1b]52;c;cHduZWQ=\x07 \x1b[2J\x1b]0;title\x07\x9b31m\r done"


@given(st.text())
def test_printable_leaves_no_control_character_and_keeps_the_rest(text: str) -> None:
    shown = printable(text)
    assert not any(c in shown for c in CONTROLS)
    assert printable(shown) == shown  # nothing left to escape
    if not any(c in text for c in CONTROLS):
        assert shown == text


def test_printable_shows_what_was_there() -> None:
    assert printable("a\x1b[31mb\x9b") == "a\\x1b[31mb\\x9b"
    assert printable("tab\tand\nnewline") == "tab\tand\nnewline"


def _rendered(*renderables: object) -> str:
    # Styles on: rich's own escapes must still pass.
    buffer = io.StringIO()
    console = client.console(buffer, force_terminal=True)
    for renderable in renderables:
        console.print(renderable)
    return buffer.getvalue()


def test_the_console_prints_hostile_text_inert_in_tables_and_text() -> None:
    table = Table()
    table.add_column("label", style="bold")
    table.add_row(HOSTILE)
    out = _rendered(table, Text(HOSTILE, style="red"), HOSTILE)
    for sequence in ("\x1b]52", "\x1b]0;", "\x1b[2J", "\x9b", "\x07", "\r"):
        assert sequence not in out
    assert out.count("\\x1b]52;c;cHduZWQ=") == 3  # shown (rich itself drops the bell)
    assert "\x1b[" in out  # the table's own styles are still drawn


def test_the_popup_rows_are_inert() -> None:
    item = {
        "kind": "approval-request",
        "label": HOSTILE,
        "location": "s:1.0",
        "provider": "claude\x1b[8m",
        "createdAt": "2026-12-01T00:00:00Z",
        "message": HOSTILE,
    }
    for cell in popup.rows([item], 0.0)[0]:
        assert not any(c in cell for c in CONTROLS), cell


def test_mytty_ctl_escapes_line_separators_so_the_reply_is_one_line(tmp_path: Path) -> None:
    note = "first\u2028second\u2029third"
    reply = json.dumps({"type": "list", "panes": [{"statusNote": note}]}, ensure_ascii=False)
    fake = FakeController(tmp_path, lambda _body: reply.encode() + b"\n")
    try:
        ran = run_ctl("list", env=ctl_env(fake.path))
    finally:
        fake.close()
    assert ran.returncode == 0, ran.stderr
    assert len(ran.stdout.splitlines()) == 1
    assert json.loads(ran.stdout)["panes"][0]["statusNote"] == note
