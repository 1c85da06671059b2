"""The controller: binds one tmux server, serves the control and event sockets.

Startup order matters: the store is replayed before anything can read run state, tmux is
connected and every pane has an identity before the startup sweep decides which runs are
dead, and only then do the sockets open.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mytty.core import agents_detect
from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider
from mytty.core.runs import startup_sweep_events
from mytty.daemon import procfs
from mytty.daemon.agents import AgentHub, settle_heap
from mytty.daemon.codex_routing import CodexRouter
from mytty.daemon.cursor_approval import CursorApprovalEstimator
from mytty.daemon.event_ingest import EventIngest
from mytty.daemon.home import Home
from mytty.daemon.integration_service import IntegrationService
from mytty.daemon.jobs import JobRegistry
from mytty.daemon.panes import PRIVATE_SESSION, Pane, PaneRegistry
from mytty.daemon.request_router import ControlRouter
from mytty.daemon.servers import OneShotServer
from mytty.daemon.store import EventStore
from mytty.protocol.control import encode_reply, failure
from mytty.protocol.envelope import encode_event_reply
from mytty.tmux import bootstrap
from mytty.tmux.control_client import ControlClient, TmuxConnectionLost
from mytty.tmux.port import SURFACE_OPTION, PaneRow, TmuxPort

log = logging.getLogger(__name__)

#: tmux hooks that tell us panes appeared, vanished or moved (in any session). Control mode
#: reports window and session changes everywhere by itself, but pane changes only inside the
#: control client's own session. Rename hooks are left out on purpose: the hook command renames
#: our private window, and a rename hook would fire again on that.
PANE_HOOKS = (
    "after-split-window",
    "after-new-window",
    "after-new-session",
    "after-kill-pane",
    "pane-exited",
    "pane-died",
    "window-linked",
    "window-unlinked",
    "session-closed",
)
HOOK_INDEX = 4242
#: Control-mode notifications that may mean the pane set changed.
_RECONCILE_NOTIFICATIONS = frozenset(
    {
        "%window-add",
        "%window-close",
        "%unlinked-window-add",
        "%unlinked-window-close",
        "%sessions-changed",
        "%window-renamed",
        "%unlinked-window-renamed",
        "%session-renamed",
        "%layout-change",
        "%window-pane-changed",
        "%session-window-changed",
    }
)


def shell_integration_dir() -> Path:
    here = Path(__file__).resolve().parent.parent  # mytty/
    for candidate in (here.parent / "shell-integration", here / "shell_integration"):
        if (candidate / "mytty-shell").exists():
            return candidate
    raise MyttyError(ErrorCode.INTERNAL_ERROR, "mytty's shell-integration files are missing")


class Controller:
    def __init__(self, home: Home, tmux_socket: str, *, ctl_bin: str) -> None:
        self.home = home
        self.tmux_socket = tmux_socket
        self.ctl_bin = ctl_bin
        self.started_at = time.time()
        self.port: TmuxPort | None = None
        self._client: ControlClient | None = None
        self._server_pid = 0
        self._lock_fd: int | None = None
        self.store = EventStore(home.store)
        self.hub = AgentHub(self.store)
        self.panes: PaneRegistry = PaneRegistry(b"")
        self.jobs = JobRegistry(self)
        self._dirty = asyncio.Event()
        self._refresh_lock = asyncio.Lock()
        self._stop = asyncio.Event()
        self._servers: list[OneShotServer] = []
        self._pane_locks: dict[str, asyncio.Lock] = {}
        self.cursor_approval = CursorApprovalEstimator(self.hub)
        self.router = ControlRouter(self)
        self.integrations = IntegrationService(self)
        self.codex_router = CodexRouter(self)
        self.ingest = EventIngest(self)
        self._launcher = shell_integration_dir() / "mytty-shell"

    # ----------------------------------------------------------------------------------------
    # lifecycle
    # ----------------------------------------------------------------------------------------
    def acquire_lock(self) -> None:
        self.home.ensure()
        fd = os.open(self.home.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                other = os.read(fd, 32).decode().strip()
            finally:
                os.close(fd)
            raise MyttyError(
                ErrorCode.ALREADY_RUNNING,
                f"a controller is already running for {self.home.root}"
                + (f" (pid {other})" if other else "")
                + "; stop it with `mytty stop` or use another MYTTY_HOME",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd

    async def run(self, on_ready: Callable[[], None] | None = None) -> None:
        self.acquire_lock()
        try:
            await self._run(on_ready)
        finally:
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None

    async def _run(self, on_ready: Callable[[], None] | None) -> None:
        loop = asyncio.get_running_loop()
        self.panes = PaneRegistry(self.home.read_or_create_secret())
        self.store.open()
        self.hub.load(self.store.load_events(), self.store.load_acknowledgements())
        settle_heap()  # everything alive now lives as long as the process
        self.store.start_writer(loop)
        self.hub.add_observer(self.cursor_approval.observe)
        try:
            await self._connect_tmux(first=True)
            await self._startup_sweep()
            await self.hub.prune()
            self._write_guide()
            self._servers = [
                OneShotServer(
                    self.home.control_socket,
                    self._handle_control,
                    too_large_reply=encode_reply(
                        failure(ErrorCode.REQUEST_TOO_LARGE, "requests are limited to 64 KiB")
                    ),
                    foreign_peer_reply=encode_reply(
                        failure(ErrorCode.PERMISSION_DENIED, "another user's process was refused")
                    ),
                    name="control",
                ),
                OneShotServer(
                    self.home.event_socket,
                    self.ingest.handle,
                    too_large_reply=encode_event_reply(error=ErrorCode.REQUEST_TOO_LARGE),
                    foreign_peer_reply=encode_event_reply(error=ErrorCode.UNAUTHORIZED),
                    name="events",
                ),
            ]
            for server in self._servers:
                await server.start()
            log.info("mytty controller ready (home %s, tmux %s)", self.home.root, self.tmux_socket)
            if on_ready is not None:
                on_ready()
            async with asyncio.TaskGroup() as tg:
                tg.create_task(self._reconcile_worker(), name="reconcile")
                tg.create_task(self._tmux_supervisor(), name="tmux-supervisor")
                tg.create_task(self.hub.prune_forever(), name="prune")
                tg.create_task(self._wait_for_stop(), name="stop")
        except* _Stop:
            pass
        finally:
            await self._shutdown()

    def request_stop(self) -> None:
        self._stop.set()

    async def _wait_for_stop(self) -> None:
        await self._stop.wait()
        raise _Stop

    async def _shutdown(self) -> None:
        for server in self._servers:
            await server.close()
        self.cursor_approval.cancel_all()
        if self.port is not None:
            try:
                for hook in PANE_HOOKS:
                    await self.port.unset_hook(hook, HOOK_INDEX)
                for name in ("MYTTY_CTL_BIN", "MYTTY_CONTROL_SOCKET"):
                    await self.port.try_run(f"set-environment -gu {name}")
                await self.port.try_run(f"kill-session -t ={PRIVATE_SESSION}")
            except MyttyError:
                pass
        if self._client is not None:
            await self._client.close()
        self.store.close()
        if self._servers:
            log.info("mytty controller stopped")

    # ----------------------------------------------------------------------------------------
    # tmux connection
    # ----------------------------------------------------------------------------------------
    def _keepalive_command(self) -> str:
        # The private session lives exactly as long as this process; when it dies (even by
        # kill -9) the pane removes our hooks so tmux never runs stale ones.
        tmux = shlex.join(bootstrap.tmux_argv(self.tmux_socket))
        unset = " \\; ".join(f"set-hook -gu '{h}[{HOOK_INDEX}]'" for h in PANE_HOOKS)
        return f"tail --pid={os.getpid()} -f /dev/null 2>/dev/null; exec {tmux} {unset}"

    async def _connect_tmux(self, *, first: bool) -> None:
        if first:
            await asyncio.to_thread(bootstrap.check_version)
        elif not await asyncio.to_thread(bootstrap.server_alive, self.tmux_socket):
            # Only the first connection may start a server: a server the user killed stays
            # dead until somebody starts a new one on the socket.
            raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, f"no tmux server on {self.tmux_socket}")
        had_user_session = await asyncio.to_thread(
            bootstrap.user_session_exists, self.tmux_socket, PRIVATE_SESSION
        )
        await asyncio.to_thread(
            bootstrap.ensure_private_session,
            self.tmux_socket,
            PRIVATE_SESSION,
            self._keepalive_command(),
            fresh=first,
        )
        client = ControlClient(
            bootstrap.tmux_argv(self.tmux_socket), f"={PRIVATE_SESSION}", self._on_notification
        )
        await client.start()
        port = TmuxPort(client)
        server_pid = await port.server_pid()
        if self._server_pid and server_pid != self._server_pid:
            log.info(
                "tmux server changed (pid %s → %s): forgetting old panes",
                self._server_pid,
                server_pid,
            )
            for pane in self.panes.reset():
                self._forget_pane(pane)
        self._server_pid = server_pid
        self._client = client
        self.port = port
        # A hook cannot print to one particular client (``display-message -p`` prints to the
        # client that ran the triggering command: a user's `tmux split-window -P` would show
        # our line). Renaming the private window is what it does instead: control mode tells
        # us with %window-renamed, whoever triggered the hook, and pane text cannot fake that.
        private_window = await port.current_window()
        for hook in PANE_HOOKS:
            await port.set_hook(
                hook, HOOK_INDEX, f"rename-window -t {private_window} 'mytty-{hook}'"
            )
        await port.set_global_env("MYTTY_CTL_BIN", self.ctl_bin)
        await port.set_global_env("MYTTY_CONTROL_SOCKET", str(self.home.control_socket))
        if not had_user_session:
            await self.ensure_user_session()
        await self.refresh_panes()
        self.hub.bump()

    async def _tmux_supervisor(self) -> None:
        delay = 0.2
        while True:
            assert self._client is not None
            await self._client.closed.wait()
            log.warning("lost the tmux control connection; reconnecting")
            self.port = None
            self.hub.bump()
            while True:
                try:
                    await self._connect_tmux(first=False)
                    delay = 0.2
                    break
                except (MyttyError, TmuxConnectionLost, OSError) as exc:
                    log.warning("tmux reconnect failed: %s", exc)
                    # Waiting for a tmux server to come back has no event to wait on.
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)

    def _on_notification(self, kind: str, rest: str) -> None:
        if kind in _RECONCILE_NOTIFICATIONS:
            self._dirty.set()

    async def _reconcile_worker(self) -> None:
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            try:
                await self.refresh_panes()
            except MyttyError as exc:
                log.debug("pane refresh failed: %s", exc.message)

    async def refresh_panes(self) -> list[PaneRow]:
        port = self.require_port()
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
            for pane in self.panes.panes():
                if not pane.option_written and pane.row is not None:
                    try:
                        await port.set_pane_option(pane.tmux_id, SURFACE_OPTION, pane.surface_id)
                        pane.option_written = True
                    except MyttyError:
                        pass
            if result.added or result.removed:
                self.hub.bump()
            return rows

    def _forget_pane(self, pane: Pane) -> None:
        self.hub.notes.forget_pane(pane.surface_id)
        self._pane_locks.pop(pane.surface_id, None)

    # ----------------------------------------------------------------------------------------
    # panes
    # ----------------------------------------------------------------------------------------
    def require_port(self) -> TmuxPort:
        if self.port is None:
            raise MyttyError(
                ErrorCode.TMUX_UNAVAILABLE,
                f"the tmux server at {self.tmux_socket} is not reachable; mytty keeps retrying",
            )
        return self.port

    def require_pane(self, pane_id: str | None, code: ErrorCode = ErrorCode.PANE_NOT_FOUND) -> Pane:
        self.require_port()
        pane = self.panes.get(pane_id)
        if pane is None:
            raise MyttyError(code, f"no pane with id {pane_id!r}")
        return pane

    def pane_lock(self, surface_id: str) -> asyncio.Lock:
        lock = self._pane_locks.get(surface_id)
        if lock is None:
            lock = self._pane_locks[surface_id] = asyncio.Lock()
        return lock

    def foreground_agent(self, pane: Pane) -> tuple[AgentProvider | None, int | None]:
        """The agent in the pane's foreground (provider, pid), found from /proc."""
        fg = procfs.foreground_pid(pane.pid)
        if fg is None:
            return None, None
        args = procfs.argv(fg) or []
        provider = agents_detect.classify_process(procfs.exe(fg), args)
        if provider is None:
            provider = agents_detect.parse_agent_hint(procfs.environ_value(fg, "MYTTY_AGENT"))
        return provider, fg

    def pane_info(self, pane: Pane) -> dict[str, Any]:
        row = pane.row
        assert row is not None
        provider, fg = self.foreground_agent(pane)
        if provider is not None:
            command = agents_detect.display_name(provider)
        elif fg is not None:
            command = procfs.comm(fg) or row.current_command
        else:
            command = row.current_command
        info: dict[str, Any] = {
            "paneID": pane.surface_id,
            "windowID": row.session_id,
            "tabID": row.window_id,
            "title": row.window_name,
            "command": command,
            "workingDirectory": row.current_path,
            "isActive": row.pane_active and row.window_active,
        }
        run = self.hub.book.most_relevant(pane.surface_id)
        if run is not None:
            info["provider"] = run.provider.value
            info["agentState"] = run.state.value
        note = self.hub.notes.get(pane.surface_id)
        if note is not None:
            info["statusNote"] = note
        return info

    def pane_environment(self, surface_id: str) -> dict[str, str]:
        bindir = os.path.dirname(self.ctl_bin)
        path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
        if bindir not in path.split(":"):
            path = f"{path}:{bindir}"
        return {
            "MYTTY_EVENT_SOCKET": str(self.home.event_socket),
            "MYTTY_SURFACE_ID": surface_id,
            "MYTTY_EVENT_CAPABILITY": self.panes.capability(surface_id),
            "MYTTY_CONTROL_SOCKET": str(self.home.control_socket),
            "MYTTY_CTL_BIN": self.ctl_bin,
            "PATH": path,
        }

    def caller_surface(self, peer_pid: int) -> str | None:
        return procfs.find_ancestor(peer_pid, self.panes.pid_map())

    def _launch_file(self, surface_id: str, text: str) -> str:
        path = self.home.launch_dir / f"{surface_id}.sh"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return str(path)

    async def create_pane(
        self,
        *,
        split_from: Pane | None = None,
        direction: str = "right",
        session: str | None = None,
        cwd: str | None,
        command: str | None,
        extra_env: dict[str, str] | None = None,
    ) -> Pane:
        """Split ``split_from`` (or open a window in ``session``) with the pane environment.

        ``command`` (shell text) runs once the pane's shell is fully started; nothing is typed.
        """
        port = self.require_port()
        surface = self.panes.new_surface_id()
        env = self.pane_environment(surface)
        if extra_env:
            env.update(extra_env)
        launch_path = self._launch_file(surface, command) if command is not None else None
        if launch_path is not None:
            env["MYTTY_LAUNCH_FILE"] = launch_path
        launcher = f"exec /bin/sh {shlex.quote(str(self._launcher))}"

        def register(tmux_id: str, pid: int) -> None:
            # Runs before tmux's hook notification for this pane is dispatched.
            self.panes.register_created(surface, tmux_id, pid)

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
        """Make sure the ``mytty`` session exists; its first pane carries the pane environment."""
        port = self.require_port()
        if await port.has_session(bootstrap.USER_SESSION):
            return bootstrap.USER_SESSION
        surface = self.panes.new_surface_id()
        env = self.pane_environment(surface)
        launcher = f"exec /bin/sh {shlex.quote(str(self._launcher))}"
        lines = await port.run(
            f"new-session -d -s {bootstrap.USER_SESSION} -c {shlex.quote(os.path.expanduser('~'))} "
            f"-P -F '#{{pane_id}} #{{pane_pid}}' 'exec sleep 30'",
            fail=ErrorCode.NEW_TAB_FAILED,
        )
        tmux_id = lines[0].split()[0]
        self.panes.register_created(surface, tmux_id, 0)
        await port.respawn(tmux_id, env=env, command=launcher)
        await port.set_pane_option(tmux_id, SURFACE_OPTION, surface)
        self.panes.by_surface[surface].option_written = True
        await self.refresh_panes()
        return bootstrap.USER_SESSION

    async def close_pane(self, pane: Pane) -> None:
        port = self.require_port()
        await port.kill_pane(pane.tmux_id)
        await self.refresh_panes()

    async def preferred_session(self) -> str:
        """The session a new tab goes to: the human's current one, else ``mytty``, else any."""
        port = self.require_port()
        clients = await port.human_clients()
        if clients:
            return clients[0][1]
        if await port.has_session(bootstrap.USER_SESSION):
            return bootstrap.USER_SESSION
        for pane in self.panes.panes():
            if pane.row is not None:
                return pane.row.session_name
        return await self.ensure_user_session()

    # ----------------------------------------------------------------------------------------
    # startup sweep
    # ----------------------------------------------------------------------------------------
    async def _startup_sweep(self) -> None:
        def is_dead(run: Any) -> bool:
            pane = self.panes.by_surface.get(run.surface_id)
            if pane is None:
                return True
            # tmux panes outlive the controller: a run is dead only when its pane is back at
            # its shell (nothing in the foreground).
            return procfs.foreground_pid(pane.pid) is None

        for event in startup_sweep_events(self.hub.book, time.time(), is_dead):
            try:
                await self.hub.ingest(event)
            except Exception as exc:  # the store is down: the next start sweeps again
                log.error("startup sweep could not record %s: %s", event.run_id, exc)

    def _write_guide(self) -> None:
        from mytty.core.guide import guide_text

        try:
            tmp = self.home.guide_file.with_suffix(".tmp")
            tmp.write_text(guide_text(), encoding="utf-8")
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.home.guide_file)
        except OSError as exc:  # best effort
            log.warning("could not write %s: %s", self.home.guide_file, exc)

    # ----------------------------------------------------------------------------------------
    # control socket
    # ----------------------------------------------------------------------------------------
    async def _handle_control(self, body: bytes, peer: Any) -> bytes:
        return encode_reply(await self.router.dispatch(body, peer.pid))

    # ----------------------------------------------------------------------------------------
    # seams used by the agent commands
    # ----------------------------------------------------------------------------------------
    async def attention_preflight(self, pane: Pane) -> None:
        """Fail at once when an attention wait can never resolve (agent without hooks)."""
        provider, _pid = self.foreground_agent(pane)
        if provider is None:
            return
        if await self.integrations.status(provider) == "not-installed":
            raise MyttyError(
                ErrorCode.PROVIDER_INTEGRATION_NOT_INSTALLED,
                f"{provider.value} runs in this pane without mytty's hooks, so it can never "
                f"report that it needs attention; run `mytty integrations enable {provider.value}`",
            )

    async def job_attention_preflight(self, job: Any) -> None:
        provider = job.provider.agent_provider
        if await self.integrations.status(provider) == "not-installed":
            raise MyttyError(
                ErrorCode.PROVIDER_INTEGRATION_NOT_INSTALLED,
                f"{provider.value} has no mytty hooks installed, so the job can never report that "
                f"it needs attention; run `mytty integrations enable {provider.value}`",
            )

    async def spawn_preflight(self, provider: Any) -> None:
        agent = provider.agent_provider
        if await self.integrations.status(agent) == "needs-repair":
            raise MyttyError(
                ErrorCode.PROVIDER_INTEGRATION_NEEDS_REPAIR,
                f"the {agent.value} hook integration needs repair; run "
                f"`mytty integrations repair {agent.value}`",
            )

    async def resolve_worktree(self, base_dir: str, branch: str) -> str:
        from mytty.daemon.worktree import resolve_worktree

        return await asyncio.to_thread(resolve_worktree, base_dir, branch)

    async def access_mode_flags(
        self, worker: Any, access: str | None, anchor: Pane | None
    ) -> list[str]:
        from mytty.core.launch import access_flags, resolve_access
        from mytty.daemon.inherit import inherited_mode_flags_for

        lead_provider, lead_pid = (None, None) if anchor is None else self.foreground_agent(anchor)
        resolved = resolve_access(access, worker, lead_provider)
        if resolved != "inherit":
            return access_flags(worker, resolved)
        if lead_pid is None:
            if access == "inherit":
                raise MyttyError(
                    ErrorCode.INHERIT_UNAVAILABLE,
                    "--access inherit needs an anchor pane running the same provider",
                )
            return access_flags(worker, "workspace-write")
        session = None
        if anchor is not None:
            run = self.hub.book.latest_run(anchor.surface_id, worker.agent_provider)
            session = run.session_id if run is not None else None
        try:
            return await asyncio.to_thread(
                inherited_mode_flags_for,
                worker,
                lead_pid,
                home=os.path.expanduser("~"),
                session_id=session,
            )
        except MyttyError:
            if access == "inherit":
                raise
            # An implicit inherit whose lead only looked like the provider (e.g. by its hint).
            return access_flags(worker, "workspace-write")

    def route_codex(self, event: Any) -> Any:
        """Place a codex event on a pane by its sessionID; None when it can't be placed exactly."""
        return self.codex_router.route(event)


class _Stop(Exception):
    pass
