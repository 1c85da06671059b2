"""The controller's connection to its tmux server: connect, hooks, reconnect, notifications.

The controller attaches one control-mode client to its private session. Pane changes outside
that session reach it only through tmux hooks (:mod:`mytty.tmux.hooks`), which this module
installs (and which the private session's keepalive removes when the controller dies). When the connection drops the
supervisor reconnects. Whether the server's panes went with it is decided by the server's
identity (pid + start time, never the pid alone): when no server with the same identity
answers on the socket any more, every known pane is gone at once, not when a new server
appears (issue 15 #4: until then a dead pane's capability was still accepted).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from mytty.core.errors import ErrorCode, MyttyError
from mytty.tmux import bootstrap, hooks
from mytty.tmux.control_client import TmuxConnectionLost
from mytty.tmux.control_port import ControlModePort, connect
from mytty.tmux.port import PRIVATE_SESSION, TmuxPort

log = logging.getLogger(__name__)


class TmuxLinkListener(Protocol):
    """What the rest of the controller hears about the connection."""

    async def tmux_server_gone(self) -> None:
        """The server the panes belonged to is gone (dead, or replaced by another)."""

    async def tmux_connected(self, *, had_user_session: bool) -> None:
        """The port is usable (hooks and environment are installed)."""

    def tmux_lost(self) -> None:
        """The connection dropped; the port is gone until the supervisor reconnects."""


class TmuxLink:
    """Owns the control client and the :class:`TmuxPort` over it (None while disconnected)."""

    def __init__(self, socket: str, *, global_env: Mapping[str, str]) -> None:
        self.socket = socket
        self._global_env = dict(global_env)
        #: The usable port; None while disconnected.
        self._port: ControlModePort | None = None
        #: The latest connection, usable or not (closed at shutdown).
        self._conn: ControlModePort | None = None
        #: The identity of the server the known panes belong to ("" when none).
        self._server = ""
        self._dirty = asyncio.Event()

    @property
    def port(self) -> TmuxPort | None:
        return self._port

    def require_port(self) -> TmuxPort:
        if self._port is None:
            raise MyttyError(
                ErrorCode.TMUX_UNAVAILABLE,
                f"the tmux server at {self.socket} is not reachable; mytty keeps retrying",
            )
        return self._port

    async def connect(self, listener: TmuxLinkListener, *, first: bool) -> None:
        if first:
            await asyncio.to_thread(bootstrap.check_version)
        elif not await asyncio.to_thread(bootstrap.server_alive, self.socket):
            # Only the first connection may start a server: a server the user killed stays
            # dead until somebody starts a new one on the socket.
            raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, f"no tmux server on {self.socket}")
        had_user_session = await asyncio.to_thread(
            bootstrap.user_session_exists, self.socket, PRIVATE_SESSION
        )
        await asyncio.to_thread(
            bootstrap.ensure_private_session,
            self.socket,
            PRIVATE_SESSION,
            # The private session lives exactly as long as this process (see keepalive_command).
            hooks.keepalive_command(bootstrap.tmux_argv(self.socket)),
            fresh=first,
        )
        port = await connect(self.socket, PRIVATE_SESSION, self._on_notification)
        server = await port.server_identity()
        if self._server and server != self._server:
            log.info("tmux server changed (%s → %s): forgetting old panes", self._server, server)
            self._server = ""
            await listener.tmux_server_gone()
        self._server = server
        self._conn = self._port = port
        await port.watch_hooks(hooks.PANE_HOOKS, hooks.HOOK_INDEX)
        for name, value in self._global_env.items():
            await port.set_global_env(name, value)
        await listener.tmux_connected(had_user_session=had_user_session)

    async def supervise(self, listener: TmuxLinkListener) -> None:
        """Reconnect whenever the control connection drops (runs forever)."""
        delay = 0.2
        while True:
            assert self._conn is not None
            await self._conn.wait_closed()
            log.warning("lost the tmux control connection; reconnecting")
            self._port = None
            listener.tmux_lost()
            await self._check_server(listener)
            while True:
                try:
                    await self.connect(listener, first=False)
                    delay = 0.2
                    break
                except (MyttyError, TmuxConnectionLost, OSError) as exc:
                    log.warning("tmux reconnect failed: %s", exc)
                    # Waiting for a tmux server to come back has no event to wait on.
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)

    async def _check_server(self, listener: TmuxLinkListener) -> None:
        """Forget the panes now if their server is gone, not when a new one appears."""
        now = await asyncio.to_thread(bootstrap.server_identity, self.socket)
        if self._server and now is not None and now != self._server:
            log.warning(
                "the tmux server %s is gone%s: its panes are gone",
                self._server,
                f" ({now} answers now)" if now else "",
            )
            self._server = ""
            await listener.tmux_server_gone()

    def _on_notification(self, kind: str, rest: str) -> None:
        if hooks.is_pane_change(kind):
            self._dirty.set()

    async def reconcile_forever(self, refresh: Callable[[], Awaitable[object]]) -> None:
        """Call ``refresh`` after every notification that may mean the pane set changed."""
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            try:
                await refresh()
            except MyttyError as exc:
                log.debug("pane refresh failed: %s", exc.message)

    async def close(self) -> None:
        """Remove what the controller installed in tmux, end its session, drop the client."""
        port = self._port
        if port is not None:
            try:
                await port.unwatch_hooks(hooks.PANE_HOOKS, hooks.HOOK_INDEX)
                for name in self._global_env:
                    await port.unset_global_env(name)
                await port.kill_session(PRIVATE_SESSION)
            except MyttyError:
                pass
        if self._conn is not None:
            await self._conn.close()
