"""Going to a pane of another host from this one: the tmux command line that host runs to
attach at the pane (it travels in ``ssh -t HOST …``), and the local window that runs it.

The jump from the attention popup to another host's item opens a window here running
``ssh -t HOST tmux [-S SOCKET] attach-session -t SESSION:WINDOW.PANE``, so the human lands in
that pane of that host's tmux; detaching (prefix d, there) closes the window.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from mytty.tmux.user_formats import TmuxCli, jump


def attach_words(location: str | None, socket: str | None, tmux: str = "tmux") -> list[str]:
    """The argv, on the other host, that attaches its tmux at ``location`` (``session:window.pane``
    as that host's tmux names it; None: the session tmux would pick). ``attach-session -t``
    with a window and pane also makes them the current ones."""
    words = [tmux, *(["-S", socket] if socket else []), "attach-session"]
    return [*words, "-t", location] if location else words


def open_window(cli: TmuxCli, client: str | None, name: str, argv: Sequence[str]) -> None:
    """A new window here, named ``name``, running ``argv``; ``client`` is taken to it."""
    command = " ".join(shlex.quote(word) for word in argv)
    out = cli.run("new-window", "-P", "-F", "#{pane_id}", "-n", name, command)
    jump(cli, client, out.stdout.strip())
