"""The patterns of ``[[approvals.rule]]``: globs on a shell command and on a file path.

Both are matched against the whole text (anchored), case-sensitively:

- ``*`` any run of characters, ``?`` one character, ``[abc]`` / ``[a-z]`` / ``[!abc]`` one
  character of (or not of) a class, as in ``fnmatch``; a ``[`` that opens no class is literal;
- in a **command** ``*`` and ``?`` match anything, ``/`` and newlines included;
- in a **path** ``*`` and ``?`` stay inside one path segment, and ``**`` (a whole segment)
  matches any number of segments, none included: ``src/**/*.py`` matches ``src/a.py`` and
  ``src/a/b/c.py``.

:func:`escape` writes a text as the pattern that matches exactly it (``[*]``, ``[?]``, ``[[]``).
"""

from __future__ import annotations

import re
from functools import lru_cache

#: Characters that make a pattern more than an exact text.
WILDCARDS = frozenset("*?[")


def escape(text: str) -> str:
    """The pattern that matches exactly ``text`` (and nothing else)."""
    return "".join(f"[{ch}]" if ch in WILDCARDS else ch for ch in text)


def has_wildcard(pattern: str) -> bool:
    """Whether ``pattern`` can match anything but one exact text (``[*]`` is an escape, not a
    wildcard)."""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch in "*?":
            return True
        if ch == "[":
            found = _class(pattern, i)
            if found is not None:
                end = found[1]
                body = pattern[i + 1 : end - 1]
                if len(body) != 1 or body == "!":
                    return True
                i = end
                continue
        i += 1
    return False


def _class(pattern: str, start: int) -> tuple[str, int] | None:
    """The regex of the class that opens at ``pattern[start] == "["`` and where it ends."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] == "!"
    if negate:
        i += 1
    body_start = i
    if i < len(pattern) and pattern[i] == "]":
        i += 1  # a ] first in the class is a member
    while i < len(pattern) and pattern[i] != "]":
        i += 1
    if i >= len(pattern):
        return None  # never closed: the [ is a literal
    body = pattern[body_start:i]
    parts = []
    j = 0
    while j < len(body):
        if j + 2 < len(body) and body[j + 1] == "-":
            low, high = body[j], body[j + 2]
            if low <= high:
                parts.append(f"{re.escape(low)}-{re.escape(high)}")
            j += 3
        else:
            parts.append(re.escape(body[j]))
            j += 1
    inner = "".join(parts)
    if not inner:
        return ("[^\\s\\S]" if not negate else "[\\s\\S]"), i + 1
    return (f"[^{inner}]" if negate else f"[{inner}]"), i + 1


def _translate(pattern: str, *, path: bool) -> str:
    any_char = "[^/]" if path else "[\\s\\S]"
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            if path and pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                end = i + 2
                if at_start and end == n:
                    out.append("[\\s\\S]*")
                    i = end
                    continue
                if at_start and pattern.startswith("/", end):
                    out.append("(?:[^/]*/)*")
                    i = end + 1
                    continue
            while i < n and pattern[i] == "*":
                i += 1
            out.append(f"{any_char}*")
            continue
        if ch == "?":
            out.append(any_char)
        elif ch == "[":
            found = _class(pattern, i)
            if found is not None:
                regex, i = found
                if path:
                    regex = f"(?!/){regex}"
                out.append(regex)
                continue
            out.append(re.escape(ch))
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def _compiled(pattern: str, path: bool) -> re.Pattern[str]:
    return re.compile(_translate(pattern, path=path))


def match_command(pattern: str, command: str) -> bool:
    """Whether the command glob ``pattern`` matches all of ``command``."""
    return _compiled(pattern, False).fullmatch(command) is not None


def match_path(pattern: str, path: str) -> bool:
    """Whether the path glob ``pattern`` matches all of ``path`` (segments, ``**``)."""
    return _compiled(pattern, True).fullmatch(path) is not None
