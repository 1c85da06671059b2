"""What a worker's pane shows while its job waits for the first run: the agent's own words
after it exited, and a sign-in screen.

A worker that cannot start (offline, not signed in) reports nothing through its hooks, so the
job would wait out its launch window and then guess at the cause. The pane says what went
wrong in the agent's own words: :func:`last_words` picks them from a capture (the lines above
the shell's prompt, the error lines first), and :func:`sign_in_line` recognises the screens at
which an agent waits for a human to sign in. Both are pure: the caller captures the pane.
"""

from __future__ import annotations

import re

from mytty.core.events import WorkerProvider

#: What an agent's message is cut to (a job's message is shown in one line).
MAX_WORDS = 300
#: How many of the last non-empty lines above the prompt are looked at.
TAIL_LINES = 8

_ERRORISH = re.compile(
    r"error|fail|unable|cannot|can't|could not|not found|denied|invalid|refused|"
    r"not logged in|ENOTFOUND|ECONN|EACCES|ETIMEDOUT",
    re.IGNORECASE,
)

#: Text an agent shows while it waits for a human to sign in (seen on the pinned real CLIs:
#: Claude Code 2.1.332 answers a prompt with "Not logged in · Please run /login"; Codex 0.171
#: opens with "Sign in with ChatGPT").
SIGN_IN_MARKERS: dict[WorkerProvider, tuple[str, ...]] = {
    WorkerProvider.CLAUDE: ("Please run /login", "Select login method"),
    WorkerProvider.CODEX: ("Sign in with ChatGPT", "Sign in with Device Code"),
    WorkerProvider.CURSOR: ("cursor-agent login", "Press any key to sign in"),
}


#: Providers that keep the task while they wait at the sign-in screen (Codex asks first and
#: runs the prompt once signed in): such a job needs a human (``waiting-input``). Claude Code
#: answers the prompt itself with "Please run /login", so the task is gone: ``launch-failed``.
SIGN_IN_KEEPS_TASK: frozenset[WorkerProvider] = frozenset(
    {WorkerProvider.CODEX, WorkerProvider.CURSOR}
)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_WORDS else text[: MAX_WORDS - 1] + "…"


def last_words(text: str, cursor_row: int | None) -> str | None:
    """The agent's last words above the shell prompt it left: its error lines (up to three)
    when there are any among the last lines, else its last line; None when it printed nothing.

    ``cursor_row`` is the line of ``text`` the cursor is on (the prompt), which is left out.
    """
    lines = text.splitlines()
    if cursor_row is not None:
        lines = lines[: max(0, cursor_row)]
    tail = [" ".join(line.split()) for line in lines if line.strip()][-TAIL_LINES:]
    if not tail:
        return None
    errors = [line for line in tail if _ERRORISH.search(line)]
    return _clip(" ".join(errors[-3:] if errors else tail[-1:]))


#: A sign-in screen counts while it is on the screen, not in the scrollback: its last lines.
SCREEN_LINES = 30


def sign_in_line(provider: WorkerProvider, text: str) -> str | None:
    """The line of the screen (the last :data:`SCREEN_LINES` lines of a capture ``text``) that
    shows ``provider`` waiting for a sign-in, if any."""
    markers = SIGN_IN_MARKERS.get(provider, ())
    for line in text.splitlines()[-SCREEN_LINES:]:
        if any(marker in line for marker in markers):
            return _clip(" ".join(line.split()))
    return None
