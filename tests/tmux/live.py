"""A real tmux server with the controller's own port on it, usable from synchronous tests.

Hypothesis drives properties synchronously; the port is asyncio. :class:`LiveTmux` runs one
event loop in a thread of its own with one :class:`ControlModePort` (and its control client)
attached to a private session, so every example costs a round trip, not a new connection.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from mytty.tmux.control_client import ControlClient
from mytty.tmux.control_port import ControlModePort, connect
from tests.support.harness import Mytty

T = TypeVar("T")
SLEEP = "exec sleep 100000"


class LiveTmux:
    """``m``'s tmux server (sessions ``base`` and ``_ctl`` made here) and a port on it."""

    def __init__(self, m: Mytty) -> None:
        self.m = m
        m.tmux("-f", "/dev/null", "new-session", "-d", "-s", "base", "-x", "160", "-y", "40", SLEEP)
        m.tmux("new-session", "-d", "-s", "_ctl", "-x", "80", "-y", "24", SLEEP)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self.port: ControlModePort = self.run(connect(m.socket, "_ctl", lambda _k, _r: None))

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run ``coro`` on the port's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    @property
    def client(self) -> ControlClient:
        return self.port._client

    def command(self, line: str) -> list[str]:
        """One raw command line over the port's own connection (its output lines)."""
        return self.run(self.client.command(line))

    def close(self) -> None:
        try:
            self.run(self.port.close())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
            self._loop.close()
