"""The OpenSSH command lines mytty runs, and what their failures mean (pure).

Every host is reached over one multiplexed connection (``ControlMaster=auto`` with
``ControlPersist``, the control socket in the links directory, see
:mod:`mytty.core.hosts.links`), made by the user's own ``ssh`` with the user's own
``~/.ssh/config`` (keys, agents, jump hosts, known_hosts): mytty never stores a password or a
key, and runs ssh in batch mode so that nothing ever waits for a password prompt.

- The handshake, ``mytty-ctl __hello`` on the host, also starts the master when there is
  none; it says which mytty runs there and where its control socket is (:func:`parse_hello`).
- ``ssh -O forward -L NAME.sock:<remote control socket>`` then makes the remote controller's
  socket a local one: a request costs a channel over the master, not a process there.
- ``exec_argv`` runs one command there over the same master (``mytty-ctl __relay`` for the
  ``exec`` transport, ``mytty ls --json``, the ``tmux attach`` of a jump).

:func:`classify_failure` turns ssh's exit status and stderr into one of mytty's codes with
ssh's own words, the one place that reads them.
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Sequence

from mytty.core import codes
from mytty.core.hosts.config import HostSpec, HostsSettings
from mytty.core.hosts.links import control_path

#: The handshake's version: the remote's ``mytty-ctl __hello`` must answer with this one.
PROTOCOL = 1
HELLO_COMMAND = "__hello"
RELAY_COMMAND = "__relay"
#: How long an idle master stays up after its last use (the controller's long poll keeps it
#: in use while it follows the host).
CONTROL_PERSIST_S = 600
#: A dead network ends the master within ~30 s instead of leaving requests hanging.
KEEPALIVE = ("ServerAliveInterval=10", "ServerAliveCountMax=3")

_AUTH_MARKS = (
    "Permission denied",
    "Too many authentication failures",
    "Host key verification failed",
    "REMOTE HOST IDENTIFICATION HAS CHANGED",
    "no matching host key type",
    "Authentication failed",
)
_NOISE = ("Warning: Permanently added", "debug1:", "Pseudo-terminal will not be allocated")


def _options(settings: HostsSettings, spec: HostSpec, directory: str) -> list[str]:
    """ssh and its options: the host's own first (for each option ssh keeps the first value
    it reads), then mytty's."""
    argv = list(settings.ssh_command)
    for option in spec.ssh_options:
        argv += ["-o", option]
    for option in (
        f"ControlPath={control_path(directory)}",
        "BatchMode=yes",
        f"ConnectTimeout={math.ceil(settings.connect_timeout)}",
        *KEEPALIVE,
    ):
        argv += ["-o", option]
    return argv


def remote_words(spec: HostSpec, *words: str) -> str:
    """The command line the host's shell runs: ``mytty_ctl`` as configured (it may hold an
    ``env VAR=…`` prefix, so it is not quoted), then ``words`` quoted for a POSIX shell."""
    return " ".join([spec.mytty_ctl, *(shlex.quote(w) for w in words)])


def hello_argv(settings: HostsSettings, spec: HostSpec, directory: str) -> list[str]:
    """The handshake; it starts the master when none runs (and leaves it in the background)."""
    return [
        *_options(settings, spec, directory),
        "-o",
        "ControlMaster=auto",
        "-o",
        f"ControlPersist={CONTROL_PERSIST_S}",
        # The local end of a forward outlives a master that died; the next master replaces it.
        "-o",
        "StreamLocalBindUnlink=yes",
        "-T",
        spec.ssh,
        "--",
        remote_words(spec, HELLO_COMMAND),
    ]


def forward_argv(
    settings: HostsSettings, spec: HostSpec, directory: str, local: str, remote: str
) -> list[str]:
    return [
        *_options(settings, spec, directory),
        "-O",
        "forward",
        "-L",
        f"{local}:{remote}",
        spec.ssh,
    ]


def check_argv(settings: HostsSettings, spec: HostSpec, directory: str) -> list[str]:
    """``ssh -O check``: exit 0 while the master runs (no network traffic)."""
    return [*_options(settings, spec, directory), "-O", "check", spec.ssh]


def exit_argv(settings: HostsSettings, spec: HostSpec, directory: str) -> list[str]:
    return [*_options(settings, spec, directory), "-O", "exit", spec.ssh]


def exec_argv(
    settings: HostsSettings,
    spec: HostSpec,
    directory: str,
    command: str,
    *,
    tty: bool = False,
) -> list[str]:
    """Run ``command`` (a shell command line of that host) over the master (or a connection
    of its own when none runs)."""
    return [
        *_options(settings, spec, directory),
        "-o",
        "ControlMaster=auto",
        "-o",
        f"ControlPersist={CONTROL_PERSIST_S}",
        "-o",
        "StreamLocalBindUnlink=yes",
        "-t" if tty else "-T",
        spec.ssh,
        "--",
        command,
    ]


def ssh_message(stderr: str) -> str:
    """ssh's own explanation: its last meaningful stderr line."""
    lines = [line.strip() for line in stderr.splitlines()]
    useful = [line for line in lines if line and not line.startswith(_NOISE)]
    return useful[-1] if useful else "ssh failed without a message"


def classify_failure(
    name: str, spec: HostSpec, returncode: int | None, stderr: str, timeout: float
) -> tuple[str, str]:
    """(code, message) for an ssh command that failed (``returncode`` None: killed at the
    connect timeout)."""
    where = f"host {name} ({spec.ssh})"
    if returncode is None:
        return codes.HOST_UNREACHABLE, f"{where} did not answer within {timeout:g} s"
    said = ssh_message(stderr)
    if any(mark in stderr for mark in _AUTH_MARKS):
        return codes.HOST_AUTH_FAILED, f"{where}: {said}"
    if returncode == 255:
        return codes.HOST_UNREACHABLE, f"{where}: {said}"
    if returncode in (126, 127) or "command not found" in stderr or "not found" in said:
        return codes.HOST_INCOMPATIBLE, (
            f"{where} has no mytty-ctl ({spec.mytty_ctl!r}: {said}); install mytty there "
            f"(scripts/up in a checkout), or set [hosts.{name}] mytty_ctl to its full path"
        )
    return codes.HOST_INCOMPATIBLE, (
        f"{where}: `{spec.mytty_ctl} {HELLO_COMMAND}` failed ({said}); the mytty there "
        f"predates host support: update it to this machine's version"
    )


class Hello:
    """The handshake of a host: who answered and where its controller listens."""

    __slots__ = ("bin_dir", "control_socket", "running", "tmux_socket", "version")

    def __init__(
        self,
        version: str,
        control_socket: str,
        bin_dir: str,
        tmux_socket: str | None,
        running: bool,
    ) -> None:
        self.version = version
        self.control_socket = control_socket
        self.bin_dir = bin_dir
        self.tmux_socket = tmux_socket
        self.running = running

    def to_json(self) -> dict[str, object]:
        return {
            "mytty": self.version,
            "protocol": PROTOCOL,
            "controlSocket": self.control_socket,
            "bin": self.bin_dir,
            "tmuxSocket": self.tmux_socket,
            "controllerRunning": self.running,
        }


def hello_text(hello: Hello) -> str:
    """What ``mytty-ctl __hello`` prints: one JSON line."""
    return json.dumps(hello.to_json(), sort_keys=True, separators=(",", ":")) + "\n"


def parse_hello(name: str, text: str) -> tuple[Hello | None, str]:
    """(the handshake, "") or (None, one line saying what is wrong and what to do there)."""
    line = text.strip().splitlines()[-1] if text.strip() else ""
    try:
        data = json.loads(line)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return None, f"host {name} answered the handshake with {line[:80]!r}, not mytty's"
    version = data.get("mytty")
    if data.get("protocol") != PROTOCOL:
        return None, (
            f"host {name} runs mytty {version} (host protocol {data.get('protocol')}); this "
            f"one speaks protocol {PROTOCOL}: install the same mytty version on both"
        )
    sock, bin_dir = data.get("controlSocket"), data.get("bin")
    tmux = data.get("tmuxSocket")
    if not (isinstance(version, str) and isinstance(sock, str) and sock.startswith("/")):
        return None, f"host {name}'s handshake is incomplete: {line[:120]}"
    return Hello(
        version,
        sock,
        bin_dir if isinstance(bin_dir, str) else "",
        tmux if isinstance(tmux, str) and tmux else None,
        data.get("controllerRunning") is True,
    ), ""


def hello_from_json(data: object) -> Hello | None:
    """A handshake stored by :meth:`Hello.to_json` (None when it does not read as one)."""
    if not isinstance(data, dict):
        return None
    hello, _ = parse_hello("", json.dumps(data))
    return hello


def attach_command(spec: HostSpec, tmux_words: Sequence[str]) -> str:
    """The host's shell command line for ``tmux_words`` (a tmux argv built by mytty.tmux)."""
    return " ".join(shlex.quote(word) for word in tmux_words)
