"""The pairing QR code: the half-block drawing holds exactly the QR symbol of the link (with
its quiet zone), so a phone's camera reads the link off the terminal."""

from __future__ import annotations

import segno

from mytty.web.qr import terminal_qr
from mytty.web.server import pairing_text

LINK = "http://127.0.0.1:8765/pair/Hq3Yd0m6XbB8s2Q1cZtJrA"
#: Each character cell is two module rows: (upper drawn, lower drawn).
CELLS = {"█": (True, True), "▀": (True, False), "▄": (False, True), " ": (False, False)}


def drawn(text: str) -> list[list[bool]]:
    """The module rows the characters draw (True: drawn in the terminal's foreground)."""
    rows: list[list[bool]] = []
    for line in text.splitlines():
        cells = [CELLS[ch] for ch in line]
        rows.append([upper for upper, _ in cells])
        rows.append([lower for _, lower in cells])
    return rows


def test_the_drawing_is_the_links_qr_symbol_with_its_quiet_zone() -> None:
    symbol = [[bool(v) for v in row] for row in segno.make(LINK, error="m").matrix_iter(border=4)]
    rows = drawn(terminal_qr(LINK))[: len(symbol)]  # an odd count leaves half a cell spare
    assert len(rows) == len(symbol) and all(len(r) == len(symbol[0]) for r in rows)
    # Light modules are drawn (blocks), dark ones left blank, or the other way round, the same
    # way everywhere: the quiet zone is light, so its colour tells which.
    light = rows[0][0]
    assert [[cell != light for cell in row] for row in rows] == symbol
    assert all(cell == light for cell in rows[0] + rows[-1])


def test_the_qr_code_only_on_a_terminal() -> None:
    shown = pairing_text("http://127.0.0.1:8765", "Hq3Yd0m6XbB8s2Q1cZtJrA", terminal=True)
    piped = pairing_text("http://127.0.0.1:8765", "Hq3Yd0m6XbB8s2Q1cZtJrA", terminal=False)
    assert piped.splitlines() == [piped.splitlines()[0], LINK]
    assert shown.startswith(piped) and terminal_qr(LINK) in shown
