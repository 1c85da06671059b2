"""The welcome of a fresh ``MYTTY_HOME``: written once, printed by the ``mytty`` session's first pane.

``welcome_command`` is asked when the controller creates the ``mytty`` session. The first time
for this home it writes the text (:func:`mytty.core.welcome.welcome_text`) to ``welcome.txt``
and a ``welcomed`` marker, and returns the shell command that prints it; after that, None.
"""

from __future__ import annotations

import logging
import os

from mytty.core.quoting import shell_quote
from mytty.core.welcome import welcome_text
from mytty.daemon.home import Home

log = logging.getLogger(__name__)

WELCOME_FILE = "welcome.txt"
WELCOMED_MARKER = "welcomed"


def welcome_command(home: Home, popup_key: str) -> str | None:
    marker = home.root / WELCOMED_MARKER
    if marker.exists():
        return None
    path = home.root / WELCOME_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(welcome_text(popup_key=popup_key, home=str(home.root)))
        marker.touch(mode=0o600)
    except OSError as exc:  # no welcome is no failure
        log.warning("could not write the welcome: %s", exc)
        return None
    return f"cat -- {shell_quote(str(path))}"
