"""Text an agent wrote, made safe to print on a person's terminal."""

from __future__ import annotations

#: Terminal control characters: C0 except tab and newline, DEL, and C1 (which some terminals
#: take as 8-bit escape sequences even inside UTF-8).
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0))}


def printable(text: str) -> str:
    """``text`` with every terminal control character shown as ``\\xNN``: what an agent
    wrote stays readable and can never move the cursor or talk to the terminal (a title
    change, a clipboard write, a cleared screen).

    >>> printable("ok\\x1b]52;c;cHdu\\x07 done")
    'ok\\\\x1b]52;c;cHdu\\\\x07 done'
    """
    return text.translate(_CONTROLS)
