"""The few lines the first pane of the ``mytty`` session prints the first time (``mytty up``).

Shown once per ``MYTTY_HOME``: the controller prints it in the session's first pane when it
creates the session and has not welcomed anyone from this home before. Pure: the caller gives
the popup key (``[tmux] popup_key``) and the paths.
"""

from __future__ import annotations


def welcome_text(*, popup_key: str, home: str) -> str:
    """The welcome, as plain lines (no escape sequences: it is printed with ``cat``)."""
    popup = (
        f"prefix {popup_key} opens the attention popup once `mytty tmux install` has run"
        if popup_key
        else "no popup key is set ([tmux] popup_key in config.toml)"
    )
    return f"""\
Welcome to mytty.

What runs: the mytty controller, watching this tmux server. Agents in its panes report
  to it through their hooks (`mytty integrations enable claude-code`, `... codex`).
  Home, log and config.toml: {home}
Spawn a worker (from an agent or from here):
  mytty-ctl agent spawn --provider claude --task "Write tests for the parser" --label tests
See what needs you:
  mytty attention          mytty ls          {popup}
Is everything set up?  mytty doctor        Notifications: mytty notify test
Detach: your tmux prefix, then d (C-b d). `mytty up` brings you back to this session.

"""
