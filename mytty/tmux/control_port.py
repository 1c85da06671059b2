"""The real :class:`~mytty.tmux.port.TmuxPort`: verbs as command lines on one control-mode
connection (see :mod:`mytty.tmux.control_client`).

Only this module spells tmux command lines for the controller. Each verb is one or a few
commands; a tmux ``%error`` becomes the verb's ``MyttyError`` code, a lost connection or a
silent server ``tmux-unavailable``.

Every argument is a :func:`~mytty.tmux.literal.word`, free text after ``--`` where it is a
positional argument (tmux took a message ``-0`` for flags), and every argument tmux format-expands
(``-c``, ``-n``, ``-s``, the message of ``display-message``) is escaped for that first (see
:mod:`mytty.tmux.literal` for what tmux 3.3a expands): a directory, a name or a message is
text, never a format, a style or a shell command. Session targets are exact (``=name``).
Names tmux would change (a session name with ``:``, an option name that is not ``@word``) are
``invalid-request`` before anything is sent.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
from collections.abc import Callable, Mapping, Sequence

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.ids import TmuxPaneId
from mytty.tmux import bootstrap
from mytty.tmux.control_client import (
    ControlClient,
    TmuxCommandError,
    TmuxConnectionLost,
    UnsendableCommand,
    encode_line,
)
from mytty.tmux.hooks import hook_slot, rename_command
from mytty.tmux.literal import (
    format_text,
    message_text,
    option_name_problem,
    session_name_problem,
)
from mytty.tmux.literal import word as quote
from mytty.tmux.port import (
    LIST_FORMAT,
    MAX_CAPTURE_LINES,
    SEP,
    ClientView,
    HumanClient,
    OnCreated,
    OptionScope,
    OptionUpdate,
    PaneRow,
    ScreenCapture,
    chars_before_cell,
    parse_int,
    parse_pane_row,
    trim_capture,
)

log = logging.getLogger(__name__)

_DIRECTION_FLAGS = {"right": "-h", "left": "-h -b", "down": "-v", "up": "-v -b"}
#: What a new pane prints back: its id and its process id.
_NEW_PANE_FORMAT = "-P -F '#{pane_id} #{pane_pid}'"
#: The first process of a session made by ``new_session``, replaced at once by the respawn.
_PLACEHOLDER = "exec sleep 30"
#: How long ``display_message`` keeps its text on a client's status line (milliseconds).
_MESSAGE_MS = 5000


def _env_flags(env: Mapping[str, str]) -> str:
    return " ".join(f"-e {quote(f'{k}={v}')}" for k, v in env.items())


def _refuse(problem: str | None) -> None:
    if problem is not None:
        raise MyttyError(ErrorCode.INVALID_REQUEST, f"text tmux cannot take: {problem}")


def _cwd_flag(cwd: str | None) -> str:
    return f"-c {quote(format_text(cwd))} " if cwd else ""


def _option_line(update: OptionUpdate) -> str:
    """``set-option`` for one user option; ``-q`` is not used: a gone target must say so.

    The value is not format-expanded (no ``-F``); the name is, so it must be a plain ``@word``.
    """
    _refuse(option_name_problem(update.name))
    if update.scope is OptionScope.PANE:
        where = f"-p -t {quote(update.target)}"
    elif update.scope is OptionScope.SESSION:
        # Exactly this session: in 3.3a the option target takes ``=name:``, not ``=name``.
        where = f"-t {quote('=' + update.target + ':')}"
    else:
        where = "-g"
    if update.value is None:
        return f"set-option -u {where} {quote(update.name)}"
    return f"set-option {where} {quote(update.name)} {quote(update.value)}"


def _respawn_line(pane_id: str, env: Mapping[str, str], command: str) -> str:
    return f"respawn-pane -k -t {quote(pane_id)} {_env_flags(env)} {quote(command)}"


def _exact(session: str) -> str:
    """A target that names exactly this session (tmux would otherwise match prefixes)."""
    return quote("=" + session)


async def connect(
    socket_path: str, session: str, on_notification: Callable[[str, str], None]
) -> ControlModePort:
    """Attach a control-mode client to ``session`` of the server at ``socket_path``.

    ``on_notification(kind, rest)`` sees every notification (``%window-renamed`` …).
    """
    client = ControlClient(bootstrap.tmux_argv(socket_path), f"={session}", on_notification)
    await client.start()
    return ControlModePort(client)


class ControlModePort:
    """High-level tmux operations over one connection; create it with :func:`connect`."""

    def __init__(self, client: ControlClient) -> None:
        self._client = client

    # -- the connection -------------------------------------------------------------------------
    async def wait_closed(self) -> None:
        """Return once the connection has ended (server gone, client detached, closed)."""
        await self._client.closed.wait()

    async def close(self) -> None:
        await self._client.close()

    async def _run(
        self,
        line: str,
        *,
        fail: ErrorCode = ErrorCode.INTERNAL_ERROR,
        on_reply: Callable[[list[str]], None] | None = None,
    ) -> list[str]:
        """Run one command; a tmux ``%error`` becomes ``MyttyError(fail)``."""
        try:
            return await self._client.command(line, on_reply=on_reply)
        except TmuxCommandError as exc:
            raise MyttyError(fail, f"tmux: {exc}") from None
        except TmuxConnectionLost as exc:
            raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, f"tmux is not reachable: {exc}") from None
        except TimeoutError:
            raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, "tmux did not answer in time") from None
        except UnsendableCommand as exc:  # nothing was sent: the connection is unaffected
            raise MyttyError(ErrorCode.INVALID_REQUEST, f"text tmux cannot take: {exc}") from None

    async def _try_run(self, line: str) -> list[str] | None:
        """Run a command whose tmux-level failure is an expected answer (returns None)."""
        try:
            return await self._run(line, fail=ErrorCode.INTERNAL_ERROR)
        except MyttyError as exc:
            if exc.code is ErrorCode.TMUX_UNAVAILABLE:
                raise
            return None

    # -- queries --------------------------------------------------------------------------------
    async def list_panes(self) -> list[PaneRow]:
        lines = await self._run(f"list-panes -a -F {quote(LIST_FORMAT)}")
        rows = [parse_pane_row(line) for line in lines]
        return [r for r in rows if r is not None]

    async def current_window(self) -> str:
        lines = await self._run("display-message -p '#{window_id}'")
        if not lines or not lines[0].startswith("@"):
            raise MyttyError(
                ErrorCode.TMUX_UNAVAILABLE, "tmux did not report the control client's window"
            )
        return lines[0]

    async def server_identity(self) -> str:
        lines = await self._run(f"display-message -p {quote(bootstrap.SERVER_IDENTITY_FORMAT)}")
        return lines[0] if lines else ""

    async def server_pid(self) -> int:
        lines = await self._run("display-message -p '#{pid}'")
        return parse_int(lines[0]) if lines else 0

    async def human_clients(self) -> list[HumanClient]:
        fields = ["#{client_name}", "#{client_control_mode}", "#{client_session}"]
        fmt = quote(SEP.join([*fields, "#{client_activity}"]))
        lines = await self._run(f"list-clients -F {fmt}")
        out = []
        for line in lines:
            parts = line.split(SEP)
            if len(parts) == 4 and parts[1] != "1":
                out.append(HumanClient(parts[0], parts[2], parse_int(parts[3])))
        out.sort(key=lambda c: c.activity, reverse=True)
        return out

    async def has_session(self, name: str) -> bool:
        return await self._try_run(f"has-session -t {_exact(name)}") is not None

    # -- creating panes -------------------------------------------------------------------------
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
        flags = _DIRECTION_FLAGS[direction]
        line = (
            f"split-window -d {flags} -t {quote(target)} {_cwd_flag(cwd)}{_env_flags(env)} "
            f"{_NEW_PANE_FORMAT} {quote(command)}"
        )
        return await self._create(line, on_created, ErrorCode.SPLIT_FAILED)

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
        name_flag = f"-n {quote(format_text(name))} " if name else ""
        target = quote(after) if after else quote("=" + session + ":")
        line = (
            f"new-window -d -a -t {target} {name_flag}{_cwd_flag(cwd)}{_env_flags(env)} "
            f"{_NEW_PANE_FORMAT} {quote(command)}"
        )
        return await self._create(line, on_created, ErrorCode.NEW_TAB_FAILED)

    async def new_session(
        self,
        name: str,
        *,
        cwd: str,
        env: Mapping[str, str],
        command: str,
        on_created: OnCreated,
    ) -> TmuxPaneId:
        _refuse(session_name_problem(name))
        line = (
            f"new-session -d -s {quote(format_text(name))} {_cwd_flag(cwd)}"
            f"{_NEW_PANE_FORMAT} {quote(_PLACEHOLDER)}"
        )
        try:  # the respawn's text is checked first: no session is left behind for it
            encode_line(_respawn_line("%0", env, command), 0)
        except UnsendableCommand as exc:
            raise MyttyError(ErrorCode.INVALID_REQUEST, f"text tmux cannot take: {exc}") from None
        pane_id, _pid = await self._create(
            line, lambda pane, _pid: on_created(pane, 0), ErrorCode.NEW_TAB_FAILED
        )
        await self.respawn(pane_id, env=env, command=command)
        return pane_id

    async def respawn(self, pane_id: str, *, env: Mapping[str, str], command: str) -> None:
        await self._run(_respawn_line(pane_id, env, command))

    async def _create(
        self, line: str, on_created: OnCreated, code: ErrorCode
    ) -> tuple[TmuxPaneId, int]:
        created: list[tuple[TmuxPaneId, int]] = []

        def register(lines: list[str]) -> None:
            if lines:
                text, _, pid = lines[0].partition(" ")
                pane_id = TmuxPaneId(text)
                created.append((pane_id, parse_int(pid)))
                on_created(pane_id, parse_int(pid))

        await self._run(line, fail=code, on_reply=register)
        if not created:
            raise MyttyError(code, "tmux did not report the new pane")
        return created[0]

    # -- input ----------------------------------------------------------------------------------
    async def send_text(self, pane_id: str, text: str) -> None:
        target = quote(pane_id)
        for i, segment in enumerate(text.split("\n")):
            if i:
                await self._run(f"send-keys -t {target} Enter", fail=ErrorCode.PANE_NOT_FOUND)
            if not segment:
                continue
            # Control characters cannot travel on a control-mode line: send those as hex bytes.
            chunk: list[str] = []
            for ch in segment:
                if ord(ch) < 0x20 or ord(ch) == 0x7F:
                    if chunk:
                        await self._run(
                            f"send-keys -t {target} -l -- {quote(''.join(chunk))}",
                            fail=ErrorCode.PANE_NOT_FOUND,
                        )
                        chunk = []
                    await self._run(
                        f"send-keys -t {target} -H {ord(ch):02x}", fail=ErrorCode.PANE_NOT_FOUND
                    )
                else:
                    chunk.append(ch)
            if chunk:
                await self._run(
                    f"send-keys -t {target} -l -- {quote(''.join(chunk))}",
                    fail=ErrorCode.PANE_NOT_FOUND,
                )

    async def send_key(self, pane_id: str, key_name: str) -> None:
        await self._run(
            f"send-keys -t {quote(pane_id)} -- {quote(key_name)}", fail=ErrorCode.PANE_NOT_FOUND
        )

    # -- screen ---------------------------------------------------------------------------------
    async def capture(self, pane_id: str) -> ScreenCapture:
        target = quote(pane_id)
        cursor_fmt = quote("#{cursor_x} #{cursor_y} #{history_size} #{pane_in_mode}")
        # Issue both before awaiting: tmux runs them back to back, so they describe one moment.
        text_task = asyncio.ensure_future(
            self._run(
                f"capture-pane -p -J -t {target} -S -{MAX_CAPTURE_LINES} -E -",
                fail=ErrorCode.PANE_NOT_FOUND,
            )
        )
        before_task = asyncio.ensure_future(
            self._run(f"display-message -p -t {target} {cursor_fmt}", fail=ErrorCode.PANE_NOT_FOUND)
        )
        lines = await text_task
        info_lines = await before_task
        info = info_lines[0].split() if info_lines else []
        while lines and not lines[-1].strip():
            lines.pop()
        lines = [line.rstrip() for line in lines]
        cursor_row: int | None = None
        cursor_col: int | None = None
        if len(info) == 4:
            cx, cy, hist = parse_int(info[0]), parse_int(info[1]), parse_int(info[2])
            # The rows up to the cursor's row, joined like the text, end with the cursor's
            # logical line; when the row above wraps into the cursor's row, the cursor's
            # column counts that row's characters too (cursor_x only counts cells in its row).
            start = f"-S -{MAX_CAPTURE_LINES}"
            pending = [
                self._run(
                    f"capture-pane -p -J -t {target} {start} -E {cy}", fail=ErrorCode.PANE_NOT_FOUND
                ),
                self._run(
                    f"capture-pane -p -t {target} -S {cy} -E {cy}", fail=ErrorCode.PANE_NOT_FOUND
                ),
            ]
            if cy > 0 or hist > 0:
                pending.append(
                    self._run(
                        f"capture-pane -p -J -t {target} {start} -E {cy - 1}",
                        fail=ErrorCode.PANE_NOT_FOUND,
                    )
                )
            through, row, *rest = await asyncio.gather(*pending)
            above = rest[0] if rest else []
            cursor_row = max(0, len(through) - 1)
            continued = bool(above) and len(through) == len(above)
            prefix = len(above[-1]) if continued else 0
            cursor_col = prefix + chars_before_cell(row[0] if row else "", cx)
        lines, cursor_row = trim_capture(lines, cursor_row)
        return ScreenCapture("\n".join(lines), cursor_row, cursor_col)

    # -- panes, windows, sessions ---------------------------------------------------------------
    async def kill_pane(self, pane_id: str) -> None:
        await self._run(f"kill-pane -t {quote(pane_id)}", fail=ErrorCode.PANE_NOT_FOUND)

    async def kill_session(self, name: str) -> None:
        await self._try_run(f"kill-session -t {_exact(name)}")

    async def focus(self, pane_id: str, window_id: str, session_name: str) -> None:
        await self._run(f"select-window -t {quote(window_id)}", fail=ErrorCode.PANE_NOT_FOUND)
        await self._run(f"select-pane -t {quote(pane_id)}", fail=ErrorCode.PANE_NOT_FOUND)
        clients = await self.human_clients()
        if clients and all(c.session_name != session_name for c in clients):
            await self._try_run(
                f"switch-client -c {quote(clients[0].name)} -t {_exact(session_name)}"
            )

    async def set_pane_option(self, pane_id: str, name: str, value: str) -> None:
        _refuse(option_name_problem(name))
        await self._run(
            f"set-option -p -t {quote(pane_id)} {quote(name)} {quote(value)}",
            fail=ErrorCode.PANE_NOT_FOUND,
        )

    async def set_user_options(self, updates: Sequence[OptionUpdate]) -> None:
        lines = [_option_line(update) for update in updates]
        if not lines:
            return
        # Every line is written at once before the first reply is awaited: one round trip.
        try:
            results = await self._client.commands(lines)
        except UnsendableCommand as exc:  # refused before anything is sent
            raise MyttyError(ErrorCode.INVALID_REQUEST, f"text tmux cannot take: {exc}") from None
        except (TmuxConnectionLost, TimeoutError) as exc:
            raise MyttyError(ErrorCode.TMUX_UNAVAILABLE, f"tmux is not reachable: {exc}") from None
        for result in results:
            if isinstance(result, TmuxConnectionLost | TimeoutError):
                raise MyttyError(
                    ErrorCode.TMUX_UNAVAILABLE, f"tmux is not reachable: {result}"
                ) from None
            if isinstance(result, BaseException) and not isinstance(result, TmuxCommandError):
                raise result

    # -- server-wide state ----------------------------------------------------------------------
    async def global_env(self, name: str) -> str | None:
        lines = await self._try_run(f"show-environment -g {quote(name)}")
        prefix = name + "="
        if lines and lines[0].startswith(prefix):
            return lines[0][len(prefix) :]
        return None

    async def set_global_env(self, name: str, value: str) -> None:
        await self._run(f"set-environment -g {quote(name)} {quote(value)}")

    async def unset_global_env(self, name: str) -> None:
        await self._try_run(f"set-environment -gu {quote(name)}")

    async def watch_hooks(self, hooks: Sequence[str], index: int) -> None:
        window = await self.current_window()
        for hook in hooks:
            await self._run(
                f"set-hook -g {quote(hook_slot(hook, index))} {quote(rename_command(window, hook))}"
            )

    async def unwatch_hooks(self, hooks: Sequence[str], index: int) -> None:
        for hook in hooks:
            await self._try_run(f"set-hook -gu {quote(hook_slot(hook, index))}")

    # -- notifications --------------------------------------------------------------------------
    async def client_views(self) -> list[ClientView]:
        # In list-clients, the window and pane formats are the client's current window and
        # its active pane: what the human sees.
        fields = ["client_name", "client_control_mode", "client_session", "window_id", "pane_id"]
        fmt = quote(SEP.join("#{" + f + "}" for f in fields))
        out = []
        for line in await self._run(f"list-clients -F {fmt}"):
            parts = line.split(SEP)
            if len(parts) == 5 and parts[1] != "1" and parts[4].startswith("%"):
                out.append(ClientView(parts[0], parts[2], parts[3], TmuxPaneId(parts[4])))
        return out

    async def display_message(self, client_name: str, text: str) -> None:
        # tmux runs the text through strftime, the format expander and the status line's
        # style drawing: message_text undoes all three (doubling "#" alone showed "##" as "#"
        # and "%d" as the day of the month).
        line = message_text(text)
        # tmux falls back to another client for a name it does not know rather than failing;
        # the callers name clients they just listed.
        await self._try_run(
            f"display-message -d {_MESSAGE_MS} -c {quote(client_name)} -- {quote(line)}"
        )

    async def write_pane_output(self, pane_id: str, data: bytes) -> None:
        lines = await self._run(
            f"display-message -p -t {quote(pane_id)} '#{{pane_tty}}'", fail=ErrorCode.PANE_NOT_FOUND
        )
        tty = lines[0] if lines else ""
        if not tty.startswith("/dev/"):
            raise MyttyError(ErrorCode.PANE_NOT_FOUND, f"tmux reported no terminal for {pane_id}")
        try:
            fd = os.open(tty, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError as exc:
            raise MyttyError(
                ErrorCode.PANE_NOT_FOUND, f"cannot open {tty}: {exc.strerror or exc}"
            ) from None
        try:
            # One write: the kernel keeps it whole against the pane program's own output.
            os.write(fd, data)
        except OSError as exc:
            if exc.errno != errno.EAGAIN:  # a stopped terminal just misses this one
                raise MyttyError(
                    ErrorCode.PANE_NOT_FOUND, f"cannot write to {tty}: {exc.strerror or exc}"
                ) from None
            log.debug("%s is not taking output; dropped %d bytes", tty, len(data))
        finally:
            os.close(fd)
