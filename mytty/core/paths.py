"""Where mytty keeps its files: the ``MYTTY_HOME`` default and the names inside it.

The only place these are spelled. Stdlib-only and cheap, because ``mytty-ctl`` (on every call),
the hook helper and the controller all resolve the same paths. The environment comes in as an
argument; nothing here touches the file system.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

#: The controller's home when ``MYTTY_HOME`` is unset, relative to the user's home.
DEFAULT_HOME = os.path.join(".config", "mytty")

CONTROL_SOCKET = "control.sock"
EVENT_SOCKET = "events.sock"
STORE = "events.sqlite3"
LOG_FILE = "mytty.log"
LOCK_FILE = "controller.lock"
SECRET_FILE = "capability.key"
GUIDE_FILE = "mytty-ctl.md"
#: The user's settings (schema in ``mytty.core.config``); written with defaults on first start.
CONFIG_FILE = "config.toml"
LAUNCH_DIR = "launch"
#: Per-pane event files of shell integration. The shells find it as the directory of
#: ``MYTTY_EVENT_SOCKET`` + ``/shell`` (they have no other path to the home).
SHELL_EVENTS_DIR = "shell"
#: Hook events that found no controller, kept for the next one (``mytty.hook.spool``); the
#: hook finds it as the directory of ``MYTTY_EVENT_SOCKET`` + this name.
EVENT_SPOOL_DIR = "event-spool"
#: The name ending of a complete spooled event (one being written has a dot name).
EVENT_SPOOL_SUFFIX = ".event"
#: The tmux socket the running controller bound to (what `mytty up` restarts it onto).
TMUX_SOCKET_RECORD = "tmux-socket"
#: The worktrees ``agent spawn --worktree`` created (what ``mytty worktree gc`` may remove).
WORKTREE_RECORD = "worktrees.jsonl"
#: What ``mytty tmux install`` installed (the controller re-applies it to a new tmux server).
TMUX_INSTALL_RECORD = "tmux-install.json"

#: Set in every mytty pane; ``mytty-ctl`` prefers it to the home's socket.
CONTROL_SOCKET_VAR = "MYTTY_CONTROL_SOCKET"
HOME_VAR = "MYTTY_HOME"


def _expand(value: str, env: Mapping[str, str]) -> str:
    if value == "~" or value.startswith("~/"):
        value = user_home(env) + value[1:]
    return os.path.normpath(os.path.abspath(value))


def user_home(env: Mapping[str, str]) -> str:
    """``$HOME``, else the password database's idea of it."""
    return env.get("HOME") or os.path.expanduser("~")


def mytty_home(env: Mapping[str, str]) -> str:
    """``$MYTTY_HOME`` (``~`` expanded, made absolute), else ``~/.config/mytty``."""
    explicit = env.get(HOME_VAR)
    if explicit:
        return _expand(explicit, env)
    return os.path.join(_expand(user_home(env), env), DEFAULT_HOME)


def control_socket(env: Mapping[str, str]) -> str:
    """The socket ``mytty-ctl`` talks to: ``$MYTTY_CONTROL_SOCKET``, else the home's."""
    return env.get(CONTROL_SOCKET_VAR) or os.path.join(mytty_home(env), CONTROL_SOCKET)
