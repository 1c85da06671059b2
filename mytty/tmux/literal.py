"""Text that tmux takes literally: command-line words and the escapes of its format language.

tmux reads a control-mode line with its command parser, and then expands many arguments as
formats (``#{…}``, ``#(shell command)``, ``#S`` …) before using them; some results are drawn
on the screen by a second interpreter that knows styles (``#[fg=red]``) and ``##``. A
directory, a name or a message with a ``#`` in it is therefore not text to tmux unless it is
escaped for every stage it passes. This module is the one place that knows the stages.

Measured on tmux 3.3a (private server, ``tmux -S … -f /dev/null``; sources at the 3.3a tag,
``spawn.c``, ``format.c``, ``format-draw.c``, ``cmd-*.c``):

========================================  ==========================================  =========
argument                                  what tmux does with it                      escape
========================================  ==========================================  =========
``new-window``/``split-window``/          format-expanded (``format_single``); a      :func:`format_text`
``respawn-pane``/``new-session -c``       directory named ``w#(cd;touch PWNED)`` ran
                                          the command; ``a##b``, ``m#S``,
                                          ``d#{pane_id}`` named another (missing)
                                          directory, and tmux silently started the
                                          pane in the default one (its ``chdir``
                                          falls back to ``$HOME``, then ``/``)
``new-window -n``, ``rename-window``      format-expanded                             :func:`format_text`
``new-session -s``                        format-expanded, then ``:`` ``.`` become    :func:`format_text`,
                                          ``_`` and ``\\`` ``$`` control characters   names tmux would
                                          are vis-encoded                             change are refused
``set-option`` *name*                     format-expanded (``@n#{pid}`` set           names are checked
                                          ``@n29344``)                                (``@[A-Za-z0-9_-]+``)
``set-option`` *value* (no ``-F``),       literal                                     none
``set-environment`` value, ``-e K=V``,
``send-keys -l``
``-t`` targets                            never expanded, but a session name          ``=name`` (exact)
                                          matches by prefix and pattern (``-t a``
                                          found ``ab*``) unless it starts with ``=``
``display-message`` text                  ``strftime`` (``%d`` became the day), then  :func:`message_text`
                                          format-expanded, then drawn: ``##`` shows
                                          ``#``, ``#[…]`` is a style
``display-popup -T`` title                format-expanded, then drawn                 :func:`drawn_text`
a user option shown by a format           ``#{@x}`` is not expanded again, but the    ``#{q/h:@x}``
(``pane-border-format``, ``status-*``)    result is drawn: ``#[fg=red]`` in a label   (:func:`shown_option`)
                                          restyled the border, ``a##b`` showed
                                          ``a#b``; ``q/h`` doubles every ``#``
``run-shell``/``if-shell``                format-expanded, then run by ``sh``         mytty sends none
an argv argument ending with ``;``        ends the command there (``set -g @x 'a;'``  :func:`argument`
(``tmux set-option … VALUE``, no          set ``a``); ``\\;`` at the end gives ``;``
command line)
========================================  ==========================================  =========

The format expander's rules that decide the escapes (``format_expand1``): ``##`` gives ``#``,
except that a run of two or more ``#`` right before ``[`` is kept whole for the drawing stage;
a lone ``#`` before ``[`` stays ``#[``. The drawing stage (``format_draw``) shows a run of
``n`` ``#`` not before ``[`` as ``ceil(n/2)`` of them, a run before ``[`` as ``n/2`` and, for
even ``n``, a literal ``[`` (odd ``n``: a style). ``~`` and ``$`` mean nothing to either stage
(the command parser expands them only outside single quotes, and :func:`word` quotes them).

Everything else a person reads is not drawn by tmux: ``mytty ls``, ``mytty attention`` and
the popup print text themselves. The web view adds its own stage (HTML escaping) in
:mod:`mytty.web.html`, checked by ``tests/web/test_escaping.py``.
"""

from __future__ import annotations

import re

#: What separates the fields of one listed line (``list-panes -F`` …).
FIELD_SEPARATOR = "\x1f"
#: The longest message :func:`message_text` keeps (tmux's ``strftime`` stage has an 8 KiB
#: buffer and gives an empty message past it; a status line shows far less anyway).
MAX_MESSAGE_CHARS = 1024

_HASH_RUN = re.compile(r"#+")
_LISTED_ESCAPE = re.compile(r"\\(\\|012|037)")
_LISTED_CHARS = {"\\": "\\", "012": "\n", "037": FIELD_SEPARATOR}
# Runs of characters that can sit inside single quotes on a tmux command line.
_QUOTABLE_RUN = re.compile(r"[^'\\\x01-\x1f\x7f]+")
#: A user option name tmux takes as it is (names are format-expanded like values are not).
USER_OPTION_NAME = re.compile(r"@[A-Za-z0-9_-]+")
#: Characters tmux changes in a session name (``session_check_name``: ``:`` and ``.`` become
#: ``_``; vis-encoding turns ``\\``, ``$`` and control characters into escapes).
_SESSION_NAME_CHANGED = re.compile(r"[:.\\$\x00-\x1f\x7f]")


def word(text: str) -> str:
    """``text`` as one word of a tmux command line; tmux's parser reads back exactly ``text``.

    Runs of ordinary characters go inside single quotes (no ``$``, ``~`` or ``\\`` expansion
    there); a quote or backslash is written escaped outside them, and a control character as
    an octal escape (``\\012``), so a newline never ends the line. A NUL stays as it is:
    tmux would cut the word there, so the control client refuses any line holding one.

    >>> word("it's")
    "'it'\\\\''s'"
    >>> word("a\\nb")
    "'a'\\\\012'b'"
    """
    parts: list[str] = []
    pos = 0
    while pos < len(text):
        match = _QUOTABLE_RUN.match(text, pos)
        if match is not None:
            parts.append("'" + match.group(0) + "'")
            pos = match.end()
            continue
        ch = text[pos]
        parts.append("\\" + ch if ch in "'\\" else f"\\{ord(ch):03o}")
        pos += 1
    return "".join(parts) or "''"


def argument(text: str) -> str:
    """``text`` as one argument of a ``tmux`` command run with an argv (no command line).

    tmux still splits an argv into commands at every argument that ends with ``;`` (dropping
    it); one that ends with ``\\;`` keeps a ``;``. So a trailing ``;`` is written ``\\;``.

    >>> argument("a;")
    'a\\\\;'
    """
    return text[:-1] + "\\;" if text.endswith(";") else text


def format_text(text: str) -> str:
    """``text`` for an argument tmux format-expands: the expansion gives back ``text``.

    Every run of ``#`` is doubled, except a run right before ``[`` (the expander keeps
    those as they are).

    >>> format_text("w#(touch x)")
    'w##(touch x)'
    >>> format_text("a#[b")
    'a#[b'
    """
    return _HASH_RUN.sub(lambda m: _hash_run(text, m, before_style=1, other=2), text)


def drawn_text(text: str) -> str:
    """``text`` for an argument tmux format-expands and then draws (``display-popup -T``)."""
    return _HASH_RUN.sub(lambda m: _hash_run(text, m, before_style=2, other=4), text)


def message_text(text: str) -> str:
    """``text`` for ``display-message``: one line, at most :data:`MAX_MESSAGE_CHARS`, shown
    as it is (``strftime``, format expansion and drawing each undone)."""
    line = "".join(" " if ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)
    return drawn_text(line[:MAX_MESSAGE_CHARS]).replace("%", "%%")


def shown_option(name: str) -> str:
    """The format that shows user option ``name`` as it is on a drawn line (border, status)."""
    if not USER_OPTION_NAME.fullmatch(name):
        raise ValueError(f"not a user option name: {name!r}")
    return "#{q/h:" + name + "}"


def one_line(variable: str) -> str:
    """A format that lists ``variable`` (``pane_current_path``, ``@mytty_label`` …) on one line.

    tmux prints a listed value raw, and a control-mode reply is split at newlines, so a
    directory or a process name holding a newline (or the field separator) would split or
    shift a row. tmux's own ``s/…/…/`` substitution (nested, innermost first) writes a
    backslash as ``\\\\``, a newline as ``\\012`` and the separator as ``\\037``;
    :func:`from_one_line` reads that back. In a substitution's replacement tmux reads ``\\\\``
    as one backslash and ``\\0`` as the whole match (measured), hence the doubling below.
    """
    escaped = "#{s/\\\\/\\\\\\\\/:" + variable + "}"
    escaped = "#{s/\n/\\\\012/:" + escaped + "}"
    return "#{s/" + FIELD_SEPARATOR + "/\\\\037/:" + escaped + "}"


def from_one_line(text: str) -> str:
    """The value a :func:`one_line` field listed."""
    if "\\" not in text:
        return text
    return _LISTED_ESCAPE.sub(lambda m: _LISTED_CHARS[m.group(1)], text)


def option_name_problem(name: str) -> str | None:
    """Why tmux would not take ``name`` as the user option it says (None: it would)."""
    if USER_OPTION_NAME.fullmatch(name):
        return None
    return f"{name!r} is not a user option name (@ and then letters, digits, '_' or '-')"


def session_name_problem(name: str) -> str | None:
    """Why tmux would store a session named ``name`` under another name (None: it would not)."""
    if not name:
        return "a session name cannot be empty"
    bad = _SESSION_NAME_CHANGED.search(name)
    if bad is not None:
        return f"tmux would change {bad.group(0)!r} in the session name {name!r}"
    return None


def _hash_run(text: str, match: re.Match[str], *, before_style: int, other: int) -> str:
    """A run of ``#`` repeated ``before_style`` times when ``[`` follows it, else ``other``."""
    times = before_style if text.startswith("[", match.end()) else other
    return match.group(0) * times
