"""Reading ``config.toml`` from the controller's home.

``load_settings(home)`` is what the controller calls once at start: it writes the commented
defaults when no file exists (atomically, and never over an existing file, even a broken one),
parses the file with tomlkit and checks it against :mod:`mytty.core.config`. It never raises
for anything in the file: a malformed file gives the defaults and one warning naming the line
and column; unknown keys and bad values give a warning each and keep their defaults.

``read_settings(home)`` does the same without writing anything (``mytty doctor`` uses it).

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
from mytty.core.config import DEFAULT_TEXT, DEFAULTS, Settings, settings_from

__all__ = ["Settings", "config_path", "load_settings", "read_settings", "write_defaults"]


def config_path(home: Path) -> Path:
    """Where the settings of the controller whose home is ``home`` live."""
    return Path(home) / paths.CONFIG_FILE


def write_defaults(home: Path) -> bool:
    """Write the commented defaults unless a file (or anything) is already there.

    Returns whether it wrote. The text goes to a temporary file that is then hard-linked into
    place, so a crash never leaves half a file behind and an existing file is never replaced.
    """
    target = config_path(home)
    if os.path.lexists(target):
        return False
    fd, tmp = tempfile.mkstemp(prefix=".config.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(DEFAULT_TEXT)
        os.chmod(tmp, 0o600)
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
        return True
    finally:
        os.unlink(tmp)


def parse_text(text: str) -> tuple[Settings, list[str]]:
    """Settings from the text of a ``config.toml`` (defaults and a located warning if malformed)."""
    try:
        data = tomlkit.parse(text).unwrap()
    except TOMLKitError as exc:
        return DEFAULTS, [_malformed(exc, text)]
    return settings_from(data)


def _malformed(exc: TOMLKitError, text: str) -> str:
    keep = "; using every default"
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


def read_settings(home: Path) -> tuple[Settings, list[str]]:
    """The settings in ``home``'s ``config.toml`` (defaults when there is none); writes nothing."""
    path = config_path(home)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return DEFAULTS, []
    except OSError as exc:
        return DEFAULTS, [f"cannot read {path}: {exc.strerror or exc}; using every default"]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return DEFAULTS, [f"not UTF-8 at line {line} (byte {exc.start}); using every default"]
    return parse_text(text)


def load_settings(home: Path) -> tuple[Settings, list[str]]:
    """The controller's start: write the defaults on first start, then read them."""
    warnings: list[str] = []
    try:
        write_defaults(home)
    except OSError as exc:
        warnings.append(f"cannot write {config_path(home)}: {exc.strerror or exc}")
    settings, more = read_settings(home)
    return settings, warnings + more
