"""The one way mytty quotes a word for a shell (sh, bash, zsh, fish) or tmux's command parser.

Single quotes keep everything literal in sh, bash and zsh, but fish treats a backslash inside
single quotes as an escape, and a ``'`` can't appear inside single quotes anywhere. So runs of
other characters go inside single quotes, and each ``'`` or ``\\`` is written outside them,
backslash-escaped. The result reads back byte for byte in all four shells and in tmux's own
parser (``tests/core/test_quoting.py`` checks each with real binaries).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Words made only of these characters mean the same thing unquoted in sh, bash, zsh and fish.
# ``=`` and ``%`` are left out on purpose: zsh expands a leading ``=word`` and old fish a
# leading ``%word``.
_BARE_WORD = re.compile(r"[A-Za-z0-9_./:,+-]+")
# Runs of characters that can sit inside single quotes in every supported shell.
_QUOTABLE_RUN = re.compile(r"[^'\\]+")


def shell_quote(text: str) -> str:
    """Quote ``text`` as one word: ``'it'\\''s'`` for ``it's``, ``''`` for the empty string.

    >>> shell_quote("a b")
    "'a b'"
    >>> shell_quote("a\\\\b")
    "'a'\\\\\\\\'b'"
    """
    if not text:
        return "''"
    parts: list[str] = []
    pos = 0
    while pos < len(text):
        match = _QUOTABLE_RUN.match(text, pos)
        if match is not None:
            parts.append("'" + match.group(0) + "'")
            pos = match.end()
        else:
            parts.append("\\" + text[pos])
            pos += 1
    return "".join(parts)


def shell_word(text: str) -> str:
    """Like :func:`shell_quote`, but leaves obviously safe words (``-s``, ``read-only``) bare."""
    if _BARE_WORD.fullmatch(text):
        return text
    return shell_quote(text)


def shell_line(argv: Iterable[str]) -> str:
    """``argv`` as one command line, each word quoted only when it needs it."""
    return " ".join(shell_word(a) for a in argv)
