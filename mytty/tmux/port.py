"""The tmux seam: what the controller can ask of tmux, as typed verbs.

:class:`TmuxPort` is the contract every other package codes against. Two implementations:
:class:`mytty.tmux.control_port.ControlModePort` (the real one, over one control-mode
connection; create it with :func:`mytty.tmux.control_port.connect`) and
:class:`mytty.tmux.fake.FakeTmux` (in memory, for tests). ``tests/tmux/test_port_conformance.py``
runs one suite against both.

Failures are ``MyttyError`` codes: a missing target is the verb's own code (``pane-not-found``,
``split-failed``, ``new-tab-failed``), a lost or silent server ``tmux-unavailable``, text tmux
cannot take on a command line (a lone surrogate) ``invalid-request``. tmux and OS
errors become these codes in the implementations and nowhere else.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple, Protocol

from mytty.core.ids import TmuxPaneId
from mytty.tmux.literal import FIELD_SEPARATOR, from_one_line, one_line

SURFACE_OPTION = "@mytty_surface"
#: The session the controller's control-mode client sits in: not the user's, never listed.
PRIVATE_SESSION = "_mytty"
SEP = FIELD_SEPARATOR

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
#: Fields anybody can fill with any text (a newline, the separator): listed escaped. A session
#: name needs no escape: tmux vis-encodes control characters in it.
_FREE_TEXT = frozenset({SURFACE_OPTION, "pane_current_command", "pane_current_path", "window_name"})
LIST_FORMAT = SEP.join(one_line(f) if f in _FREE_TEXT else "#{" + f + "}" for f in _FIELDS)


@dataclass(frozen=True, slots=True)
class PaneRow:
    """One line of ``list-panes -a``."""

    pane_id: TmuxPaneId
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


def parse_int(text: str) -> int:
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
        pane_id=TmuxPaneId(pid_),
        pane_pid=parse_int(ppid),
        session_id=sid,
        session_name=sname,
        window_id=wid,
        window_index=parse_int(widx),
        pane_index=parse_int(pidx),
        window_active=wact == "1",
        pane_active=pact == "1",
        dead=dead == "1",
        left=parse_int(left),
        top=parse_int(top),
        width=parse_int(w),
        height=parse_int(h),
        window_width=parse_int(ww),
        window_height=parse_int(wh),
        session_attached=parse_int(att),
        surface=from_one_line(surface),
        current_command=from_one_line(cmd),
        current_path=from_one_line(path),
        window_name=from_one_line(wname),
        window_zoomed=zoomed == "1",
    )


def _cell_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def chars_before_cell(row: str, cell: int) -> int:
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


def trim_capture(lines: list[str], cursor_row: int | None) -> tuple[list[str], int | None]:
    """Keep the newest lines inside :data:`MAX_CAPTURE_BYTES`; shift the cursor row to match."""
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
    return lines, cursor_row


class HumanClient(NamedTuple):
    """An attached tmux client that is not in control mode (a human's terminal)."""

    name: str
    session_name: str
    activity: int


class ClientView(NamedTuple):
    """What an attached human's client shows: its session, window and that window's active pane."""

    name: str
    session_name: str
    window_id: str
    pane_id: TmuxPaneId


def passthrough(sequence: bytes) -> bytes:
    """``sequence`` wrapped so tmux hands it to the outer terminal unchanged.

    tmux forwards the body of ``ESC P tmux; ... ESC \\`` (every ESC inside doubled) to the
    terminals of the clients showing the pane, when ``allow-passthrough`` is on.
    """
    return b"\x1bPtmux;" + sequence.replace(b"\x1b", b"\x1b\x1b") + b"\x1b\\"


#: Called with (tmux pane id, pane pid) as soon as tmux reports a new pane, before any later
#: notification is handled: register the pane there, or a racing reconcile adopts it as foreign.
OnCreated = Callable[[TmuxPaneId, int], None]


class OptionScope(StrEnum):
    """Where a user option (``@name``) lives: on one pane, one session, or the whole server."""

    PANE = "pane"
    SESSION = "session"
    GLOBAL = "global"


class OptionUpdate(NamedTuple):
    """One user option to set (``value`` a string, possibly empty) or unset (``value`` None).

    ``target`` is a pane id (``%N``) for :attr:`OptionScope.PANE`, a session name for
    :attr:`OptionScope.SESSION`, and ignored for :attr:`OptionScope.GLOBAL`.
    """

    scope: OptionScope
    target: str
    name: str
    value: str | None


#: Where a split puts the new pane, relative to the pane it splits.
SPLIT_DIRECTIONS = ("right", "left", "down", "up")


class TmuxPort(Protocol):
    """Every tmux operation the controller performs."""

    # -- queries ------------------------------------------------------------------------------
    async def list_panes(self) -> list[PaneRow]:
        """Every pane of the server, in every session (the controller's own included)."""
        ...

    async def current_window(self) -> str:
        """The id (``@N``) of the window the port's own client is attached to."""
        ...

    async def server_pid(self) -> int: ...

    async def server_identity(self) -> str:
        """``<pid>@<start time>``: unlike the pid alone, never the same for two servers."""
        ...

    async def human_clients(self) -> list[HumanClient]:
        """Attached non-control clients, most recently active first."""
        ...

    async def has_session(self, name: str) -> bool: ...

    # -- creating panes -------------------------------------------------------------------------
    async def split(
        self,
        target: TmuxPaneId,
        direction: str,
        *,
        cwd: str | None,
        env: Mapping[str, str],
        command: str,
        on_created: OnCreated,
    ) -> tuple[TmuxPaneId, int]:
        """Split pane ``target`` (``direction`` in :data:`SPLIT_DIRECTIONS`) without focusing.

        ``env`` is set for the new pane only; ``command`` is shell text. Returns (pane id, pid);
        ``split-failed`` when tmux refuses.
        """
        ...

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
        """A new window right after the current one of ``session`` (or after window ``after``,
        ``@N``), named ``name`` if given; later windows move up one. ``new-tab-failed`` when
        refused."""
        ...

    async def new_session(
        self,
        name: str,
        *,
        cwd: str,
        env: Mapping[str, str],
        command: str,
        on_created: OnCreated,
    ) -> TmuxPaneId:
        """A new detached session whose first pane gets ``env`` (that pane only) and ``command``.

        tmux's ``new-session -e`` would put ``env`` into the session's environment, inherited
        by every later pane there, so the pane starts as a placeholder and is respawned with
        the environment. ``on_created`` sees the pane id and pid 0 (the pid changes with the
        respawn; the next listing has it). ``new-tab-failed`` when the session exists.
        """
        ...

    async def respawn(self, pane_id: TmuxPaneId, *, env: Mapping[str, str], command: str) -> None:
        """Kill the pane's process and start ``command`` in it with ``env``."""
        ...

    # -- input ----------------------------------------------------------------------------------
    async def send_text(self, pane_id: TmuxPaneId, text: str) -> None:
        """Type ``text`` verbatim; every newline becomes an Enter key press."""
        ...

    async def send_key(self, pane_id: TmuxPaneId, key_name: str) -> None:
        """Press one key by its tmux name (validate names first: tmux types unknown ones)."""
        ...

    # -- screen ---------------------------------------------------------------------------------
    async def capture(self, pane_id: TmuxPaneId) -> ScreenCapture:
        """Scrollback plus screen (at most :data:`MAX_CAPTURE_LINES` and ``_BYTES``), cursor."""
        ...

    # -- panes, windows, sessions ---------------------------------------------------------------
    async def kill_pane(self, pane_id: TmuxPaneId) -> None: ...

    async def kill_session(self, name: str) -> None:
        """End session ``name`` (exact name); nothing happens when it does not exist."""
        ...

    async def focus(self, pane_id: TmuxPaneId, window_id: str, session_name: str) -> None:
        """Select the pane and its window; move the human's client there if it is elsewhere."""
        ...

    async def set_pane_option(self, pane_id: TmuxPaneId, name: str, value: str) -> None:
        """Set the pane user option ``name`` (``@...``; :data:`SURFACE_OPTION` is in rows)."""
        ...

    async def set_user_options(self, updates: Sequence[OptionUpdate]) -> None:
        """Apply every update, in order, as one pipelined batch (no reply awaited in between).

        Names are user options (``@...``). An update whose pane or session no longer exists is
        skipped (the thing it described is gone); only a lost server fails the batch
        (``tmux-unavailable``), text tmux cannot take fails it before anything is sent
        (``invalid-request``).
        """
        ...

    # -- server-wide state ----------------------------------------------------------------------
    async def global_env(self, name: str) -> str | None:
        """The value of ``name`` in tmux's global environment (None when unset)."""
        ...

    async def set_global_env(self, name: str, value: str) -> None: ...

    async def unset_global_env(self, name: str) -> None:
        """Remove ``name`` from the global environment (no error when it is not set)."""
        ...

    async def watch_hooks(self, hooks: Sequence[str], index: int) -> None:
        """Make each global hook in ``hooks`` (at array ``index``) rename the port's own window
        to ``mytty-<hook>`` (see :mod:`mytty.tmux.hooks`)."""
        ...

    async def unwatch_hooks(self, hooks: Sequence[str], index: int) -> None:
        """Remove what :meth:`watch_hooks` set (no error for hooks that are not set)."""
        ...

    # -- notifications --------------------------------------------------------------------------
    async def client_views(self) -> list[ClientView]:
        """What every attached human's client (not control mode) is showing right now."""
        ...

    async def display_message(self, client_name: str, text: str) -> None:
        """Show ``text`` (literally, one line) on a client's status line (a gone one: nothing)."""
        ...

    async def write_pane_output(self, pane_id: TmuxPaneId, data: bytes) -> None:
        """Write ``data`` to the pane's terminal as if its program had printed it.

        tmux then treats it as that pane's output: a BEL rings the pane's bell (``monitor-bell``,
        ``bell-action``), a :func:`passthrough` sequence reaches the outer terminals showing it.
        ``pane-not-found`` when the pane is gone; never blocks on a stopped terminal.
        """
        ...
