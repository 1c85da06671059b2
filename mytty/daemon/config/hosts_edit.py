"""``mytty hosts add`` / ``remove``: edits of ``[hosts.NAME]`` in ``config.toml`` that keep
everything else of the file as it was (comments, order, layout), through tomlkit.

The file is read fresh for each edit and written atomically (a temporary file renamed into
place, keeping the file's mode); a running controller re-reads it when it is saved
(:mod:`mytty.daemon.config.watch`) and starts or stops following the host. A file that is not
valid TOML is refused with ``invalid-configuration`` and left untouched.
"""

from __future__ import annotations

from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.hosts.config import DEFAULT_MYTTY_CTL, HostSpec
from mytty.daemon.config.load import config_path, write_defaults
from mytty.integrations.common import atomic_write


def _load(home: Path) -> tomlkit.TOMLDocument:
    write_defaults(home)  # a first edit starts from the commented defaults
    path = config_path(home)
    try:
        return tomlkit.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, TOMLKitError) as exc:
        raise MyttyError(
            ErrorCode.INVALID_CONFIGURATION,
            f"{path} could not be read as TOML ({exc}); fix it first, nothing was changed",
        ) from None


def _hosts(doc: tomlkit.TOMLDocument) -> Table:
    table = doc.get("hosts")
    if table is None:
        table = tomlkit.table(is_super_table=False)
        doc["hosts"] = table
    if not isinstance(table, Table):
        raise MyttyError(
            ErrorCode.INVALID_CONFIGURATION,
            "[hosts] in config.toml is not a table; fix it first, nothing was changed",
        )
    return table


def add_host(home: Path, spec: HostSpec, *, replace: bool = False) -> None:
    """Write ``[hosts.NAME]`` for ``spec`` (``invalid-request`` when the name is taken,
    unless ``replace``)."""
    doc = _load(home)
    hosts = _hosts(doc)
    if spec.name in hosts and not replace:
        raise MyttyError(
            ErrorCode.INVALID_REQUEST,
            f"host {spec.name} is already configured; `mytty hosts remove {spec.name}` first "
            "(or give --replace)",
        )
    entry = tomlkit.table()
    entry["ssh"] = spec.ssh
    entry["ssh_options"] = list(spec.ssh_options)
    if spec.mytty_ctl != DEFAULT_MYTTY_CTL:
        entry["mytty_ctl"] = spec.mytty_ctl
    if spec.transport != "forward":
        entry["transport"] = spec.transport
    hosts[spec.name] = entry
    atomic_write(config_path(home), tomlkit.dumps(doc).encode("utf-8"))


def remove_host(home: Path, name: str) -> bool:
    """Remove ``[hosts.NAME]``; False when there was none (nothing is written then)."""
    if not config_path(home).exists():
        return False
    doc = _load(home)
    hosts = _hosts(doc)
    if name not in hosts:
        return False
    del hosts[name]
    atomic_write(config_path(home), tomlkit.dumps(doc).encode("utf-8"))
    return True
