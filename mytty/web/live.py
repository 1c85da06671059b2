"""Following the controller for every open page: one long poll, one board, many streams.

One task (:meth:`Live.run`) keeps one ``events`` long poll open on the control socket. When it
returns with records (an agent changed state, asked, answered, ended), or when a page's answer
asks for it (:meth:`Live.kick`), the board is read again (:meth:`Live.refresh`); a board that
differs from the last one gets a new version and wakes every page's stream, which renders it
and sends it as a server-sent event. While pages are open, a poll that times out
(:data:`REFRESH_S`) reads the board too: notes, token counts and closed panes change without
an event. Nothing polls in the page, and nothing reads the board while nobody looks.

When the controller goes away the board says so; the task retries each :data:`RETRY_S` and
starts from the new controller's cursor (a restarted controller's sequence starts again at 1).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from mytty.core.errors import MyttyError
from mytty.web import board as board_mod
from mytty.web.board import Board
from mytty.web.control import Controller, Snapshot

log = logging.getLogger("mytty.web")

#: How long one ``events`` poll waits before the board is read anyway (while pages are open).
REFRESH_S = 5.0
#: Between attempts to reach a controller that is not there.
RETRY_S = 1.0


class Live:
    def __init__(self, controller: Controller, *, refresh_s: float = REFRESH_S) -> None:
        self.controller = controller
        self.refresh_s = refresh_s
        self.snapshot = Snapshot()
        self.board = Board(problem="Reading the controller…")
        self.version = 0
        #: Open streams (pages); the board is read on timeouts only while there are some.
        self.watchers = 0
        #: Set when the server shuts down: every stream ends.
        self.closing = False
        self._changed = asyncio.Condition()
        self._kicked = asyncio.Event()
        self._ready = asyncio.Event()
        # One read at a time, so a read that started later never loses to an older one.
        self._reading = asyncio.Lock()

    async def wait_ready(self) -> None:
        """Until the first board was read (the first page load waits for it)."""
        await self._ready.wait()

    async def refresh(self) -> None:
        """Read the board now (a page load does too: a first load shows the present)."""
        async with self._reading:
            snapshot = await self.controller.snapshot()
            board = board_mod.build(snapshot)
            self.snapshot = snapshot
            self._ready.set()
            changed = board != self.board
            if changed:
                self.board = board
                self.version += 1
        if changed:
            await self.notify()

    async def notify(self) -> None:
        """Wake every stream (a new board, or a session ended and streams must look)."""
        async with self._changed:
            self._changed.notify_all()

    def kick(self) -> None:
        """Read the board now (after an answer: its card should go at once, everywhere)."""
        self._kicked.set()

    async def wait_change(self, seen: int, timeout: float) -> int:
        """Until the version passes ``seen``, a :meth:`notify`, or ``timeout``; the version."""
        async with self._changed:
            if self.version == seen:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), timeout)
        return self.version

    async def _cursor(self) -> int:
        reply = await self.controller.events(None, 0)
        return int(reply.get("latestSequence", 0))

    async def _controller_gone(self, exc: MyttyError) -> None:
        log.info("controller unavailable: %s: %s", exc.code.value, exc.message)
        await self.refresh()  # the board says why
        await asyncio.sleep(RETRY_S)

    async def run(self) -> None:
        """Follow the controller until cancelled; a bug in one round is logged, not fatal."""
        while True:
            try:
                await self._follow()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("following the controller failed; starting again")
                await asyncio.sleep(RETRY_S)

    async def _follow(self) -> None:
        cursor: int | None = None
        poll: asyncio.Task[dict[str, Any]] | None = None
        try:
            while True:
                if cursor is None:
                    try:
                        cursor = await self._cursor()
                    except MyttyError as exc:
                        await self._controller_gone(exc)
                        continue
                    await self.refresh()
                if poll is None:
                    poll = asyncio.ensure_future(self.controller.events(cursor, self.refresh_s))
                kicked = asyncio.ensure_future(self._kicked.wait())
                await asyncio.wait({poll, kicked}, return_when=asyncio.FIRST_COMPLETED)
                kicked.cancel()
                if poll.done():
                    done, poll = poll, None
                    try:
                        reply = done.result()
                    except MyttyError as exc:
                        cursor = None
                        await self._controller_gone(exc)
                        continue
                    cursor = int(reply.get("latestSequence", cursor))
                    if not reply.get("records") and not self.watchers and not self._kicked.is_set():
                        continue
                self._kicked.clear()
                await self.refresh()
        finally:
            if poll is not None:
                poll.cancel()
