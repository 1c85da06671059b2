"""The tmux hooks that tell the controller about pane changes in every session.

Control mode reports window and session changes everywhere by itself, but pane changes only
inside the control client's own session. So the controller sets global hooks (at one fixed
array index, so it never touches a user's own hooks) that rename the control client's private
window to ``mytty-<hook>``: control mode reports that rename (``%window-renamed``) whoever
triggered the hook, and pane text cannot fake it. A hook cannot print to one particular client
instead: ``display-message -p`` goes to the client that ran the triggering command.

Rename hooks are left out on purpose: the hook command renames our private window, and a
rename hook would fire again on that.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

PANE_HOOKS: tuple[str, ...] = (
    "after-split-window",
    "after-new-window",
    "after-new-session",
    "after-kill-pane",
    "pane-exited",
    "pane-died",
    "window-linked",
    "window-unlinked",
    "session-closed",
)
#: The hook array index the controller owns.
HOOK_INDEX = 4242

#: Control-mode notifications that may mean the pane set changed.
RECONCILE_NOTIFICATIONS = frozenset(
    {
        "%window-add",
        "%window-close",
        "%unlinked-window-add",
        "%unlinked-window-close",
        "%sessions-changed",
        "%window-renamed",
        "%unlinked-window-renamed",
        "%session-renamed",
        "%layout-change",
        "%window-pane-changed",
        "%session-window-changed",
    }
)


def is_pane_change(notification: str) -> bool:
    """True when the control-mode notification ``notification`` may mean panes changed."""
    return notification in RECONCILE_NOTIFICATIONS


def hook_slot(hook: str, index: int = HOOK_INDEX) -> str:
    return f"{hook}[{index}]"


def rename_command(window_id: str, hook: str) -> str:
    """The command a hook runs: rename the control client's window after the hook."""
    return f"rename-window -t {window_id} 'mytty-{hook}'"


def keepalive_command(
    tmux_argv: Sequence[str], hooks: Sequence[str] = PANE_HOOKS, pid: int | None = None
) -> str:
    """The shell command of the private session's only pane.

    It waits for the controller (``pid``, default this process) to exit, even by kill -9, and
    then removes the controller's hooks, so tmux never runs stale ones.
    """
    tmux = shlex.join(tmux_argv)
    unset = " \\; ".join(f"set-hook -gu '{hook_slot(h)}'" for h in hooks)
    watched = os.getpid() if pid is None else pid
    return f"tail --pid={watched} -f /dev/null 2>/dev/null; exec {tmux} {unset}"
