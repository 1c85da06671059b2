"""TmuxPort: every tmux operation the controller needs, over one control-mode connection.

tmux and OS failures become ``MyttyError`` codes here and nowhere else.
"""

from __future__ import annotations

import asyncio
import logging
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.quoting import shell_quote as quote  # tmux reads the same quoting
from mytty.tmux.control_client import (
    ControlClient,
    TmuxCommandError,
    TmuxConnectionLost,
    UnsendableCommand,
)

log = logging.getLogger(__name__)

SURFACE_OPTION = "@mytty_surface"
SEP = "\x1f"

_FIELDS = (
    "pane_id",
    "pane_pid",
    "session_id",
    "session_name",
    "window_id",
    "window_index",
    "pane_index",
    "window_active",
    "pane_active",
    "pane_dead",
    "pane_left",
    "pane_top",
    "pane_width",
    "pane_height",
    "window_width",
    "window_height",
    "session_attached",
    SURFACE_OPTION,
    "pane_current_command",
    "pane_current_path",
    "window_name",
    "window_zoomed_flag",
)
LIST_FORMAT = SEP.join("#{" + f + "}" for f in _FIELDS)


@dataclass(frozen=True, slots=True)
class PaneRow:
    """One line of ``list-panes -a``."""

    pane_id: str
    pane_pid: int
    session_id: str
    session_name: str
    window_id: str
    window_index: int
    pane_index: int
    window_active: bool
    pane_active: bool
    dead: bool
    left: int
    top: int
    width: int
    height: int
    window_width: int
    window_height: int
    session_attached: int
    surface: str
    current_command: str
    current_path: str
    window_name: str
    window_zoomed: bool = False


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def parse_pane_row(line: str) -> PaneRow | None:
    parts = line.split(SEP)
    if len(parts) != len(_FIELDS):
        return None
    (
        pid_,
        ppid,
        sid,
        sname,
        wid,
        widx,
        pidx,
        wact,
        pact,
        dead,
        left,
        top,
        w,
        h,
        ww,
        wh,
        att,
        surface,
        cmd,
        path,
        wname,
        zoomed,
    ) = parts
    return PaneRow(
        pane_id=pid_,
        pane_pid=_int(ppid),
        session_id=sid,
        session_name=sname,
        window_id=wid,
        window_index=_int(widx),
        pane_index=_int(pidx),
        window_active=wact == "1",
        pane_active=pact == "1",
        dead=dead == "1",
        left=_int(left),
        top=_int(top),
        width=_int(w),
        height=_int(h),
        window_width=_int(ww),
        window_height=_int(wh),
        session_attached=_int(att),
        surface=surface,
        current_command=cmd,
        current_path=path,
        window_name=wname,
        window_zoomed=zoomed == "1",
    )


def _cell_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _chars_before_cell(row: str, cell: int) -> int:
    """How many characters of a screen row lie left of column ``cell`` (wide chars take 2)."""
    used = 0
    for count, ch in enumerate(row):
        if used >= cell:
            return count
        used += _cell_width(ch)
    # Past the row's text (blanks are trimmed by capture-pane): one character per cell.
    return len(row) + max(0, cell - used)


@dataclass(frozen=True, slots=True)
class ScreenCapture:
    text: str
    cursor_row: int | None
    cursor_column: int | None


#: At most this many lines of scrollback are returned by ``read``.
MAX_CAPTURE_LINES = 10_000
#: ... and at most this many bytes (oldest lines dropped first).
MAX_CAPTURE_BYTES = 768 * 1024

_DIRECTION_FLAGS = {"right": "-h", "left": "-h -b", "down": "-v", "up": "-v -b"}


def _env_flags(env: Mapping[str, str]) -> str:
    return " ".join(f"-e {quote(f'{k}={v}')}" for k, v in env.items())


class TmuxPort:
    """High-level tmux operations. Create with ``connect()``; one instance per connection."""

    def __init__(self, client: ControlClient) -> None:
        self._client = client

    @property
    def client(self) -> ControlClient:
        return self._client

    async def run(
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

    async def try_run(self, line: str) -> list[str] | None:
        """Run a command whose tmux-level failure is an expected answer (returns None)."""
        try:
            return await self.run(line, fail=ErrorCode.INTERNAL_ERROR)
        except MyttyError as exc:
            if exc.code is ErrorCode.TMUX_UNAVAILABLE:
                raise
            return None

    # -- queries -----------------------------------------------------------------------------
    async def list_panes(self) -> list[PaneRow]:
        lines = await self.run(f"list-panes -a -F {quote(LIST_FORMAT)}")
        rows = [parse_pane_row(line) for line in lines]
        return [r for r in rows if r is not None]

    async def current_window(self) -> str:
        """The id (``@N``) of the window the control client is attached to."""
        lines = await self.run("display-message -p '#{window_id}'")
        if not lines or not lines[0].startswith("@"):
            raise MyttyError(
                ErrorCode.TMUX_UNAVAILABLE, "tmux did not report the control client's window"
            )
        return lines[0]

    async def server_identity(self) -> str:
        """``<pid>@<start time>``: unlike the pid alone, never the same for two servers."""
        lines = await self.run("display-message -p '#{pid}@#{start_time}'")
        return lines[0] if lines else ""

    async def server_pid(self) -> int:
        lines = await self.run("display-message -p '#{pid}'")
        return _int(lines[0]) if lines else 0

    async def human_clients(self) -> list[tuple[str, str, int]]:
        """Attached non-control clients as (name, session name, activity), most recent first."""
        fmt = quote(
            SEP.join(
                [
                    "#{client_name}",
                    "#{client_control_mode}",
                    "#{client_session}",
                    "#{client_activity}",
                ]
            )
        )
        lines = await self.run(f"list-clients -F {fmt}")
        out = []
        for line in lines:
            parts = line.split(SEP)
            if len(parts) == 4 and parts[1] != "1":
                out.append((parts[0], parts[2], _int(parts[3])))
        out.sort(key=lambda c: c[2], reverse=True)
        return out

    # -- pane creation ------------------------------------------------------------------------
    async def split(
        self,
        target: str,
        direction: str,
        *,
        cwd: str | None,
        env: Mapping[str, str],
        command: str,
        on_created: Callable[[str, int], None],
    ) -> tuple[str, int]:
        flags = _DIRECTION_FLAGS[direction]
        cwd_flag = f"-c {quote(cwd)} " if cwd else ""
        line = (
            f"split-window -d {flags} -t {quote(target)} {cwd_flag}{_env_flags(env)} "
            f"-P -F '#{{pane_id}} #{{pane_pid}}' {quote(command)}"
        )
        return await self._create(line, on_created, ErrorCode.SPLIT_FAILED)

    async def new_window(
        self,
        session: str,
        *,
        cwd: str | None,
        env: Mapping[str, str],
        command: str,
        on_created: Callable[[str, int], None],
        after: str | None = None,
        name: str | None = None,
    ) -> tuple[str, int]:
        """A new window in ``session`` (or right after window ``after``), optionally named."""
        cwd_flag = f"-c {quote(cwd)} " if cwd else ""
        name_flag = f"-n {quote(name)} " if name else ""
        target = quote(after) if after else quote(session + ":")
        line = (
            f"new-window -d -a -t {target} {name_flag}{cwd_flag}{_env_flags(env)} "
            f"-P -F '#{{pane_id}} #{{pane_pid}}' {quote(command)}"
        )
        return await self._create(line, on_created, ErrorCode.NEW_TAB_FAILED)

    async def respawn(self, pane_id: str, *, env: Mapping[str, str], command: str) -> None:
        await self.run(f"respawn-pane -k -t {quote(pane_id)} {_env_flags(env)} {quote(command)}")

    async def _create(
        self, line: str, on_created: Callable[[str, int], None], code: ErrorCode
    ) -> tuple[str, int]:
        created: list[tuple[str, int]] = []

        def register(lines: list[str]) -> None:
            if lines:
                pane_id, _, pid = lines[0].partition(" ")
                created.append((pane_id, _int(pid)))
                on_created(pane_id, _int(pid))

        await self.run(line, fail=code, on_reply=register)
        if not created:
            raise MyttyError(code, "tmux did not report the new pane")
        return created[0]

    # -- input --------------------------------------------------------------------------------
    async def send_text(self, pane_id: str, text: str) -> None:
        """Type ``text`` verbatim; every newline becomes an Enter key press."""
        target = quote(pane_id)
        for i, segment in enumerate(text.split("\n")):
            if i:
                await self.run(f"send-keys -t {target} Enter", fail=ErrorCode.PANE_NOT_FOUND)
            if not segment:
                continue
            # Control characters cannot travel on a control-mode line: send those as hex bytes.
            chunk: list[str] = []
            for ch in segment:
                if ord(ch) < 0x20 or ord(ch) == 0x7F:
                    if chunk:
                        await self.run(
                            f"send-keys -t {target} -l {quote(''.join(chunk))}",
                            fail=ErrorCode.PANE_NOT_FOUND,
                        )
                        chunk = []
                    await self.run(
                        f"send-keys -t {target} -H {ord(ch):02x}", fail=ErrorCode.PANE_NOT_FOUND
                    )
                else:
                    chunk.append(ch)
            if chunk:
                await self.run(
                    f"send-keys -t {target} -l {quote(''.join(chunk))}",
                    fail=ErrorCode.PANE_NOT_FOUND,
                )

    async def send_key(self, pane_id: str, key_name: str) -> None:
        await self.run(
            f"send-keys -t {quote(pane_id)} {quote(key_name)}", fail=ErrorCode.PANE_NOT_FOUND
        )

    # -- screen -------------------------------------------------------------------------------
    async def capture(self, pane_id: str) -> ScreenCapture:
        target = quote(pane_id)
        cursor_fmt = quote("#{cursor_x} #{cursor_y} #{history_size} #{pane_in_mode}")
        # Issue both before awaiting: tmux runs them back to back, so they describe one moment.
        text_task = asyncio.ensure_future(
            self.run(
                f"capture-pane -p -J -t {target} -S -{MAX_CAPTURE_LINES} -E -",
                fail=ErrorCode.PANE_NOT_FOUND,
            )
        )
        before_task = asyncio.ensure_future(
            self.run(f"display-message -p -t {target} {cursor_fmt}", fail=ErrorCode.PANE_NOT_FOUND)
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
            cx, cy, hist = _int(info[0]), _int(info[1]), _int(info[2])
            # The rows up to the cursor's row, joined like the text, end with the cursor's
            # logical line; when the row above wraps into the cursor's row, the cursor's
            # column counts that row's characters too (cursor_x only counts cells in its row).
            start = f"-S -{MAX_CAPTURE_LINES}"
            pending = [
                self.run(
                    f"capture-pane -p -J -t {target} {start} -E {cy}", fail=ErrorCode.PANE_NOT_FOUND
                ),
                self.run(
                    f"capture-pane -p -t {target} -S {cy} -E {cy}", fail=ErrorCode.PANE_NOT_FOUND
                ),
            ]
            if cy > 0 or hist > 0:
                pending.append(
                    self.run(
                        f"capture-pane -p -J -t {target} {start} -E {cy - 1}",
                        fail=ErrorCode.PANE_NOT_FOUND,
                    )
                )
            through, row, *rest = await asyncio.gather(*pending)
            above = rest[0] if rest else []
            cursor_row = max(0, len(through) - 1)
            continued = bool(above) and len(through) == len(above)
            prefix = len(above[-1]) if continued else 0
            cursor_col = prefix + _chars_before_cell(row[0] if row else "", cx)
        # Keep the newest lines inside the byte budget.
        total = 0
        keep = len(lines)
        for i in range(len(lines) - 1, -1, -1):
            total += len(lines[i].encode("utf-8")) + 1
            if total > MAX_CAPTURE_BYTES:
                keep = len(lines) - 1 - i
                break
        dropped = len(lines) - keep
        if dropped:
            lines = lines[dropped:]
            if cursor_row is not None:
                cursor_row = max(0, cursor_row - dropped)
        return ScreenCapture("\n".join(lines), cursor_row, cursor_col)

    # -- panes and windows ---------------------------------------------------------------------
    async def kill_pane(self, pane_id: str) -> None:
        await self.run(f"kill-pane -t {quote(pane_id)}", fail=ErrorCode.PANE_NOT_FOUND)

    async def focus(self, pane_id: str, window_id: str, session_name: str) -> None:
        await self.run(f"select-window -t {quote(window_id)}", fail=ErrorCode.PANE_NOT_FOUND)
        await self.run(f"select-pane -t {quote(pane_id)}", fail=ErrorCode.PANE_NOT_FOUND)
        clients = await self.human_clients()
        if clients and all(c[1] != session_name for c in clients):
            await self.try_run(f"switch-client -c {quote(clients[0][0])} -t {quote(session_name)}")

    async def set_pane_option(self, pane_id: str, name: str, value: str) -> None:
        await self.run(
            f"set-option -p -t {quote(pane_id)} {name} {quote(value)}",
            fail=ErrorCode.PANE_NOT_FOUND,
        )

    async def global_env(self, name: str) -> str | None:
        """The value of ``name`` in tmux's global environment (None when unset)."""
        lines = await self.try_run(f"show-environment -g {quote(name)}")
        prefix = name + "="
        if lines and lines[0].startswith(prefix):
            return lines[0][len(prefix) :]
        return None

    async def set_global_env(self, name: str, value: str) -> None:
        await self.run(f"set-environment -g {name} {quote(value)}")

    async def set_hook(self, hook: str, index: int, command: str) -> None:
        await self.run(f"set-hook -g {quote(f'{hook}[{index}]')} {quote(command)}")

    async def unset_hook(self, hook: str, index: int) -> None:
        await self.try_run(f"set-hook -gu {quote(f'{hook}[{index}]')}")

    async def has_session(self, name: str) -> bool:
        return await self.try_run(f"has-session -t {quote('=' + name)}") is not None
