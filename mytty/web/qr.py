"""The pairing link as a QR code a phone's camera reads off the terminal (segno).

Drawn with Unicode half blocks, two modules per character cell, dark on light with the quiet
zone the standard asks for, so it scans on dark and light terminal themes alike.
"""

from __future__ import annotations

import io


def terminal_qr(text: str) -> str:
    """``text`` as a QR code in half-block characters (one line per two module rows)."""
    import segno

    code = segno.make(text, error="m", micro=False)
    out = io.StringIO()
    code.terminal(out=out, compact=True)
    return out.getvalue().rstrip("\n")
