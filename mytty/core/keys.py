"""The ``send-key`` vocabulary and its translation to tmux key names.

tmux types an unknown key name as literal text and still exits 0, so every key is checked
against this table before anything reaches tmux (``invalid-key``).
"""

from __future__ import annotations

from collections.abc import Iterable

MODIFIERS = ("shift", "control", "option", "command")

_NAMED: dict[str, str] = {
    "escape": "Escape",
    "tab": "Tab",
    "return": "Enter",
    "enter": "Enter",
    "delete": "BSpace",  # the macOS "delete" key is Backspace (0x7F)
    "space": "Space",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    **{f"f{n}": f"F{n}" for n in range(1, 13)},
}

_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789`-=[]\\;',./")


class KeyError_(ValueError):
    """The key name is not in the table."""


def tmux_key(key: str, modifiers: Iterable[str] = ()) -> str:
    """Return the tmux ``send-keys`` key name for ``key`` with ``modifiers``.

    Named keys are case-insensitive; single characters are looked up lowercased. Unknown
    modifier names are ignored (as in the original). Raises KeyError_ for unknown keys.
    """
    mods = {m for m in modifiers if m in MODIFIERS}
    lowered = key.lower()
    if lowered in _NAMED:
        base = _NAMED[lowered]
        if base == "Tab" and "shift" in mods:
            # tmux 3.3 has no S-Tab; shift+tab is the backtab sequence.
            mods.discard("shift")
            base = "BTab"
    elif len(key) == 1 and lowered in _CHARS:
        base = lowered
        if "shift" in mods and base.isalpha():
            base = base.upper()
            mods.discard("shift")
    else:
        raise KeyError_(key)
    prefix = ""
    if "control" in mods:
        prefix += "C-"
    if "option" in mods or "command" in mods:
        # There is no Command key in a terminal; Meta is the closest thing tmux can send.
        prefix += "M-"
    if "shift" in mods:
        prefix += "S-"
    return prefix + base


def is_valid_key(key: str) -> bool:
    try:
        tmux_key(key)
    except KeyError_:
        return False
    return True
