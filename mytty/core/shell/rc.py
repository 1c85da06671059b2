"""The one line ``mytty shell-integration install`` puts in a shell's rc file, and taking it out.

Pure bytes in, bytes out. The line is recognised by its shape (the shell's guard, ``source``
of a quoted ``mytty.<shell>`` path, the marker comment), so a checkout that moved is still
found and replaced. Removal gives back the file byte for byte as it was before the install:
when the file did not end in a newline, install wrote ``"\\n" + line`` with no newline after
it, and removal takes exactly that away again. A marker the shape does not explain (an edited
line, two lines) is refused rather than guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.quoting import shell_quote


class Shell(StrEnum):
    BASH = "bash"
    ZSH = "zsh"
    FISH = "fish"


MARKER = b"# mytty shell integration"

# The guard only loads the script inside tmux (identity and events need a pane); it ends with
# status 0, so a prompt showing $? doesn't report a failure on the first prompt outside tmux.
_TEMPLATES: dict[Shell, tuple[str, str]] = {
    Shell.BASH: ('if [ -n "${TMUX:-}" ]; then . ', "; fi  "),
    Shell.ZSH: ("if [[ -n ${TMUX-} ]]; then source ", "; fi  "),
    Shell.FISH: ("if set -q TMUX; source ", "; end  "),
}


def rc_line(shell: Shell, script: str) -> bytes:
    """The rc line (without its newline) that loads ``script`` in ``shell``."""
    head, tail = _TEMPLATES[shell]
    return (head + shell_quote(script) + tail).encode() + MARKER


def _line_pattern(shell: Shell) -> re.Pattern[bytes]:
    head, tail = (re.escape(part.encode()) for part in _TEMPLATES[shell])
    return re.compile(head + rb"\S.*" + tail + re.escape(MARKER))


@dataclass(frozen=True, slots=True)
class _Found:
    start: int  # first byte of the line
    end: int  # one past its last byte (before any newline)


def _find(shell: Shell, text: bytes, path: str) -> _Found | None:
    """Our line in ``text``, or None; a marker that is not exactly one such line is refused."""
    if MARKER not in text:
        return None
    pattern = _line_pattern(shell)
    found: list[_Found] = []
    start = 0
    for line in text.split(b"\n"):
        end = start + len(line)
        if MARKER in line:
            if not pattern.fullmatch(line):
                raise MyttyError(
                    ErrorCode.SHELL_RC_UNRECOGNIZED,
                    f"{path} has a line mentioning mytty's shell integration that mytty did not "
                    "write as it is now; edit or remove it by hand",
                )
            found.append(_Found(start, end))
        start = end + 1
    if len(found) > 1:
        raise MyttyError(
            ErrorCode.SHELL_RC_UNRECOGNIZED,
            f"{path} loads mytty's shell integration {len(found)} times; keep one line by hand",
        )
    return found[0] if found else None


def with_line(shell: Shell, text: bytes, script: str, path: str = "the rc file") -> bytes:
    """``text`` with the rc line for ``script`` (unchanged when it is already there)."""
    line = rc_line(shell, script)
    found = _find(shell, text, path)
    if found is not None:
        return text[: found.start] + line + text[found.end :]
    if not text:
        return line + b"\n"
    if text.endswith(b"\n"):
        return text + line + b"\n"
    return text + b"\n" + line


def without_line(shell: Shell, text: bytes, path: str = "the rc file") -> bytes:
    """``text`` as it was before :func:`with_line` added our line (unchanged without one)."""
    found = _find(shell, text, path)
    if found is None:
        return text
    if found.end == len(text) and found.start > 0:
        return text[: found.start - 1]  # "\n" + line at the very end: install added both
    return text[: found.start] + text[found.end + 1 :]


#: The files a login bash reads, the first one that exists (tmux starts login shells).
BASH_LOGIN_FILES = (".bash_profile", ".bash_login", ".profile")
#: A line that sources ~/.bashrc (Debian's and most distributions' default ~/.profile has one).
_SOURCES_BASHRC = re.compile(
    rb"""(?:^|[\s;&|({])(?:\.|source)\s+["']?(?:\$HOME|\$\{HOME\}|~)/\.bashrc\b"""
)


def bash_login_file(existing: set[str]) -> str:
    """The file (a name under HOME) a login bash reads, given the names that exist: the first
    of :data:`BASH_LOGIN_FILES`, else ``.profile`` (which install then creates)."""
    return next((name for name in BASH_LOGIN_FILES if name in existing), ".profile")


def sources_bashrc(text: bytes) -> bool:
    """Whether a login file runs ~/.bashrc (a ``.`` or ``source`` of it outside a comment)."""
    for line in text.split(b"\n"):
        code = line.split(b"#", 1)[0]
        if _SOURCES_BASHRC.search(code):
            return True
    return False
