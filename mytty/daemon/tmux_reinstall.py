"""``mytty tmux install`` on a new tmux server: the segments and popup key follow the user.

``mytty tmux install`` changes the running tmux server only (its options, a key binding), so a
server that is replaced (``tmux kill-server``, a reboot, ``mytty up`` starting one) would come
up without them. The install records what it did in ``$MYTTY_HOME/tmux-install.json``
(``uninstall`` removes the record); whenever the controller connects to a server, it runs the
same install there. Install is idempotent, so a server that has it already is left as it is.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys

from mytty.daemon.home import Home
from mytty.tmux.bootstrap import tmux_binary
from mytty.tmux.user_formats import TmuxCli, TmuxCliError, install

log = logging.getLogger(__name__)


def _recorded(home: Home) -> dict[str, object] | None:
    try:
        data = json.loads(home.tmux_install_record.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def reinstall(home: Home, socket_path: str) -> list[str]:
    """Run the recorded install on the server at ``socket_path``; what it changed (blocking)."""
    chosen = _recorded(home)
    if chosen is None:
        return []
    key = chosen.get("key")
    changes = install(
        TmuxCli(socket_path, tmux_binary()),
        border=chosen.get("border") is True,
        status=chosen.get("status") is True,
        key=key if isinstance(key, str) and key else None,
        python=sys.executable,
        home=str(home.root),
        borders=chosen.get("borders") is True,
    )
    return [change.what for change in changes if change.done]


async def reinstall_soon(home: Home, socket_path: str) -> None:
    """:func:`reinstall` in a thread, logging what it did (a failure is a warning only)."""
    try:
        done = await asyncio.to_thread(reinstall, home, socket_path)
    except (TmuxCliError, OSError) as exc:
        log.warning("could not install mytty's tmux segments on %s again: %s", socket_path, exc)
        return
    if done:
        log.info("installed mytty's tmux segments on %s again: %s", socket_path, ", ".join(done))
