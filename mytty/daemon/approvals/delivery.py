"""An answer after the hold: typed into the agent's own dialog, and only into *that* dialog.

Under the pane's input lock (nothing else types into the pane meanwhile): the screen is
captured and must show this request's dialog (:func:`mytty.core.approvals.dialog.find_dialog`),
else nothing is typed (``approval-not-on-screen``). Then the plan's keys go in one by one; a
step that expects something on the screen (Claude's amend field after Tab) waits for it, and in
the end the dialog must be gone (the agent took the answer), else ``approval-delivery-failed``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from mytty.control.ports import PaneView
from mytty.core.approvals.dialog import DialogView, Step, find_dialog, key_plan, shows
from mytty.core.approvals.model import ApprovalRequest, Decision
from mytty.core.errors import ErrorCode, MyttyError
from mytty.tmux.port import TmuxPort

#: How long a step may wait for what it expects on the screen, and the dialog to go.
STEP_TIMEOUT_S = 3.0
SETTLE_TIMEOUT_S = 5.0
POLL_S = 0.05
#: The screen is the capture's last lines: at least this many (tmux's joined lines can be fewer
#: than the pane's rows), or the pane's height.
MIN_SCREEN_LINES = 60


async def screen(port: TmuxPort, pane: PaneView) -> list[str]:
    """The pane's visible lines (the newest of its capture)."""
    capture = await port.capture(pane.tmux_id)
    lines = capture.text.split("\n")
    height = pane.row.height if pane.row is not None else 0
    return lines[-max(MIN_SCREEN_LINES, height) :]


def not_on_screen(request: ApprovalRequest, why: str) -> MyttyError:
    return MyttyError(
        ErrorCode.APPROVAL_NOT_ON_SCREEN,
        f"request {request.id[:8]}: {why}; nothing was typed and the request stays open "
        "(answer in the pane, or again once its dialog shows)",
    )


async def find_on_screen(port: TmuxPort, pane: PaneView, request: ApprovalRequest) -> DialogView:
    """The request's dialog as the pane shows it now; ``approval-not-on-screen`` otherwise."""
    view = find_dialog(request.provider, await screen(port, pane), request.action)
    if view is None:
        raise not_on_screen(request, "the pane does not show this request's dialog")
    return view


async def _wait_for(probe: Callable[[], Awaitable[bool]], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if await probe():
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_S)


async def type_answer(
    port: TmuxPort,
    pane: PaneView,
    request: ApprovalRequest,
    view: DialogView,
    decision: Decision,
    message: str | None,
) -> None:
    """Press the plan's keys; raises ``approval-delivery-failed`` when the dialog did not take
    them (the plan itself is checked by the caller first: :func:`plan`)."""
    for step in key_plan(view, decision, message):
        await _do(port, pane, request, step)

    async def gone() -> bool:
        return find_dialog(request.provider, await screen(port, pane), request.action) is None

    if not await _wait_for(gone, SETTLE_TIMEOUT_S):
        raise MyttyError(
            ErrorCode.APPROVAL_DELIVERY_FAILED,
            f"request {request.id[:8]}: the keys were typed but its dialog is still on the "
            "screen; look at the pane (the request stays open)",
        )


async def _do(port: TmuxPort, pane: PaneView, request: ApprovalRequest, step: Step) -> None:
    if step.key is not None:
        await port.send_key(pane.tmux_id, step.key)
    elif step.text is not None:
        await port.send_text(pane.tmux_id, step.text)
    elif step.expect is not None:
        needle = step.expect

        async def seen() -> bool:
            return shows(await screen(port, pane), needle)

        if not await _wait_for(seen, STEP_TIMEOUT_S):
            raise MyttyError(
                ErrorCode.APPROVAL_DELIVERY_FAILED,
                f"request {request.id[:8]}: the dialog did not show {needle!r} after the keys "
                "so far; look at the pane (the request stays open)",
            )
