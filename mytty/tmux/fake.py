"""An in-memory tmux server behind the :class:`~mytty.tmux.port.TmuxPort` contract, for tests.

``FakeTmux`` keeps sessions, windows and panes the way tmux numbers them (``$N``, ``@N``,
``%N``), answers every verb with the same results and error codes as the real port, and is
checked against a real tmux server by ``tests/tmux/test_port_conformance.py``; where that
suite does not pin a behaviour down, this module says what it models.

A pane's screen models a terminal in canonical mode with echo whose process never reads
(``exec sleep``): typed text appears at the cursor, Enter starts the next line, BSpace erases
one character. Every key sent is also kept, in order, in :attr:`FakePane.sent` (text chunks as
``("text", s)``, keys as ``("key", name)``) so handler tests can check what was typed.

Test-side controls (not part of the port): :meth:`FakeTmux.add_session`,
:meth:`FakeTmux.attach_human`, :meth:`FakeTmux.kill_server`, :meth:`FakeTmux.pane`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.ids import TmuxPaneId
from mytty.tmux.literal import MAX_MESSAGE_CHARS, option_name_problem, session_name_problem
from mytty.tmux.port import (
    MAX_CAPTURE_LINES,
    SPLIT_DIRECTIONS,
    SURFACE_OPTION,
    ClientView,
    HumanClient,
    OnCreated,
    OptionScope,
    OptionUpdate,
    PaneRow,
    ScreenCapture,
    trim_capture,
)

DEFAULT_SIZE = (80, 24)
#: The first pid the fake gives a pane process.
FAKE_PID_BASE = 2**22 + 1_000


@dataclass(eq=False)
class FakePane:
    pane_id: TmuxPaneId
    pid: int
    window: FakeWindow
    command: str
    env: dict[str, str]
    cwd: str
    left: int
    top: int
    width: int
    height: int
    options: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=lambda: [""])
    sent: list[tuple[str, str]] = field(default_factory=list)
    #: Bytes written as the pane's own output (``write_pane_output``), in order.
    output: list[bytes] = field(default_factory=list)

    @property
    def current_command(self) -> str:
        """The program ``command`` runs (``exec sleep 9`` → ``sleep``), as tmux shows it."""
        words = [w for w in self.command.split() if w != "exec"]
        return words[0].rsplit("/", 1)[-1] if words else ""


@dataclass(eq=False)
class FakeWindow:
    window_id: str
    index: int
    session: FakeSession
    name: str
    panes: list[FakePane] = field(default_factory=list)
    active: FakePane | None = None
    zoomed: bool = False


@dataclass
class FakeHuman:
    name: str
    session_name: str
    activity: int
    #: Texts shown on this client's status line (``display_message``), in order.
    messages: list[str] = field(default_factory=list)


@dataclass(eq=False)
class FakeSession:
    session_id: str
    name: str
    width: int
    height: int
    cwd: str
    windows: list[FakeWindow] = field(default_factory=list)
    active: FakeWindow | None = None
    options: dict[str, str] = field(default_factory=dict)


class FakeTmux:
    """One fake tmux server plus the port's own client, attached to session ``own_session``."""

    def __init__(
        self, own_session: str = "_mytty", *, server_pid: int = 4242, home: str = "/"
    ) -> None:
        self._ids = itertools.count()
        # Above Linux's largest pid (2**22): no /proc lookup can hit a real process.
        self._pids = itertools.count(FAKE_PID_BASE)
        self._server_pid = server_pid
        self._home = home
        self.sessions: list[FakeSession] = []
        self.global_environment: dict[str, str] = {}
        #: Server-wide user options (``set-option -g @name``).
        self.global_options: dict[str, str] = {}
        #: (hook, index) → the window id the hook renames.
        self.hooks: dict[tuple[str, int], str] = {}
        self.humans: list[FakeHuman] = []
        self._alive = True
        self._closed = asyncio.Event()
        own = self.add_session(own_session, command="exec sleep 2147483647")
        assert own.active is not None
        self._own_window = own.active

    # -- test-side controls -----------------------------------------------------------------
    def add_session(
        self,
        name: str,
        *,
        size: tuple[int, int] = DEFAULT_SIZE,
        cwd: str | None = None,
        command: str = "exec sleep 2147483647",
        env: Mapping[str, str] | None = None,
    ) -> FakeSession:
        """A session with one window and one pane, as ``new-session -d`` makes it."""
        session = FakeSession(f"${next(self._ids)}", name, size[0], size[1], cwd or self._home)
        self.sessions.append(session)
        self._add_window(session, 0, command, dict(env or {}), session.cwd)
        return session

    def attach_human(self, session: str, name: str | None = None) -> str:
        """A human's client attached to ``session``, the most recently active one."""
        client = name or f"/dev/pts/{100 + len(self.humans)}"
        activity = max((h.activity for h in self.humans), default=0) + 1
        self.humans.append(FakeHuman(client, session, activity))
        return client

    def zoom(self, pane_id: str) -> None:
        """Zoom the pane's window, as a human's ``resize-pane -Z`` does (needs two panes)."""
        pane = self.pane(pane_id)
        assert len(pane.window.panes) > 1, "tmux zooms only a window with several panes"
        pane.window.active = pane
        pane.window.zoomed = True

    def kill_server(self) -> None:
        """The server goes away: every verb now fails with ``tmux-unavailable``."""
        self._alive = False
        self.sessions.clear()
        self._closed.set()

    def pane(self, pane_id: str) -> FakePane:
        """The pane ``pane_id`` (KeyError when there is none)."""
        for pane in self._all_panes():
            if pane.pane_id == pane_id:
                return pane
        raise KeyError(pane_id)

    # -- the connection -----------------------------------------------------------------------
    async def wait_closed(self) -> None:
        await self._closed.wait()

    async def close(self) -> None:
        self._closed.set()

    # -- internals ----------------------------------------------------------------------------
    def _check(self) -> None:
        if not self._alive or self._closed.is_set():
            raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, "tmux is not reachable: server exited")

    @staticmethod
    def _sendable(*texts: str) -> None:
        """Refuse what the real port cannot put on a command line (it is never sent).

        Everything else is taken as text, as the real port escapes it: a ``#`` is never a
        format, a newline never ends a command.
        """
        for text in texts:
            if "\0" in text:
                raise MyttyError(ErrorCode.INVALID_REQUEST, "text tmux cannot take: a NUL")
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise MyttyError(
                    ErrorCode.INVALID_REQUEST, "text tmux cannot take: a lone surrogate"
                ) from None

    @staticmethod
    def _refuse(problem: str | None) -> None:
        if problem is not None:
            raise MyttyError(ErrorCode.INVALID_REQUEST, f"text tmux cannot take: {problem}")

    def _all_panes(self) -> list[FakePane]:
        return [p for s in self.sessions for w in s.windows for p in w.panes]

    def _find_pane(self, pane_id: str, code: ErrorCode) -> FakePane:
        self._check()
        for pane in self._all_panes():
            if pane.pane_id == pane_id:
                return pane
        raise MyttyError(code, f"tmux: can't find pane: {pane_id}")

    def _find_session(self, name: str) -> FakeSession | None:
        return next((s for s in self.sessions if s.name == name), None)

    def _new_pane(
        self,
        window: FakeWindow,
        command: str,
        env: dict[str, str],
        cwd: str,
        geometry: tuple[int, int, int, int],
    ) -> FakePane:
        left, top, width, height = geometry
        return FakePane(
            TmuxPaneId(f"%{next(self._ids)}"),
            next(self._pids),
            window,
            command,
            env,
            cwd,
            left,
            top,
            width,
            height,
        )

    def _add_window(
        self, session: FakeSession, index: int, command: str, env: dict[str, str], cwd: str
    ) -> FakePane:
        window = FakeWindow(f"@{next(self._ids)}", index, session, "")
        pane = self._new_pane(window, command, env, cwd, (0, 0, session.width, session.height))
        window.panes.append(pane)
        window.active = pane
        window.name = pane.current_command
        session.windows.append(window)
        session.windows.sort(key=lambda w: w.index)
        if session.active is None:
            session.active = window
        return pane

    def _fire(self, hook: str) -> None:
        for (name, _index), window_id in self.hooks.items():
            if name != hook:
                continue
            for session in self.sessions:
                for window in session.windows:
                    if window.window_id == window_id:
                        window.name = f"mytty-{hook}"

    def _remove_pane(self, pane: FakePane) -> None:
        window = pane.window
        window.panes.remove(pane)
        if window.active is pane:
            window.active = window.panes[0] if window.panes else None
        if window.panes:
            self._give_space(window, pane)
            return
        session = window.session
        session.windows.remove(window)
        if session.active is window:
            session.active = session.windows[0] if session.windows else None
        if not session.windows:
            self.sessions.remove(session)

    @staticmethod
    def _give_space(window: FakeWindow, gone: FakePane) -> None:
        """A neighbour sharing a whole edge with ``gone`` takes its space (and the separator).

        tmux's layouts are trees; this models the common case of the last split undone.
        """
        for pane in window.panes:
            if (pane.top, pane.height) == (gone.top, gone.height):
                if pane.left + pane.width + 1 == gone.left:
                    pane.width += gone.width + 1
                    return
                if gone.left + gone.width + 1 == pane.left:
                    pane.left, pane.width = gone.left, pane.width + gone.width + 1
                    return
            if (pane.left, pane.width) == (gone.left, gone.width):
                if pane.top + pane.height + 1 == gone.top:
                    pane.height += gone.height + 1
                    return
                if gone.top + gone.height + 1 == pane.top:
                    pane.top, pane.height = gone.top, pane.height + gone.height + 1
                    return

    # -- queries ------------------------------------------------------------------------------
    async def list_panes(self) -> list[PaneRow]:
        self._check()
        rows = []
        for session in self.sessions:
            attached = sum(1 for h in self.humans if h.session_name == session.name)
            for window in session.windows:
                for index, pane in enumerate(window.panes):
                    rows.append(
                        PaneRow(
                            pane_id=pane.pane_id,
                            pane_pid=pane.pid,
                            session_id=session.session_id,
                            session_name=session.name,
                            window_id=window.window_id,
                            window_index=window.index,
                            pane_index=index,
                            window_active=session.active is window,
                            pane_active=window.active is pane,
                            dead=False,
                            left=pane.left,
                            top=pane.top,
                            width=pane.width,
                            height=pane.height,
                            window_width=session.width,
                            window_height=session.height,
                            session_attached=attached,
                            surface=pane.options.get(SURFACE_OPTION, ""),
                            current_command=pane.current_command,
                            current_path=pane.cwd,
                            window_name=window.name,
                            window_zoomed=window.zoomed,
                        )
                    )
        return rows

    async def current_window(self) -> str:
        self._check()
        return self._own_window.window_id

    async def server_pid(self) -> int:
        self._check()
        return self._server_pid

    async def server_identity(self) -> str:
        self._check()
        return f"{self._server_pid}@1700000000"

    async def human_clients(self) -> list[HumanClient]:
        self._check()
        clients = [HumanClient(h.name, h.session_name, h.activity) for h in self.humans]
        return sorted(clients, key=lambda c: c.activity, reverse=True)

    async def has_session(self, name: str) -> bool:
        self._check()
        return self._find_session(name) is not None

    # -- creating panes -----------------------------------------------------------------------
    async def split(
        self,
        target: str,
        direction: str,
        *,
        cwd: str | None,
        env: Mapping[str, str],
        command: str,
        on_created: OnCreated,
    ) -> tuple[TmuxPaneId, int]:
        if direction not in SPLIT_DIRECTIONS:
            raise KeyError(direction)
        self._sendable(cwd or "", command, *env, *env.values())
        old = self._find_pane(target, ErrorCode.SPLIT_FAILED)
        horizontal = direction in ("right", "left")
        size = old.width if horizontal else old.height
        # Like tmux: one cell for the separator, the first of the two panes gets the odd cell.
        second = (size - 1) // 2
        if second < 1:
            raise MyttyError(ErrorCode.SPLIT_FAILED, "tmux: no space for new pane")
        first = size - 1 - second
        before = direction in ("left", "up")
        if horizontal:
            geo_first = (old.left, old.top, first, old.height)
            geo_second = (old.left + first + 1, old.top, second, old.height)
        else:
            geo_first = (old.left, old.top, old.width, first)
            geo_second = (old.left, old.top + first + 1, old.width, second)
        geo_new, geo_old = (geo_first, geo_second) if before else (geo_second, geo_first)
        window = old.window
        pane = self._new_pane(window, command, dict(env), cwd or old.cwd, geo_new)
        old.left, old.top, old.width, old.height = geo_old
        at = window.panes.index(old)
        window.panes.insert(at if before else at + 1, pane)
        on_created(pane.pane_id, pane.pid)
        self._fire("after-split-window")
        return pane.pane_id, pane.pid

    async def new_window(
        self,
        session: str,
        *,
        cwd: str | None,
        env: Mapping[str, str],
        command: str,
        on_created: OnCreated,
        after: str | None = None,
        name: str | None = None,
    ) -> tuple[TmuxPaneId, int]:
        self._sendable(cwd or "", name or "", command, *env, *env.values())
        self._check()
        if after is not None:
            anchor = next(
                (w for s in self.sessions for w in s.windows if w.window_id == after), None
            )
            if anchor is None:
                raise MyttyError(ErrorCode.NEW_TAB_FAILED, f"tmux: can't find window: {after}")
            target = anchor.session
        else:
            found = self._find_session(session)
            if found is None:
                raise MyttyError(ErrorCode.NEW_TAB_FAILED, f"tmux: can't find session: {session}")
            target = found
            assert target.active is not None
            anchor = target.active
        index = anchor.index + 1
        # tmux's -a shifts the windows in the way up by one.
        taken = {w.index for w in target.windows}
        shift = index
        while shift in taken:
            shift += 1
        for window in target.windows:
            if index <= window.index < shift:
                window.index += 1
        pane = self._add_window(target, index, command, dict(env), cwd or target.cwd)
        if name:
            pane.window.name = name
        on_created(pane.pane_id, pane.pid)
        self._fire("window-linked")
        self._fire("after-new-window")
        return pane.pane_id, pane.pid

    async def new_session(
        self,
        name: str,
        *,
        cwd: str,
        env: Mapping[str, str],
        command: str,
        on_created: OnCreated,
    ) -> TmuxPaneId:
        self._refuse(session_name_problem(name))
        self._sendable(name, cwd, command, *env, *env.values())
        self._check()
        if self._find_session(name) is not None:
            raise MyttyError(ErrorCode.NEW_TAB_FAILED, f"tmux: duplicate session: {name}")
        session = self.add_session(name, cwd=cwd, command="exec sleep 30")
        assert session.active is not None and session.active.active is not None
        pane = session.active.active
        on_created(pane.pane_id, 0)
        self._fire("after-new-session")
        await self.respawn(pane.pane_id, env=env, command=command)
        return pane.pane_id

    async def respawn(self, pane_id: str, *, env: Mapping[str, str], command: str) -> None:
        self._sendable(command, *env, *env.values())
        pane = self._find_pane(pane_id, ErrorCode.INTERNAL_ERROR)
        pane.pid = next(self._pids)
        pane.command = command
        pane.env = dict(env)
        pane.lines = [""]

    # -- input --------------------------------------------------------------------------------
    async def send_text(self, pane_id: str, text: str) -> None:
        self._sendable(text)
        pane = self._find_pane(pane_id, ErrorCode.PANE_NOT_FOUND)
        for i, segment in enumerate(text.split("\n")):
            if i:
                self._key(pane, "Enter")
            if segment:
                pane.sent.append(("text", segment))
                pane.lines[-1] += "".join(ch for ch in segment if 0x20 <= ord(ch) != 0x7F)

    async def send_key(self, pane_id: str, key_name: str) -> None:
        self._sendable(key_name)
        self._key(self._find_pane(pane_id, ErrorCode.PANE_NOT_FOUND), key_name)

    @staticmethod
    def _key(pane: FakePane, key_name: str) -> None:
        pane.sent.append(("key", key_name))
        if key_name == "Enter":
            pane.lines.append("")
        elif key_name == "BSpace":
            pane.lines[-1] = pane.lines[-1][:-1]

    # -- screen -------------------------------------------------------------------------------
    async def capture(self, pane_id: str) -> ScreenCapture:
        pane = self._find_pane(pane_id, ErrorCode.PANE_NOT_FOUND)
        lines = [line.rstrip() for line in pane.lines[-MAX_CAPTURE_LINES:]]
        cursor_row: int | None = len(lines) - 1
        cursor_col = len(pane.lines[-1])
        while lines and not lines[-1].strip():
            lines.pop()
        lines, cursor_row = trim_capture(lines, cursor_row)
        return ScreenCapture("\n".join(lines), cursor_row, cursor_col)

    # -- panes, windows, sessions -------------------------------------------------------------
    async def kill_pane(self, pane_id: str) -> None:
        pane = self._find_pane(pane_id, ErrorCode.PANE_NOT_FOUND)
        last = len(pane.window.panes) == 1
        self._remove_pane(pane)
        if last:
            self._fire("window-unlinked")
        self._fire("after-kill-pane")

    async def kill_session(self, name: str) -> None:
        self._check()
        session = self._find_session(name)
        if session is not None:
            self.sessions.remove(session)
            self._fire("session-closed")

    async def focus(self, pane_id: str, window_id: str, session_name: str) -> None:
        pane = self._find_pane(pane_id, ErrorCode.PANE_NOT_FOUND)
        window = next(
            (w for s in self.sessions for w in s.windows if w.window_id == window_id), None
        )
        if window is None:
            raise MyttyError(ErrorCode.PANE_NOT_FOUND, f"tmux: can't find window: {window_id}")
        window.session.active = window
        pane.window.active = pane
        clients = await self.human_clients()
        moves = clients and all(c.session_name != session_name for c in clients)
        if moves and self._find_session(session_name) is not None:
            for human in self.humans:
                if human.name == clients[0].name:
                    human.session_name = session_name

    async def set_pane_option(self, pane_id: str, name: str, value: str) -> None:
        self._refuse(option_name_problem(name))
        self._sendable(name, value)
        self._find_pane(pane_id, ErrorCode.PANE_NOT_FOUND).options[name] = value

    async def set_user_options(self, updates: Sequence[OptionUpdate]) -> None:
        for update in updates:
            self._refuse(option_name_problem(update.name))
            self._sendable(update.target, update.name, update.value or "")
        self._check()
        for update in updates:
            options: dict[str, str] | None
            if update.scope is OptionScope.PANE:
                pane = next((p for p in self._all_panes() if p.pane_id == update.target), None)
                options = pane.options if pane is not None else None
            elif update.scope is OptionScope.SESSION:
                session = self._find_session(update.target)
                options = session.options if session is not None else None
            else:
                options = self.global_options
            if options is None:  # gone: skipped, like tmux's refusal the real port ignores
                continue
            if update.value is None:
                options.pop(update.name, None)
            else:
                options[update.name] = update.value

    # -- server-wide state ----------------------------------------------------------------------
    async def global_env(self, name: str) -> str | None:
        self._check()
        return self.global_environment.get(name)

    async def set_global_env(self, name: str, value: str) -> None:
        self._sendable(name, value)
        self._check()
        self.global_environment[name] = value

    async def unset_global_env(self, name: str) -> None:
        self._check()
        self.global_environment.pop(name, None)

    async def watch_hooks(self, hooks: Sequence[str], index: int) -> None:
        self._check()
        for hook in hooks:
            self.hooks[(hook, index)] = self._own_window.window_id

    async def unwatch_hooks(self, hooks: Sequence[str], index: int) -> None:
        self._check()
        for hook in hooks:
            self.hooks.pop((hook, index), None)

    # -- notifications --------------------------------------------------------------------------
    def human(self, name: str) -> FakeHuman:
        """The attached human client ``name`` (test side; KeyError when there is none)."""
        for human in self.humans:
            if human.name == name:
                return human
        raise KeyError(name)

    async def client_views(self) -> list[ClientView]:
        self._check()
        views = []
        for human in self.humans:
            session = self._find_session(human.session_name)
            window = session.active if session else None
            if window is not None and window.active is not None:
                views.append(
                    ClientView(
                        human.name, human.session_name, window.window_id, window.active.pane_id
                    )
                )
        return views

    async def display_message(self, client_name: str, text: str) -> None:
        self._check()
        try:
            self._sendable(text)
        except MyttyError:
            return  # the real port's _try_run swallows what tmux cannot take, too
        line = "".join(" " if ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)
        line = line[:MAX_MESSAGE_CHARS]
        for human in self.humans:
            if human.name == client_name:
                human.messages.append(line)

    async def write_pane_output(self, pane_id: str, data: bytes) -> None:
        pane = self._find_pane(pane_id, ErrorCode.PANE_NOT_FOUND)
        pane.output.append(data)
        # Printable output lands on the screen at the cursor, like typed text with echo.
        text = "".join(c for c in data.decode("utf-8", "replace") if c.isprintable())
        if text and b"\x1b" not in data:
            pane.lines[-1] += text
