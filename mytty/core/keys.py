"""The ``send-key`` vocabulary and its translation to tmux key names.

tmux types an unknown key name as literal text and still exits 0, so every key and modifier is
checked against these tables before anything reaches tmux: an unknown key is ``invalid-key``,
an unknown modifier ``invalid-request``.

Accepted, case-insensitively: tmux's own key names (``Escape``, ``BSpace``, ``PPage``, ``F1``,
...), the obvious aliases (``esc``, ``pageup``, ``PgUp``, ``backspace``, ...), the seed's names
(``delete`` is Backspace, the macOS delete key), any single printable ASCII character (an
uppercase letter is that capital), and modifier prefixes written into the key (``C-c``,
``ctrl-c``, ``ctrl+shift+tab``, ``M-x``). ``--modifiers`` takes the seed's ``shift``,
``control``, ``option``, ``command`` and the usual spellings of each (:data:`MODIFIER_NAMES`).
"""

from __future__ import annotations

from collections.abc import Iterable

SHIFT, CONTROL, META = "shift", "control", "meta"

#: Every accepted modifier spelling → the modifier it means. A terminal has no Command key:
#: ``command`` becomes Meta, like ``option``/``alt``.
MODIFIER_NAMES: dict[str, str] = {
    **dict.fromkeys(("shift", "s"), SHIFT),
    **dict.fromkeys(("control", "ctrl", "ctl", "c"), CONTROL),
    **dict.fromkeys(("option", "opt", "alt", "meta", "m", "command", "cmd", "super"), META),
}
#: The tmux prefix of each modifier, in the order tmux writes them.
_PREFIX = ((CONTROL, "C-"), (META, "M-"), (SHIFT, "S-"))

#: tmux key name → the aliases accepted for it (the tmux name itself always is).
_NAMED: dict[str, tuple[str, ...]] = {
    "Escape": ("esc",),
    "Tab": (),
    "BTab": ("backtab", "shift-tab"),
    "Enter": ("return", "ret", "cr"),
    "BSpace": ("delete", "backspace", "bs"),  # the seed's "delete" is the macOS delete key
    "DC": ("del", "forward-delete", "forwarddelete", "deletechar"),
    "IC": ("insert", "ins"),
    "Space": ("spc",),
    "Up": ("arrowup",),
    "Down": ("arrowdown",),
    "Left": ("arrowleft",),
    "Right": ("arrowright",),
    "Home": (),
    "End": (),
    "PPage": ("pageup", "page-up", "pgup", "prior"),
    "NPage": ("pagedown", "page-down", "pgdn", "pgdown", "next"),
    **{f"F{n}": () for n in range(1, 13)},
}
_LOOKUP: dict[str, str] = {
    alias.lower(): name for name, aliases in _NAMED.items() for alias in (name, *aliases)
}


class UnknownKeyError(ValueError):
    """The key name is not in the table."""


class ModifierError(ValueError):
    """A modifier name is not one of :data:`MODIFIER_NAMES`."""


def _modifiers(names: Iterable[str]) -> set[str]:
    mods = set()
    for name in names:
        mod = MODIFIER_NAMES.get(name.strip().lower())
        if mod is None:
            raise ModifierError(name)
        mods.add(mod)
    return mods


def _split_prefixes(key: str) -> tuple[str, set[str]]:
    """``ctrl-shift-a`` → (``a``, {control, shift}); a key without modifier prefixes as is."""
    mods: set[str] = set()
    while len(key) > 2:
        for sep in ("-", "+"):
            head, found, rest = key.partition(sep)
            if found and rest and head.lower() in MODIFIER_NAMES:
                mods.add(MODIFIER_NAMES[head.lower()])
                key = rest
                break
        else:
            break
    return key, mods


def tmux_key(key: str, modifiers: Iterable[str] = ()) -> str:
    """The tmux ``send-keys`` name for ``key`` with ``modifiers``.

    Raises ModifierError for an unknown modifier and UnknownKeyError for an unknown key.

    >>> tmux_key("c", ["ctrl"]), tmux_key("C-c"), tmux_key("PgUp"), tmux_key("tab", ["shift"])
    ('C-c', 'C-c', 'PPage', 'BTab')
    """
    mods = _modifiers(modifiers)
    if len(key) == 1:
        base = key
        if not (base.isascii() and base.isprintable()):
            raise UnknownKeyError(key)
        if base == " ":
            base = "Space"
    else:
        name, prefixed = _split_prefixes(key)
        mods |= prefixed
        if len(name) == 1 and name.isascii() and name.isprintable() and prefixed:
            base = name
        elif name.lower() in _LOOKUP:
            base = _LOOKUP[name.lower()]
        else:
            raise UnknownKeyError(key)
    if SHIFT in mods and base == "Tab":
        # tmux 3.3 has no S-Tab; shift+tab is the backtab sequence.
        mods.discard(SHIFT)
        base = "BTab"
    elif SHIFT in mods and len(base) == 1 and base.isalpha():
        mods.discard(SHIFT)
        base = base.upper()
    return "".join(prefix for mod, prefix in _PREFIX if mod in mods) + base


def guide_text() -> str:
    """The accepted names, for ``mytty-ctl guide``."""
    rows = [
        f"    {name:<7} {', '.join(aliases)}" if aliases else f"    {name}"
        for name, aliases in _NAMED.items()
        if not name.startswith("F") or name == "F1"
    ]
    rows = [r.replace("    F1", "    F1 … F12") for r in rows]
    modifiers: dict[str, list[str]] = {}
    for spelling, mod in MODIFIER_NAMES.items():
        modifiers.setdefault(mod, []).append(spelling)
    mod_rows = [f"    {mod:<7} {', '.join(names)}" for mod, names in modifiers.items()]
    return (
        "  Keys (any letter case; the first word is tmux's own name):\n"
        + "\n".join(rows)
        + "\n    and any single printable ASCII character (A is a capital A).\n"
        "  Modifiers, in --modifiers (comma-separated) or written into the key\n"
        "  (C-c, ctrl-c, ctrl+shift+tab, M-x):\n" + "\n".join(mod_rows) + "\n"
        "  An unknown key is invalid-key, an unknown modifier invalid-request.\n"
    )
