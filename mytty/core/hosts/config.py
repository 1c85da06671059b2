"""The ``[hosts]`` table of ``config.toml``: the other machines and how to reach them.

```toml
[hosts]
connect_timeout_seconds = 10          # an unreachable host fails within this
ssh_command = "ssh"                   # the OpenSSH client (a string or a list of words)

[hosts.build1]
ssh = "me@build1.example.com"         # what you would type after `ssh`
ssh_options = ["Port=2222"]           # each passed as `-o KEY=VALUE`
mytty_ctl = "mytty-ctl"               # the mytty-ctl command on that host
transport = "forward"                 # or "exec" (see docs/reference/hosts.md)
```

Pure: :func:`hosts_from` takes the table already parsed and returns the settings plus one
warning per thing it ignored, like :func:`mytty.core.config.settings_from` (a host entry that
cannot be used is left out with a warning; nothing is fatal).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from mytty.core.hosts.ids import name_problem

DEFAULT_CONNECT_TIMEOUT_S = 10.0
MIN_CONNECT_TIMEOUT_S = 1.0
MAX_CONNECT_TIMEOUT_S = 300.0
#: The remote side runs a request through a local forward of its control socket (measured
#: ~0.4 ms over the master), or as ``mytty-ctl __relay`` started per request (~60 ms).
FORWARD, EXEC = "forward", "exec"
TRANSPORTS = (FORWARD, EXEC)
DEFAULT_MYTTY_CTL = "mytty-ctl"
#: Settings of the ``[hosts]`` table itself; every other key is a host.
TABLE_KEYS = ("connect_timeout_seconds", "ssh_command")
_HOST_KEYS = ("ssh", "ssh_options", "mytty_ctl", "transport")


@dataclass(frozen=True, slots=True)
class HostSpec:
    """One ``[hosts.NAME]`` entry."""

    name: str
    #: The destination as ssh takes it (``user@host``, or a ``Host`` alias of ~/.ssh/config).
    ssh: str
    #: ``KEY=VALUE`` words, each passed to ssh as ``-o KEY=VALUE`` (before mytty's own).
    ssh_options: tuple[str, ...] = ()
    #: The command that runs mytty-ctl there, as that host's shell reads it.
    mytty_ctl: str = DEFAULT_MYTTY_CTL
    transport: str = FORWARD


@dataclass(frozen=True, slots=True)
class HostsSettings:
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT_S
    ssh_command: tuple[str, ...] = ("ssh",)
    hosts: tuple[HostSpec, ...] = ()

    def get(self, name: str) -> HostSpec | None:
        return next((h for h in self.hosts if h.name == name), None)

    def names(self) -> list[str]:
        return [h.name for h in self.hosts]


def ssh_option_problem(option: str) -> str | None:
    """Why ``option`` is not a ``KEY=VALUE`` ssh option (None: it is one)."""
    key, eq, value = option.partition("=")
    if not eq or not key or not key.isalnum() or not key.isascii() or not value:
        return f"expected KEY=VALUE (an ssh_config keyword and its value), got {option!r}"
    return None


def destination_problem(ssh: object) -> str | None:
    """Why ``ssh`` is not a destination (None: it is one)."""
    if not isinstance(ssh, str) or not ssh.strip():
        return "ssh must be the destination, as you would type it after `ssh`"
    if ssh.startswith("-") or any(c.isspace() for c in ssh):
        return f"ssh must be one destination word such as me@build1 (got {ssh!r})"
    return None


def _host(name: str, raw: Mapping[str, object], warnings: list[str]) -> HostSpec | None:
    where = f"[hosts.{name}]"
    problem = name_problem(name)
    if problem is not None:
        warnings.append(f"{where} ignored: {problem}")
        return None
    warnings.extend(f"{where} unknown key {key!r} ignored" for key in raw if key not in _HOST_KEYS)
    ssh = raw.get("ssh")
    problem = destination_problem(ssh)
    if problem is not None:
        warnings.append(f"{where} ignored: {problem}")
        return None
    assert isinstance(ssh, str)
    options: list[str] = []
    raw_options = raw.get("ssh_options", [])
    if not isinstance(raw_options, list) or not all(isinstance(o, str) for o in raw_options):
        warnings.append(f"{where} ssh_options: expected a list of KEY=VALUE strings; ignored")
        raw_options = []
    for option in raw_options:
        problem = ssh_option_problem(option)
        if problem is not None:
            warnings.append(f"{where} ssh_options: {problem}; ignored")
        else:
            options.append(option)
    mytty_ctl = raw.get("mytty_ctl", DEFAULT_MYTTY_CTL)
    if not isinstance(mytty_ctl, str) or not mytty_ctl.strip():
        warnings.append(f"{where} mytty_ctl: expected a command; using {DEFAULT_MYTTY_CTL!r}")
        mytty_ctl = DEFAULT_MYTTY_CTL
    transport = raw.get("transport", FORWARD)
    if transport not in TRANSPORTS:
        warnings.append(f"{where} transport: expected forward or exec; using forward")
        transport = FORWARD
    assert isinstance(transport, str)
    return HostSpec(name, ssh, tuple(options), mytty_ctl.strip(), transport)


def _timeout(raw: object, warnings: list[str]) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        warnings.append("[hosts] connect_timeout_seconds: expected a number of seconds; using 10")
        return DEFAULT_CONNECT_TIMEOUT_S
    if not MIN_CONNECT_TIMEOUT_S <= raw <= MAX_CONNECT_TIMEOUT_S:
        warnings.append(
            f"[hosts] connect_timeout_seconds: must be between {MIN_CONNECT_TIMEOUT_S:g} and "
            f"{MAX_CONNECT_TIMEOUT_S:g}; using 10"
        )
        return DEFAULT_CONNECT_TIMEOUT_S
    return float(raw)


def _ssh_command(raw: object, warnings: list[str]) -> tuple[str, ...]:
    words: list[str] | None = None
    if isinstance(raw, str):
        try:
            words = shlex.split(raw)
        except ValueError:
            words = None
    elif isinstance(raw, list) and all(isinstance(w, str) for w in raw):
        words = list(raw)
    if not words:
        warnings.append('[hosts] ssh_command: expected a command such as "ssh"; using "ssh"')
        return ("ssh",)
    return tuple(words)


def hosts_from(table: Mapping[str, object]) -> tuple[HostsSettings, list[str]]:
    """The ``[hosts]`` table as settings, and a warning for everything ignored."""
    warnings: list[str] = []
    timeout = DEFAULT_CONNECT_TIMEOUT_S
    command: tuple[str, ...] = ("ssh",)
    hosts: list[HostSpec] = []
    for key, value in table.items():
        if key == "connect_timeout_seconds":
            timeout = _timeout(value, warnings)
        elif key == "ssh_command":
            command = _ssh_command(value, warnings)
        elif isinstance(value, Mapping):
            spec = _host(key, value, warnings)
            if spec is not None:
                hosts.append(spec)
        else:
            warnings.append(
                f"[hosts] unknown key {key!r} ignored (a host is a table: [hosts.{key}])"
            )
    return HostsSettings(timeout, command, tuple(hosts)), warnings
