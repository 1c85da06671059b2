"""Validation rules for the free-text fields of ``agent spawn`` and the pane commands.

Each validator returns a short human explanation when the value is rejected and ``None`` when it
is accepted, so the caller decides which wire error code goes with it (``invalid-label``,
``invalid-model``, ``invalid-task``, ``invalid-worktree-branch``, ``invalid-command``). The same
rules run in ``mytty-ctl`` before it connects and again in the controller.

Lengths are counted in Unicode scalar values. A Python ``str`` is a sequence of code points, which
are scalars except for lone surrogates; those can arrive through a JSON ``\\udXXX`` escape and are
rejected everywhere because they are not text.
"""

from __future__ import annotations

import re
import unicodedata

#: Longest label, model name or worktree branch (in Unicode scalars).
MAX_FIELD_SCALARS = 100

# Cc (C0/C1 controls) + Cf (format characters such as ZWJ or bidi overrides), as Foundation's
# controlCharacters set; Cs covers lone surrogates.
_CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
_SPACE_CATEGORIES = frozenset({"Zs", "Zl", "Zp"})
_BRANCH_CHARS = re.compile(r"[A-Za-z0-9._/-]+")


def is_control_char(ch: str) -> bool:
    """True for a control, format or lone-surrogate character (never allowed in short fields)."""
    return unicodedata.category(ch) in _CONTROL_CATEGORIES


def is_space_char(ch: str) -> bool:
    """True for any Unicode whitespace or line/paragraph separator."""
    return ch.isspace() or unicodedata.category(ch) in _SPACE_CATEGORIES


def _first_control(text: str) -> str | None:
    for ch in text:
        if is_control_char(ch):
            return ch
    return None


def validate_label(label: str) -> str | None:
    """A job label: empty is fine; at most 100 scalars; no control or format characters."""
    if len(label) > MAX_FIELD_SCALARS:
        return f"the label is longer than {MAX_FIELD_SCALARS} characters"
    bad = _first_control(label)
    if bad is not None:
        return f"the label contains a control or format character (U+{ord(bad):04X})"
    return None


def validate_key(key: str) -> str | None:
    """An ``agent spawn --key``: non-empty, at most 100 scalars, no control characters."""
    if not key:
        return "the key is empty"
    if len(key) > MAX_FIELD_SCALARS:
        return f"the key is longer than {MAX_FIELD_SCALARS} characters"
    bad = _first_control(key)
    if bad is not None:
        return f"the key contains a control or format character (U+{ord(bad):04X})"
    return None


def validate_model(model: str) -> str | None:
    """A model name: non-empty, at most 100 scalars, no control or whitespace characters."""
    if not model:
        return "the model name is empty"
    if len(model) > MAX_FIELD_SCALARS:
        return f"the model name is longer than {MAX_FIELD_SCALARS} characters"
    for ch in model:
        if is_control_char(ch) or is_space_char(ch):
            return f"the model name contains whitespace or a control character (U+{ord(ch):04X})"
    return None


def validate_task(task: str) -> str | None:
    """A worker task: any non-empty text (newlines and all)."""
    if not task:
        return "the task is empty"
    return None


def validate_command_text(text: str) -> str | None:
    """The ``--command`` text of ``new-tab``/``split``: any non-empty text."""
    if not text:
        return "the command text is empty"
    return None


def validate_worktree_branch(branch: str) -> str | None:
    """A ``--worktree`` branch name (a conservative subset of what git itself allows).

    Non-empty, at most 100 scalars, only ``A-Z a-z 0-9 . _ / -``; it may not start with ``-``
    (git would read an option), ``.`` or ``/``; may not end with ``/``, ``.`` or ``.lock``; and may
    not contain ``..`` or ``//``.
    """
    if not branch:
        return "the worktree branch is empty"
    if len(branch) > MAX_FIELD_SCALARS:
        return f"the worktree branch is longer than {MAX_FIELD_SCALARS} characters"
    if _BRANCH_CHARS.fullmatch(branch) is None:
        return "the worktree branch may only contain letters, digits, '.', '_', '/' and '-'"
    if branch[0] in "-./":
        return "the worktree branch may not start with '-', '.' or '/'"
    if branch.endswith(("/", ".", ".lock")):
        return "the worktree branch may not end with '/', '.' or '.lock'"
    if ".." in branch or "//" in branch:
        return "the worktree branch may not contain '..' or '//'"
    return None


#: The longest status note (``mytty-ctl status``), in Unicode scalars.
STATUS_MAX_SCALARS = 100
# Cc and Cf as the spec says; Cs too, since a lone surrogate is not a Unicode scalar at all
# (json.loads can produce one from a "\\ud800" escape).
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})


def validate_status(text: object) -> str | None:
    """Return why ``text`` is not a valid status note, or None when it is.

    Valid: a non-empty string of at most 100 Unicode scalars with no control or format
    characters (so no newlines and no zero-width joiners). Clearing is a separate operation,
    never an empty string.
    """
    if not isinstance(text, str):
        return "status must be a string"
    if not text:
        return "status must not be empty"
    if len(text) > STATUS_MAX_SCALARS:
        return f"status must be at most {STATUS_MAX_SCALARS} characters"
    for ch in text:
        if unicodedata.category(ch) in _FORBIDDEN_CATEGORIES:
            return f"status must not contain control or format characters (U+{ord(ch):04X})"
    return None
