"""What a queued worker's pane runs until the worker is admitted (pure).

A queued job gets its pane at once (``mytty ls``, ``@mytty_state`` and the lead's ``paneID``
show it), but its agent must not start. The pane's shell runs this line instead: it says the
worker is queued and why, then waits without using any CPU. When the worker is admitted the
controller replaces the pane's process with the worker's launch (tmux ``respawn-pane``), so
nothing is typed and nothing the user typed meanwhile reaches the agent.
"""

from __future__ import annotations

from mytty.core.quoting import shell_line

#: GNU and busybox ``sleep`` take this; the pane's process is replaced long before.
_FOREVER_S = "2147483647"


def queued_command(job_id: str, position: int, reason: str, detail: str) -> str:
    """The shell text of a queued worker's pane (sh, bash, zsh and fish read it alike)."""
    lines = (
        f"mytty: worker {job_id[:8]} is queued (#{position}): {reason}",
        f"  {detail}",
        "  It starts here by itself once admitted ([admission] in config.toml);",
        f"  `mytty-ctl agent close {job_id}` cancels it.",
    )
    printf = shell_line(["printf", "%s\\n", *lines])
    return f"command {printf}; command sleep {_FOREVER_S}"
