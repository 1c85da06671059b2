"""Text made safe for the page, and the page's shell.

Every text that comes from an agent or a person (pane text, labels, notes, messages, commands,
paths, session names) goes through :func:`esc`: the terminal controls an agent wrote are shown
as ``\\xNN`` (:func:`mytty.core.terminal_text.printable`, as on the terminal), the characters
that reorder text on screen (bidirectional overrides and isolates) as ``\\u202e``-style
escapes, so a command on an approval card reads as it will run, and then HTML's five special
characters are escaped. Nothing from an agent is ever placed in a tag, an attribute name, a
URL scheme, a script or a style: ids in attributes and paths go through :func:`attr` and
:func:`path_part`. The page has no inline script or style, so the Content-Security-Policy can
forbid both (``script-src 'self'``).
"""

from __future__ import annotations

import hashlib
import html
import re
from urllib.parse import quote

from mytty.core.terminal_text import printable

#: Characters that change the order or direction text is drawn in (Unicode's bidi controls)
#: and the invisible ones that hide in commands: shown as escapes, never applied.
_INVISIBLE = {
    c: f"\\u{c:04x}"
    for c in (0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2060, 0xFEFF,
              *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}  # fmt: skip


def shown(text: str) -> str:
    """``text`` with terminal controls and bidi/invisible characters shown as escapes."""
    return printable(text).translate(_INVISIBLE)


def esc(text: object) -> str:
    """``text`` as HTML text or a quoted attribute value (see the module docstring)."""
    return html.escape(shown(str(text)), quote=True)


def attr(text: str) -> str:
    """An id made of letters, digits and hyphens only (for ``id`` attributes)."""
    return re.sub(r"[^A-Za-z0-9-]", "", text)


def path_part(text: str) -> str:
    """One URL path segment."""
    return quote(text, safe="")


def fingerprint(*values: object) -> str:
    """A short digest of ``values`` (a card's ``data-v``: equal cards keep their DOM node)."""
    return hashlib.sha1(repr(values).encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
#: Sent with every response.
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    "Cache-Control": "no-store",
}


def page(
    title: str, body: str, *, csrf: str | None = None, view: str | None = None, head: str = ""
) -> str:
    """A whole HTML page around ``body`` (already escaped HTML). ``view`` names the live view
    the page's script follows (``home``, ``job:<id>``…); without it the page is static.
    ``head``: more markup for ``<head>`` (made here, never from an agent's text)."""
    meta = f'<meta name="csrf-token" content="{esc(csrf)}">' if csrf else ""
    live = f' data-view="{esc(view)}"' if view else ""
    status = (
        '<p id="connection" class="connection" role="status" hidden></p>'
        '<form class="signout" method="post" action="/signout" data-async data-then="reload">'
        '<button type="submit">Sign out</button></form>'
        if view
        else ""
    )
    # Only pages of a session load the script (and the stylesheet: both need the cookie).
    script = '<script src="/static/app.js" defer></script>' if view else ""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        f"<title>{esc(title)}</title>{meta}{head}"
        '<link rel="stylesheet" href="/static/app.css">'
        f"{script}</head>\n"
        f'<body><header class="top"><a class="brand" href="/">mytty</a>{status}</header>\n'
        f'<main id="live"{live}>{body}</main>\n</body></html>\n'
    )


def message_page(title: str, message: str) -> str:
    """A page that only says something (no script needed, none allowed to do anything)."""
    return page(
        title, f'<section class="message"><h1>{esc(title)}</h1><p>{esc(message)}</p></section>'
    )
