"""The lines shell integration appends to ``$MYTTY_HOME/shell/<surface>.ev``, read strictly.

One line per event, written by ``shell-integration/mytty.{bash,zsh,fish}`` with builtins only::

    D <exit 0-255> <shell time|-> <capability> <percent-encoded cwd>\\n   a command line finished
    P - <shell time|-> <capability> <percent-encoded cwd>\\n              the shell's first prompt

Any process of the user can write into that directory, so every line is untrusted: it must
match exactly, stay under :data:`MAX_LINE` bytes and carry the pane's capability (checked by
the caller, which knows the panes); anything else is dropped without a word. Parsing is O(line
length); :class:`LineSplitter` turns appended chunks into whole lines with bounded memory.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

#: Longest accepted line: a 4096-byte path percent-encoded three times over, plus the rest.
MAX_LINE = 16 * 1024

_LINE = re.compile(
    rb"(?P<kind>[DP]) (?P<status>[0-9]{1,3}|-) (?P<time>[0-9]{1,12}(?:[.,][0-9]{1,12})?|-)"
    rb" (?P<cap>[0-9A-F]{64}) (?P<cwd>/(?:[A-Za-z0-9/._~-]|%[0-9A-Fa-f]{2})*)"
)
#: ``<surface id>.ev``: surface ids are upper-case UUIDs.
FILE_NAME = re.compile(r"([0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12})\.ev")


@dataclass(frozen=True, slots=True)
class ShellEvent:
    finished: bool  # D: a command finished; P: a prompt with nothing finished
    exit_status: int | None
    shell_time: float | None  # the shell's clock, when it has one (fish has none)
    capability: str
    cwd: str


def parse_line(line: bytes) -> ShellEvent | None:
    """One line without its newline, or None when it is not exactly a valid event."""
    if len(line) > MAX_LINE:
        return None
    m = _LINE.fullmatch(line)
    if m is None:
        return None
    finished = m["kind"] == b"D"
    status: int | None = None
    if finished:
        if m["status"] == b"-":
            return None
        status = int(m["status"])
        if status > 255:
            return None
    elif m["status"] != b"-":
        return None
    shell_time: float | None = None
    if m["time"] != b"-":
        shell_time = float(m["time"].replace(b",", b"."))  # a locale may write a comma
        if not math.isfinite(shell_time):
            return None
    raw = unquote_to_bytes(m["cwd"])
    if b"\0" in raw:
        return None
    return ShellEvent(
        finished, status, shell_time, m["cap"].decode(), raw.decode("utf-8", "replace")
    )


class LineSplitter:
    """Whole lines out of appended chunks; a line longer than ``MAX_LINE`` is skipped whole."""

    __slots__ = ("_partial", "_skipping")

    def __init__(self) -> None:
        self._partial = b""
        self._skipping = False  # inside an over-long line: drop bytes up to its newline

    def skip_partial(self) -> None:
        """Reading starts inside a line: drop the bytes up to the next newline."""
        self._partial = b""
        self._skipping = True

    def feed(self, chunk: bytes) -> list[bytes]:
        lines = chunk.split(b"\n")
        tail = lines.pop()
        out: list[bytes] = []
        for piece in lines:
            if self._skipping:
                self._skipping = False
            else:
                line = self._partial + piece
                if len(line) <= MAX_LINE:
                    out.append(line)
            self._partial = b""
        if self._skipping:
            return out
        self._partial += tail
        if len(self._partial) > MAX_LINE:
            self._partial = b""
            self._skipping = True
        return out


@dataclass(slots=True)
class ShellState:
    """What the controller knows of a pane's shell (``list``'s ``shell`` object)."""

    cwd: str | None = None
    last_exit_status: int | None = None
    last_exit_at: float | None = None  # when the command finished, by the controller's clock
    reported_at: float | None = None  # when the controller read the last line
    command_count: int = 0

    def apply(self, event: ShellEvent, received_at: float) -> None:
        self.cwd = event.cwd
        self.reported_at = received_at
        if event.finished:
            self.command_count += 1
            self.last_exit_status = event.exit_status
            # The shell's own time is kept only when plausible: never later than now, and not
            # older than a day (a line read after a controller restart keeps its real time).
            t = event.shell_time
            plausible = t is not None and received_at - 86400 <= t <= received_at
            self.last_exit_at = t if plausible else received_at
