"""Continuing a parked worker in its live session, never typing blindly.

After a limit the pinned CLIs may hold a dialog that takes the keyboard (docs/dev/research/
limits.md §1.4, §2.3): Codex 0.171.0 opens "Approaching rate limits" / "Switch to … for lower
credit usage?" when a window is at 90 % or more, with *Switch* highlighted, so a blind Enter
changes the worker's model; Claude Code 2.1.332 with ``autoContinueAtUsageLimit: false``
opens "What do you want to do?". Before typing, mytty looks at the pane's screen; an open
dialog is closed with the key that chooses nothing new (Codex ``2``, "Keep current model";
Claude Esc), and only once the screen no longer shows it is the continuation typed. A dialog
that will not close leaves the worker parked (the caller holds it and says why). This reads the
screen only to find a dialog, and to see that typed text arrived before Enter
(:func:`type_and_submit`); whether the worker is limited is never read from it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from mytty.core.events import AgentProvider

#: How much of the bottom of the screen is looked at for a dialog.
SCREEN_LINES = 40
#: How long a dialog may take to close after its key, and how often the screen is looked at.
DIALOG_CLOSE_S = 3.0
DIALOG_POLL_S = 0.1
#: Codex 0.171.0's composer takes an Enter that comes within 120 ms after a burst of typed
#: characters as a newline inside a paste (its paste-burst guard), and the window starts when
#: the TUI reads the characters, which on a loaded machine is later than mytty typed them. So
#: Enter waits until the screen shows the text, then this long.
ENTER_AFTER_ECHO_S = 0.2
#: How long the typed text may take to show before Enter is pressed anyway.
ECHO_WAIT_S = 5.0
#: How much of the text's end is looked for on the screen.
ECHO_TAIL_CHARS = 40


@dataclass(frozen=True, slots=True)
class Dialog:
    """A dialog: every one of ``marks`` on screen; ``key`` closes it (``literal``: typed)."""

    name: str
    marks: tuple[str, ...]
    key: str
    literal: bool


DIALOGS: dict[AgentProvider, tuple[Dialog, ...]] = {
    AgentProvider.CODEX: (
        Dialog("switch model", ("Approaching rate limits", "Keep current model"), "2", True),
    ),
    AgentProvider.CLAUDE_CODE: (
        Dialog(
            "rate-limit options",
            ("What do you want to do?", "Stop and wait for limit to reset"),
            "Escape",
            False,
        ),
    ),
}


def open_dialog(provider: AgentProvider, screen: str) -> Dialog | None:
    """The provider's limit dialog the bottom of ``screen`` shows, if any."""
    bottom = "\n".join(screen.rstrip("\n").splitlines()[-SCREEN_LINES:])
    for dialog in DIALOGS.get(provider, ()):
        if all(mark in bottom for mark in dialog.marks):
            return dialog
    return None


class DialogStuck(Exception):
    """A limit dialog stayed open after its key: nothing was typed."""


async def clear_dialogs(
    provider: AgentProvider,
    screen: Callable[[], Awaitable[str]],
    press: Callable[[Dialog], Awaitable[None]],
    *,
    close_s: float = DIALOG_CLOSE_S,
) -> str | None:
    """Close the provider's limit dialog if the screen shows one; the dialog's name (None: none
    was open). Raises :class:`DialogStuck` when it does not close within ``close_s``."""
    dialog = open_dialog(provider, await screen())
    if dialog is None:
        return None
    await press(dialog)
    deadline = time.monotonic() + close_s
    while open_dialog(provider, await screen()) is not None:
        if time.monotonic() >= deadline:
            raise DialogStuck(f"the {dialog.name} dialog in the pane did not close")
        await asyncio.sleep(DIALOG_POLL_S)
    return dialog.name


def shows(screen: str, text: str) -> bool:
    """Does ``screen`` show the end of ``text``, whatever the input box's wrapping and
    indentation did to it?"""
    tail = " ".join(text.split())[-ECHO_TAIL_CHARS:]
    return tail in " ".join(screen.split())


async def type_and_submit(
    screen: Callable[[], Awaitable[str]],
    type_text: Callable[[], Awaitable[None]],
    press_enter: Callable[[], Awaitable[None]],
    text: str,
    *,
    echo_s: float = ECHO_WAIT_S,
    settle_s: float = ENTER_AFTER_ECHO_S,
) -> bool:
    """Type ``text``, wait until the screen shows it (at most ``echo_s``) and ``settle_s``
    more, then press Enter: a prompt that is submitted, not left in the input box with a
    newline. False when the text never showed (Enter was pressed all the same)."""
    await type_text()
    deadline = time.monotonic() + echo_s
    seen = shows(await screen(), text)
    while not seen and time.monotonic() < deadline:
        await asyncio.sleep(DIALOG_POLL_S)
        seen = shows(await screen(), text)
    await asyncio.sleep(settle_s)
    await press_enter()
    return seen
