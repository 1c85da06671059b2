"""Asking the human at an attached tmux client a yes/no question.

Blocking UI commands must never go over the control connection (they stall its queue), so
this runs the tmux CLI as a subprocess; callers run it in a worker thread.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

from mytty.core.quoting import shell_quote
from mytty.tmux.literal import argument, drawn_text


def ask_yes_no(tmux_argv: list[str], client: str, title: str, body: str, timeout: float) -> bool:
    """Show ``body`` in a popup on ``client`` and wait for y/n. False on no, Escape, timeout.

    ``body`` travels in a file (never through tmux); ``title`` is format-expanded and drawn by
    tmux, so it is escaped for both.
    """
    with tempfile.NamedTemporaryFile("w", prefix="mytty-ask-", suffix=".txt", delete=False) as f:
        f.write(body)
        text_path = f.name
    script = (
        f"cat {shell_quote(text_path)}; printf '\\n[y] yes   [n] no\\n'; "
        "while IFS= read -rsn1 k; do case $k in y|Y) exit 0;; n|N|q|$'\\e') exit 1;; esac; done; exit 1"
    )
    argv = [
        *tmux_argv,
        "display-popup",
        "-c",
        argument(client),
        "-T",
        argument(drawn_text(title)),
        "-w",
        "80%",
        "-h",
        "60%",
        "-E",
        f"bash -c {shell_quote(script)}",
    ]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        return result.returncode == 0
    except subprocess.TimeoutExpired:
        subprocess.run(
            [*tmux_argv, "display-popup", "-C", "-c", client], capture_output=True, check=False
        )
        return False
    finally:
        try:
            os.unlink(text_path)
        except OSError:
            pass
