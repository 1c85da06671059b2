"""The pane service: the live pane set, and creating, closing and describing panes.

It keeps the :class:`PaneRegistry` in step with tmux (``refresh_panes`` after every change
notification and every pane it creates), gives each pane it creates the pane environment
(event socket, surface id, capability), and answers questions about panes from tmux rows and
``/proc`` (foreground agent, working directory, caller identity).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from mytty.control.ports import PaneView
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.estimation import detect as agents_detect
from mytty.core.events import AgentProvider
from mytty.core.ids import SurfaceId, TmuxPaneId
from mytty.core.quoting import shell_quote
from mytty.daemon import procfs
from mytty.daemon.agents import AgentHub
from mytty.daemon.estimation.detect import AgentDetector, Detection
from mytty.daemon.estimation.shell_events import ShellEventWatcher
from mytty.daemon.home import Home
from mytty.daemon.panes.identity import Pane, PaneRegistry
from mytty.daemon.panes.sweep import sweep_gone_panes
from mytty.daemon.store import StoreError
from mytty.integrations.shell_files import integration_dir
from mytty.protocol import wire
from mytty.protocol.replies import PaneEntry
from mytty.tmux import bootstrap, pane_names
from mytty.tmux.port import SURFACE_OPTION, PaneRow, ScreenCapture, TmuxPort

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Described:
    """What ``command`` a pane was last given, and what was known when it was worked out."""

    pid: int
    tmux_command: str
    seen: Detection
    command: str


class PaneService:
    def __init__(
        self,
        *,
        home: Home,
        ctl_bin: str,
        panes: PaneRegistry,
        hub: AgentHub,
        require_port: Callable[[], TmuxPort],
        shell_events: ShellEventWatcher | None = None,
        detector: AgentDetector | None = None,
        first_command: Callable[[], str | None] | None = None,
        last_detection: Callable[[SurfaceId], Detection | None] | None = None,
    ) -> None:
        self._home = home
        self._ctl_bin = ctl_bin
        self.panes = panes
        self._hub = hub
        self._require_port = require_port
        self.shell_events = shell_events
        self._refresh_lock = asyncio.Lock()
        #: What the first pane of a new ``mytty`` session runs (see ensure_user_session).
        self.first_command = first_command
        self._pane_locks: dict[str, asyncio.Lock] = {}
        self._launcher = integration_dir() / "mytty-shell"
        #: The one foreground-agent detector (shared with native run estimation: one cache).
        self.detector = detector if detector is not None else AgentDetector()
        #: Told about every pane that leaves the pane set (native run estimation).
        self.pane_gone_listeners: list[Callable[[SurfaceId], None]] = []
        #: Run after every connection to a tmux server (a new one gets `mytty tmux install`).
        self.connected_listeners: list[Callable[[], Awaitable[None]]] = []
        #: The estimator's last detection per pane (None: every look at a pane's foreground
        #: reads ``/proc``).
        self.last_detection = last_detection
        self._described: dict[SurfaceId, _Described] = {}

    # -- the tmux connection's listener ---------------------------------------------------------
    async def tmux_server_gone(self) -> None:
        # Its panes are gone with it: capabilities revoked (only live panes authorize), jobs
        # lost (they reconcile against live panes), runs closed as the startup sweep does.
        gone = self.panes.reset()
        for pane in gone:
            self._forget_pane(pane)
        surfaces = {p.surface_id for p in gone}
        await sweep_gone_panes(self._hub, surfaces, self._hub.now())
        await self._hub.retire_items(surfaces.__contains__)  # the sweep's disconnects too
        self._hub.bump()

    async def tmux_connected(self, *, had_user_session: bool) -> None:
        # Surface ids are bound to this server's panes (see daemon.panes).
        self.panes.server = await self._require_port().server_identity()
        if not had_user_session:
            await self.ensure_user_session()
        await self.refresh_panes()
        for listener in self.connected_listeners:
            await listener()
        self._hub.bump()

    def tmux_lost(self) -> None:
        self._hub.bump()

    # -- the live pane set ----------------------------------------------------------------------
    async def refresh_panes(self) -> list[PaneRow]:
        port = self._require_port()
        async with self._refresh_lock:
            listed_at = self.panes.generation
            rows = await port.list_panes()
            inherited = None
            if self.panes.has_strangers(rows):
                # A server started from inside some mytty pane hands that pane's id to all of
                # its panes through the global environment: such an id proves nothing.
                inherited = await port.global_env("MYTTY_SURFACE_ID")
            result = self.panes.reconcile(rows, inherited_surface=inherited, listed_at=listed_at)
            for pane in result.removed:
                self._forget_pane(pane)
            for pane in result.added:
                log.debug("adopted pane %s as %s", pane.tmux_id, pane.surface_id)
                self._read_early_shell_events(pane.surface_id)
            for pane in self.panes.panes():
                if not pane.option_written and pane.row is not None:
                    try:
                        await port.set_pane_option(pane.tmux_id, SURFACE_OPTION, pane.surface_id)
                        pane.option_written = True
                    except MyttyError:
                        pass
            await self._save_bindings()
            if result.removed:
                await self._hub.retire_items({p.surface_id for p in result.removed}.__contains__)
            if result.added or result.removed:
                self._hub.bump()
            return rows

    async def _save_bindings(self) -> None:
        unsaved = self.panes.take_unsaved_bindings()
        if unsaved:
            try:
                await self._hub.store.bind_surfaces(unsaved)
            except StoreError as exc:  # still bound in memory; only a restart could forget
                log.warning("could not store %d surface bindings: %s", len(unsaved), exc)

    def _forget_pane(self, pane: Pane) -> None:
        if self.shell_events is not None:
            self.shell_events.forget(pane.surface_id)
        self._hub.notes.forget_pane(pane.surface_id)
        self._pane_locks.pop(pane.surface_id, None)
        self._described.pop(pane.surface_id, None)
        for listener in self.pane_gone_listeners:
            listener(pane.surface_id)

    def require_pane(self, pane_id: str | None, code: ErrorCode = ErrorCode.PANE_NOT_FOUND) -> Pane:
        """The pane ``pane_id`` names: its surface id, or tmux's name for it (``%3``,
        ``mytty:1.0``, ``@2``, ``$1``: :mod:`mytty.tmux.pane_names`)."""
        self._require_port()
        pane = self.panes.get(pane_id)
        if pane is None and pane_id is not None and pane_names.is_tmux_name(pane_id):
            pane = pane_names.find(pane_id, self.panes.panes())
            if pane is None:
                raise MyttyError(code, f"no pane is called {pane_id!r} in tmux")
        if pane is None:
            raise MyttyError(code, f"no pane with id {pane_id!r}")
        return pane

    def pane_lock(self, surface_id: str) -> asyncio.Lock:
        lock = self._pane_locks.get(surface_id)
        if lock is None:
            lock = self._pane_locks[surface_id] = asyncio.Lock()
        return lock

    async def press_escape(self, surface_id: SurfaceId) -> None:
        """Esc into a pane, as ``send-key PANE Escape`` does (a job used up its token budget)."""
        pane = self.panes.by_surface.get(surface_id)
        if pane is not None:
            async with self.pane_lock(surface_id):
                await self._require_port().send_key(pane.tmux_id, "Escape")

    async def screen(self, surface_id: SurfaceId) -> ScreenCapture | None:
        """What the pane shows now (scrollback included), or None when it is gone."""
        pane = self.panes.by_surface.get(surface_id)
        if pane is None:
            return None
        try:
            return await self._require_port().capture(pane.tmux_id)
        except MyttyError:
            return None  # gone meanwhile, or tmux is away

    # -- facts about one pane -------------------------------------------------------------------
    def foreground_agent(self, pane: PaneView) -> tuple[AgentProvider | None, int | None]:
        """The agent in the pane's foreground (provider, its pid), found from /proc (§9.1,
        wrapper shells searched); with no agent, the foreground process's pid (or None)."""
        det = self.detector.detect(pane.pid)
        return det.provider, det.pid if det.pid is not None else det.foreground

    def pane_info(self, pane: PaneView) -> PaneEntry:
        row = pane.row
        assert row is not None
        command = self._command(pane, row)
        run = self._hub.book.most_relevant(pane.surface_id)
        note = self._hub.notes.get(pane.surface_id)
        shell = self.shell_events.state(pane.surface_id) if self.shell_events else None
        return wire.pane_entry(pane.surface_id, row, command, run, note, shell)

    def _command(self, pane: PaneView, row: PaneRow) -> str:
        """The pane's ``command``: its agent's name, else its foreground process's name.

        ``list`` asks this of every pane, so it is answered from what is already known
        while nothing says the foreground changed: neither tmux's ``pane_current_command``
        (fresh from the ``list-panes`` of this request) nor the estimator's last detection
        (its 0.5 s pass, process exits). Either changing means one fresh look at ``/proc``, so
        an agent shows as soon as tmux names a new foreground process or the estimator sees it
        (an agent started by a wrapper shell of the same name as the one before: its next pass).
        """
        seen = self.last_detection(pane.surface_id) if self.last_detection is not None else None
        memo = self._described.get(pane.surface_id)
        if (
            seen is not None
            and memo is not None
            and memo.seen == seen
            and memo.pid == pane.pid
            and memo.tmux_command == row.current_command
        ):
            return memo.command
        provider, fg = self.foreground_agent(pane)
        if provider is not None:
            command = agents_detect.display_name(provider)
        elif fg is not None:
            command = procfs.comm(fg) or row.current_command
        else:
            command = row.current_command
        if seen is not None:
            self._described[pane.surface_id] = _Described(
                pane.pid, row.current_command, seen, command
            )
        return command

    def pane_environment(self, surface_id: str) -> dict[str, str]:
        bindir = os.path.dirname(self._ctl_bin)
        path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
        if bindir not in path.split(":"):
            path = f"{path}:{bindir}"
        return {
            "MYTTY_EVENT_SOCKET": str(self._home.event_socket),
            "MYTTY_SURFACE_ID": surface_id,
            "MYTTY_EVENT_CAPABILITY": self.panes.capability(surface_id),
            "MYTTY_CONTROL_SOCKET": str(self._home.control_socket),
            "MYTTY_CTL_BIN": self._ctl_bin,
            "PATH": path,
        }

    def caller_surface(self, peer_pid: int) -> SurfaceId | None:
        return procfs.find_ancestor(peer_pid, self.panes.pid_map())

    def pane_directory(self, pane: PaneView) -> str | None:
        """tmux's idea of the pane's directory; while its shell is still starting (its pty has
        no session yet, so tmux knows none) the pane's own process is asked."""
        if pane.row is not None and pane.row.current_path:
            return pane.row.current_path
        return procfs.cwd(pane.pid) if pane.pid > 0 else None

    # -- creating and closing panes -------------------------------------------------------------
    def _launch_command(self) -> str:
        """The first command of every pane the controller makes: the shell launcher."""
        return f"exec /bin/sh {shell_quote(str(self._launcher))}"

    def _register(self, surface: SurfaceId, tmux_id: TmuxPaneId, pid: int) -> None:
        # Runs before tmux's hook notification for this pane is dispatched.
        self.panes.register_created(surface, tmux_id, pid)
        self._read_early_shell_events(surface)

    def _read_early_shell_events(self, surface: SurfaceId) -> None:
        # The watcher ignores files of panes it doesn't know yet; a shell that reported before
        # its pane was registered (a fast prompt, a busy controller) must not wait for its next
        # prompt to be seen.
        if self.shell_events is not None:
            self.shell_events.drain(surface)

    def _launch_file(self, surface_id: str, text: str) -> str:
        path = self._home.launch_dir / f"{surface_id}.sh"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return str(path)

    async def create_pane(
        self,
        *,
        split_from: PaneView | None = None,
        direction: str = "right",
        session: str | None = None,
        cwd: str | None,
        command: str | None,
        extra_env: dict[str, str] | None = None,
        after_window: str | None = None,
        window_name: str | None = None,
    ) -> Pane:
        """Split ``split_from`` (or open a window in ``session``, or right after the window
        ``after_window``, named ``window_name``) with the pane environment.

        ``command`` (shell text) runs once the pane's shell is fully started; nothing is typed.
        """
        port = self._require_port()
        surface = self.panes.new_surface_id()
        env = self.pane_environment(surface)
        if extra_env:
            env.update(extra_env)
        launch_path = self._launch_file(surface, command) if command is not None else None
        if launch_path is not None:
            env["MYTTY_LAUNCH_FILE"] = launch_path
        launcher = self._launch_command()

        def register(tmux_id: TmuxPaneId, pid: int) -> None:
            self._register(surface, tmux_id, pid)

        try:
            if split_from is not None:
                tmux_id, _pid = await port.split(
                    split_from.tmux_id,
                    direction,
                    cwd=cwd,
                    env=env,
                    command=launcher,
                    on_created=register,
                )
            else:
                tmux_id, _pid = await port.new_window(
                    session or bootstrap.USER_SESSION,
                    cwd=cwd,
                    env=env,
                    command=launcher,
                    on_created=register,
                    after=after_window,
                    name=window_name,
                )
        except BaseException:
            if launch_path is not None:
                Path(launch_path).unlink(missing_ok=True)
            raise
        try:
            await port.set_pane_option(tmux_id, SURFACE_OPTION, surface)
            if surface in self.panes.by_surface:
                self.panes.by_surface[surface].option_written = True
        except MyttyError:
            pass
        await self.refresh_panes()
        if surface not in self.panes.by_surface:
            if launch_path is not None:
                Path(launch_path).unlink(missing_ok=True)
            # The command's own failure code (agent spawn maps it to spawn-failed).
            code = ErrorCode.SPLIT_FAILED if split_from is not None else ErrorCode.NEW_TAB_FAILED
            raise MyttyError(code, "the new pane exited immediately")
        return self.panes.by_surface[surface]

    async def ensure_user_session(self) -> str:
        """Make sure the ``mytty`` session exists; its first pane carries the pane environment.

        When it is created, :attr:`first_command` (if set) says what shell text its first pane
        runs at its first prompt (the welcome of a fresh home), or None.
        """
        port = self._require_port()
        if await port.has_session(bootstrap.USER_SESSION):
            return bootstrap.USER_SESSION
        surface = self.panes.new_surface_id()
        env = self.pane_environment(surface)
        command = self.first_command() if self.first_command is not None else None
        if command is not None:
            env["MYTTY_LAUNCH_FILE"] = self._launch_file(surface, command)
        tmux_id = await port.new_session(
            bootstrap.USER_SESSION,
            cwd=os.path.expanduser("~"),
            env=env,
            command=self._launch_command(),
            on_created=lambda tmux_id, pid: self._register(surface, tmux_id, pid),
        )
        await port.set_pane_option(tmux_id, SURFACE_OPTION, surface)
        self.panes.by_surface[surface].option_written = True
        await self.refresh_panes()
        return bootstrap.USER_SESSION

    async def relaunch(
        self, pane: PaneView, command: str, extra_env: dict[str, str] | None = None
    ) -> None:
        """Replace the pane's processes with a fresh shell that runs ``command`` once started,
        as :meth:`create_pane` starts one (admission starts a queued worker this way: what the
        pane ran while queued, and anything typed into it, is gone)."""
        port = self._require_port()
        env = self.pane_environment(pane.surface_id)
        if extra_env:
            env.update(extra_env)
        launch_path = self._launch_file(pane.surface_id, command)
        env["MYTTY_LAUNCH_FILE"] = launch_path
        try:
            await port.respawn(pane.tmux_id, env=env, command=self._launch_command())
        except BaseException:
            Path(launch_path).unlink(missing_ok=True)
            raise
        await self.refresh_panes()

    async def close_pane(self, pane: PaneView) -> None:
        port = self._require_port()
        await port.kill_pane(pane.tmux_id)
        await self.refresh_panes()

    async def preferred_session(self) -> str:
        """The session a new tab goes to: the human's current one, else ``mytty``, else any."""
        port = self._require_port()
        clients = await port.human_clients()
        if clients:
            return clients[0][1]
        if await port.has_session(bootstrap.USER_SESSION):
            return bootstrap.USER_SESSION
        for pane in self.panes.panes():
            if pane.row is not None:
                return pane.row.session_name
        return await self.ensure_user_session()
