"""Typing into a parked worker: Enter only once the screen shows the text (Codex 0.171.0 takes
an Enter within 120 ms of a typed burst as a newline), and dialogs closed before typing."""

from __future__ import annotations

import asyncio
import time

import pytest

from mytty.core.events import AgentProvider
from mytty.daemon.limits.continuation import (
    Dialog,
    DialogStuck,
    clear_dialogs,
    shows,
    type_and_submit,
)

PROMPT = (
    "Your usage limit has reset (mytty paused you while it was reached). Continue the task you "
    "were working on when the limit was reached; do not repeat work that is already done."
)
#: How Codex's input box wraps and indents it.
WRAPPED = (
    "\u203a Your usage limit has reset (mytty paused you while it was reached). Continue the task "
    "you were\n  working on when the limit was reached; do not repeat work that is already "
    "done.\n\n  gpt-mock default · ~/work"
)


def test_shows_reads_through_the_input_boxs_wrapping() -> None:
    assert shows(WRAPPED, PROMPT)
    assert not shows("\u203a Your usage limit has reset (mytty paused you", PROMPT)  # half of it
    assert not shows("", "hello")


class Terminal:
    """A pane whose screen shows typed text only after ``lag`` seconds (a loaded TUI)."""

    def __init__(self, lag: float) -> None:
        self.lag = lag
        self.typed_at: float | None = None
        self.events: list[tuple[str, float]] = []

    async def screen(self) -> str:
        if self.typed_at is not None and time.monotonic() - self.typed_at >= self.lag:
            return WRAPPED
        return "\u203a "

    async def type_text(self) -> None:
        self.typed_at = time.monotonic()
        self.events.append(("text", self.typed_at))

    async def press_enter(self) -> None:
        self.events.append(("enter", time.monotonic()))


def test_enter_waits_for_the_text_to_show_and_then_a_moment_more() -> None:
    term = Terminal(lag=0.3)
    shown = asyncio.run(
        type_and_submit(term.screen, term.type_text, term.press_enter, PROMPT, settle_s=0.15)
    )
    assert shown is True
    (_, typed), (kind, entered) = term.events
    assert kind == "enter"
    assert entered - typed >= 0.3 + 0.15  # after the echo, past the paste-burst window


def test_text_that_never_shows_is_still_submitted_after_the_wait() -> None:
    term = Terminal(lag=60)
    shown = asyncio.run(
        type_and_submit(
            term.screen, term.type_text, term.press_enter, PROMPT, echo_s=0.3, settle_s=0.0
        )
    )
    assert shown is False
    assert [kind for kind, _ in term.events] == ["text", "enter"]
    assert term.events[1][1] - term.events[0][1] >= 0.3


def test_a_dialog_is_closed_with_its_key_and_one_that_stays_is_stuck() -> None:
    codex_dialog = "Approaching rate limits\n  2. Keep current model\n"
    screens = [codex_dialog, "\u203a "]
    pressed: list[Dialog] = []

    async def screen() -> str:
        return screens.pop(0) if len(screens) > 1 else screens[0]

    async def press(dialog: Dialog) -> None:
        pressed.append(dialog)

    closed = asyncio.run(clear_dialogs(AgentProvider.CODEX, screen, press))
    assert closed == "switch model" and [(d.key, d.literal) for d in pressed] == [("2", True)]
    screens[:] = [codex_dialog]
    with pytest.raises(DialogStuck):
        asyncio.run(clear_dialogs(AgentProvider.CODEX, screen, press, close_s=0.2))
