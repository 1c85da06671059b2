"""Reading ``config.toml`` from the controller's home.

``load_settings(home)`` is what the controller calls once at start: it writes the commented
defaults when no file exists (their ``[admission]`` limits derived from this machine's memory
and CPUs: :mod:`mytty.core.admission.defaults`) (atomically, and never over an existing file, even a broken one),
parses the file with tomlkit and checks it against :mod:`mytty.core.config`. It never raises
for anything in the file: a malformed file gives the defaults and one warning naming the line
and column; unknown keys and bad values give a warning each and keep their defaults.

``read_settings(home)`` does the same without writing anything (``mytty doctor`` uses it).
``reread_settings(home)`` is the running controller's reload when the file is saved
(:mod:`mytty.daemon.config.watch`): a file it can't use at all keeps the settings in use.

Usage::

    settings, warnings = load_settings(home.root)
    for line in warnings:
        log.warning("config.toml: %s", line)
    settings.notify.cooldown
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path

import tomlkit
from tomlkit.exceptions import ParseError, TOMLKitError

from mytty.core import paths
from mytty.core.admission.defaults import Machine
from mytty.core.config import DEFAULTS, Settings, default_text, settings_from
from mytty.daemon.resources.memory import this_machine

__all__ = [
    "Settings",
    "config_path",
    "load_settings",
    "read_settings",
    "reread_settings",
    "write_defaults",
]


def config_path(home: Path) -> Path:
    """Where the settings of the controller whose home is ``home`` live."""
    return Path(home) / paths.CONFIG_FILE


def write_defaults(home: Path, machine: Machine | None = None) -> bool:
    """Write the commented defaults for ``machine`` (None: this one) unless a file (or
    anything) is already there.

    Returns whether it wrote. The text goes to a temporary file that is then hard-linked into
    place, so a crash never leaves half a file behind and an existing file is never replaced.
    """
    target = config_path(home)
    if os.path.lexists(target):
        return False
    text = default_text(machine if machine is not None else this_machine())
    fd, tmp = tempfile.mkstemp(prefix=".config.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o600)
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(tmp)


#: What a file that can't be used as a whole means at start, and on a reload.
USING_DEFAULTS = "; using every default"
KEEPING_SETTINGS = "; keeping the settings in use"


def _parse(text: str, keep: str) -> tuple[Settings | None, list[str]]:
    try:
        data = tomlkit.parse(text).unwrap()
    except TOMLKitError as exc:
        return None, [_malformed(exc, text, keep)]
    return settings_from(data)


def _malformed(exc: TOMLKitError, text: str, keep: str) -> str:
    if isinstance(exc, ParseError):
        reason = str(exc).rsplit(" at line ", 1)[0]
        return f"not valid TOML at line {exc.line}, column {exc.col}: {reason}{keep}"
    # tomlkit reports some errors (a duplicate key, say) without a position; the stdlib parser
    # gives one for the same text.
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as located:
        return f"not valid TOML: {located}{keep}"
    return f"not valid TOML: {exc}{keep}"


def read_settings(home: Path, keep: str = USING_DEFAULTS) -> tuple[Settings, list[str]]:
    """The settings in ``home``'s ``config.toml`` (defaults when there is none); writes nothing.
    ``keep`` ends the warning of a file that can't be used as a whole (what happens then)."""
    settings, warnings = _read(home, keep)
    return (settings if settings is not None else DEFAULTS), warnings


def reread_settings(home: Path) -> tuple[Settings | None, list[str]]:
    """A running controller's second look at ``config.toml`` (the file changed).

    None when the file can't be used as a whole (gone, unreadable, not UTF-8, not TOML): the
    caller keeps the settings it has, and the warning says so. Unknown keys and bad values are
    warned about and keep their defaults, as at start.
    """
    return _read(home, KEEPING_SETTINGS, missing=None)


def _read(
    home: Path, keep: str, *, missing: Settings | None = DEFAULTS
) -> tuple[Settings | None, list[str]]:
    path = config_path(home)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return missing, [] if missing is not None else [f"{path} is gone{keep}"]
    except OSError as exc:
        return None, [f"cannot read {path}: {exc.strerror or exc}{keep}"]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, [f"not UTF-8 at line {line} (byte {exc.start}){keep}"]
    return _parse(text, keep)


def load_settings(home: Path, machine: Machine | None = None) -> tuple[Settings, list[str]]:
    """The controller's start: write the defaults on first start (for ``machine``, None: this
    one), then read them."""
    warnings: list[str] = []
    try:
        write_defaults(home, machine)
    except OSError as exc:
        warnings.append(f"cannot write {config_path(home)}: {exc.strerror or exc}")
    settings, more = read_settings(home)
    return settings, warnings + more
