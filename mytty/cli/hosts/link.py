"""The command line's way to another host's controller: one OpenSSH master per host and a
local forward of the remote control socket over it (the choice and its figures are in
docs/explanation/hosts.md).

A request to host ``NAME`` first tries ``NAME.sock`` in the links directory
(:mod:`mytty.core.hosts.links`), the local end of the forward, as long as the handshake that
made it is newer than ``config.toml``: that costs one ``stat`` pair and a Unix connect, and
reads no configuration. Only when that fails does :meth:`Link.ensure` read ``[hosts.NAME]``,
run the handshake (which starts the master when none runs), add the forward and record the
handshake, under a lock so that concurrent calls make one master.

A request is sent again only when it cannot have reached the controller (the local end did
not answer at all), or, through :func:`wait`, when it is a wait: a wait only reads, so asking
again with the time that is left loses and doubles nothing. Everything else that drops on
the way fails with ``host-unreachable`` saying the request may have run there.

Stdlib only; ``mytty-ctl --host`` loads it, the rest of mytty only when a link must be made.
"""

from __future__ import annotations

import json
import math
import os
import socket
import stat
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from mytty.cli import transport
from mytty.cli.transport import CtlError
from mytty.core import codes, paths
from mytty.core.hosts import links

if TYPE_CHECKING:
    from mytty.core.hosts.config import HostSpec, HostsSettings
    from mytty.core.hosts.ssh import Hello

#: Codes after which a wait is asked again (until its own deadline): the host or its
#: controller went away and may come back.
RETRY_CODES = frozenset(
    {codes.HOST_UNREACHABLE, codes.CONTROLLER_NOT_RUNNING, codes.NOT_RUNNING, codes.TIMEOUT}
)
#: The requests :mod:`mytty.cli.hosts.caller` judges (a frozenset here: no import per call).
ANSWERS = frozenset({"answerApproval", "proposeApprovalRule"})
#: ``ssh -O`` commands talk to the local master only.
MASTER_COMMAND_TIMEOUT_S = 5.0
#: Backoff between the attempts of a wait whose host went away.
FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 10.0


def _fail(code: str, message: str) -> NoReturn:
    raise CtlError(code, message)


def home_of(env: Mapping[str, str]) -> str:
    """The mytty home whose ``config.toml`` names the hosts: the directory of the control
    socket mytty-ctl would use (a pane's ``MYTTY_CONTROL_SOCKET`` points into it)."""
    return os.path.dirname(paths.control_socket(env))


def config_file(env: Mapping[str, str]) -> str:
    return os.path.join(home_of(env), paths.CONFIG_FILE)


def load_hosts(env: Mapping[str, str]) -> HostsSettings:
    """``[hosts]`` of this home's ``config.toml`` (defaults when there is no file)."""
    import tomllib

    from mytty.core.hosts.config import HostsSettings, hosts_from

    path = config_file(env)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        return HostsSettings()
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        _fail(codes.INVALID_CONFIGURATION, f"cannot read the hosts from {path}: {exc}")
    table = data.get("hosts", {})
    return hosts_from(table if isinstance(table, dict) else {})[0]


def prepare_dir(directory: str) -> None:
    """Create the links directory (and its parent) mode 0700; refuse one that is not ours."""
    for path in (os.path.dirname(directory), directory):
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            _fail(codes.UNSAFE_SOCKET_DIRECTORY, f"cannot create {path}: {exc.strerror or exc}")
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            _fail(
                codes.UNSAFE_SOCKET_DIRECTORY,
                f"{path} must be a directory of yours that nobody else can use (mode 0700); "
                "remove it and try again",
            )


def run_ssh(
    argv: list[str], timeout: float, *, stdin: bytes = b"", env: Mapping[str, str]
) -> tuple[int | None, bytes, str]:
    """Run one ssh command: (exit status or None when killed at ``timeout``, stdout, stderr).

    Its own session, so a timeout kills whatever it started; a master it leaves in the
    background has detached itself (and closed our pipes) by then.
    """
    import signal
    import subprocess

    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            start_new_session=True,
        )
    except OSError as exc:
        _fail(codes.HOST_UNREACHABLE, f"cannot run {argv[0]}: {exc.strerror or exc}")
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.communicate()
        return None, b"", ""
    return proc.returncode, out, err.decode("utf-8", "replace")


class Link:
    """The way to host ``name`` from this home."""

    def __init__(self, name: str, env: Mapping[str, str] | None = None) -> None:
        self.name = name
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.dir = links.link_dir(os.getuid(), home_of(self.env))
        self.socket = links.forward_socket(self.dir, name)
        self.record = links.record_path(self.dir, name)
        self._settings: HostsSettings | None = None
        self._spec: HostSpec | None = None
        self.hello: Hello | None = None

    # -- configuration ------------------------------------------------------------------------
    def settings(self) -> HostsSettings:
        if self._settings is None:
            self._settings = load_hosts(self.env)
        return self._settings

    def spec(self) -> HostSpec:
        """``[hosts.NAME]``; ``host-not-found`` when there is none."""
        if self._spec is None:
            from mytty.core.hosts.ids import name_problem

            problem = name_problem(self.name)
            if problem is not None:
                _fail(codes.HOST_NOT_FOUND, problem)
            spec = self.settings().get(self.name)
            if spec is None:
                known = ", ".join(self.settings().names()) or "none"
                _fail(
                    codes.HOST_NOT_FOUND,
                    f"no host {self.name!r} in {config_file(self.env)} (configured: {known}); "
                    f"add it with `mytty hosts add {self.name} USER@HOST`",
                )
            self._spec = spec
        return self._spec

    def fresh(self) -> bool:
        """The forward's handshake is newer than ``config.toml`` (the fast path may be used)."""
        try:
            made = os.stat(self.record).st_mtime_ns
        except OSError:
            return False
        try:
            edited = os.stat(config_file(self.env)).st_mtime_ns
        except OSError:
            return False
        return made >= edited

    def _fingerprint(self) -> dict[str, object]:
        spec, settings = self.spec(), self.settings()
        return {
            "ssh": spec.ssh,
            "sshOptions": list(spec.ssh_options),
            "myttyCtl": spec.mytty_ctl,
            "sshCommand": list(settings.ssh_command),
        }

    # -- the connection -----------------------------------------------------------------------
    def ensure(self, *, reconnect: bool = False) -> None:
        """Make the link: handshake (starting the master), forward, record. Without
        ``reconnect`` a record that still matches the configuration is only renewed."""
        import fcntl

        from mytty.core.hosts import ssh

        spec, settings = self.spec(), self.settings()
        prepare_dir(self.dir)
        with open(links.lock_path(self.dir, self.name), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not reconnect and self._renew():
                return
            code, out, err = run_ssh(
                ssh.hello_argv(settings, spec, self.dir),
                settings.connect_timeout,
                env=self.env,
            )
            if code != 0:
                _fail(*ssh.classify_failure(self.name, spec, code, err, settings.connect_timeout))
            hello, problem = ssh.parse_hello(self.name, out.decode("utf-8", "replace"))
            if hello is None:
                _fail(codes.HOST_INCOMPATIBLE, problem)
            self.hello = hello
            if spec.transport == "forward":
                argv = ssh.forward_argv(settings, spec, self.dir, self.socket, hello.control_socket)
                code, _, err = run_ssh(argv, MASTER_COMMAND_TIMEOUT_S, env=self.env)
                if code != 0:
                    _fail(
                        *ssh.classify_failure(self.name, spec, code, err, MASTER_COMMAND_TIMEOUT_S)
                    )
            self._write_record(hello)

    def _renew(self) -> bool:
        from mytty.core.hosts.ssh import hello_from_json

        try:
            with open(self.record, encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, ValueError):
            return False
        if not isinstance(record, dict) or record.get("link") != self._fingerprint():
            return False
        hello = hello_from_json(record.get("hello"))
        if hello is None:
            return False
        if self.spec().transport == "forward" and not os.path.exists(self.socket):
            return False
        self.hello = hello
        os.utime(self.record)
        return True

    def _write_record(self, hello: Hello) -> None:
        tmp = f"{self.record}.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"link": self._fingerprint(), "hello": hello.to_json()}, f)
        os.replace(tmp, self.record)

    def master_alive(self) -> bool:
        from mytty.core.hosts.ssh import check_argv

        argv = check_argv(self.settings(), self.spec(), self.dir)
        code, _, _ = run_ssh(argv, MASTER_COMMAND_TIMEOUT_S, env=self.env)
        return code == 0

    def forget(self) -> None:
        """End the master and remove the link's files (``mytty hosts remove``)."""
        from mytty.core.hosts.ssh import exit_argv

        if self._spec is not None or self.settings().get(self.name) is not None:
            run_ssh(exit_argv(self.settings(), self.spec(), self.dir), 5.0, env=self.env)
        for path in (self.socket, self.record):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass

    # -- one request ----------------------------------------------------------------------------
    def _connect(self) -> socket.socket | None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(transport.CONNECT_TIMEOUT)
        try:
            sock.connect(self.socket)
        except OSError:
            sock.close()
            return None
        return sock

    def exchange(self, body: bytes, timeout: float) -> dict[str, Any]:
        """The controller's reply to ``body`` (a failure reply included)."""
        fresh = self.fresh()
        sock = self._connect() if fresh else None
        if sock is None:
            if self.spec().transport == "exec":
                self.ensure()
                return self._relay(body, timeout)
            # Not fresh: config.toml changed since (a matching record is only renewed).
            # Fresh but no answer: the master is gone and its forward with it.
            self.ensure(reconnect=fresh)
            sock = self._connect()
            if sock is None and not fresh:
                self.ensure(reconnect=True)
                sock = self._connect()
            if sock is None:
                _fail(
                    codes.HOST_UNREACHABLE,
                    f"host {self.name}: the forward {self.socket} does not answer",
                )
        try:
            return transport.talk(sock, body, timeout)
        except transport.Dropped:
            self._dropped()
        finally:
            sock.close()

    def _dropped(self) -> NoReturn:
        if self.master_alive():
            # The master is up, so the host's end refused the channel: nothing listens on the
            # socket there, or that sshd does not forward sockets. The handshake tells which.
            self.ensure(reconnect=True)
            if self.hello is not None and self.hello.running:
                _fail(
                    codes.HOST_UNREACHABLE,
                    f"host {self.name}: its sshd refuses to forward mytty's control socket "
                    "(sshd_config AllowStreamLocalForwarding or AllowTcpForwarding is no); "
                    f'allow it there, or set [hosts.{self.name}] transport = "exec"',
                )
            _fail(codes.CONTROLLER_NOT_RUNNING, self._not_running())
        _fail(
            codes.HOST_UNREACHABLE,
            f"host {self.name}: the SSH connection dropped before the controller's reply "
            "(the request may have run there)",
        )

    def _not_running(self) -> str:
        where = ""
        run = "mytty start"
        hello = self.hello
        if hello is None:
            from mytty.core.hosts.ssh import hello_from_json

            try:
                with open(self.record, encoding="utf-8") as f:
                    hello = hello_from_json(json.load(f).get("hello"))
            except (OSError, ValueError, AttributeError):
                hello = None
        if hello is not None:
            where = f" (nothing listens on {hello.control_socket})"
            if hello.bin_dir:
                run = f"{hello.bin_dir}/mytty start"
        return (
            f"host {self.name}: no mytty controller is running there{where}; start it there: "
            f"ssh {self.spec().ssh} {run}"
        )

    def _relay(self, body: bytes, timeout: float) -> dict[str, Any]:
        """The ``exec`` transport: ``mytty-ctl __relay`` there, one process per request."""
        from mytty.core.hosts import ssh

        spec, settings = self.spec(), self.settings()
        command = ssh.remote_words(spec, ssh.RELAY_COMMAND, str(math.ceil(timeout)))
        argv = ssh.exec_argv(settings, spec, self.dir, command)
        code, out, err = run_ssh(
            argv, timeout + settings.connect_timeout, stdin=body + b"\n", env=self.env
        )
        if code == 0:
            return transport.decode(out.split(b"\n", 1)[0])
        relayed = err.strip().splitlines()[-1] if err.strip() else ""
        if code == 1 and relayed.startswith("mytty-ctl: "):
            failed, _, message = relayed[len("mytty-ctl: ") :].partition(": ")
            if failed == codes.NOT_RUNNING:  # the relay's: the controller there
                _fail(codes.CONTROLLER_NOT_RUNNING, self._not_running())
            _fail(failed, f"host {self.name}: {message}")
        _fail(*ssh.classify_failure(self.name, spec, code, err, timeout + settings.connect_timeout))


def send(
    name: str, request: dict[str, Any], timeout: float, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """One request to host ``name``'s controller; its reply as that host gave it (ids not yet
    qualified), or CtlError (a failure reply's message names the host). An answer to a
    permission request from a process under an agent is refused here (:mod:`.caller`)."""
    if request.get("type") in ANSWERS:
        from mytty.cli.hosts.caller import refuse_agents

        refuse_agents(name, request)
    body = transport.encode_checked(request)
    reply = Link(name, env).exchange(body, timeout)
    return transport.checked(reply, prefix=f"host {name}: ")


def wait(
    name: str,
    request: dict[str, Any],
    wait_key: str,
    env: Mapping[str, str] | None = None,
    grace: float = 5.0,
) -> dict[str, Any]:
    """A wait on host ``name`` that outlives the host going away: while the link or the
    controller there is down it is asked again, with the time left, until its deadline."""
    deadline = time.monotonic() + float(request[wait_key])
    backoff = FIRST_BACKOFF_S
    while True:
        left = max(0.0, deadline - time.monotonic())
        attempt = {**request, wait_key: round(left, 3)}
        try:
            return send(name, attempt, math.ceil(left) + grace, env)
        except CtlError as exc:
            if exc.code not in RETRY_CODES or time.monotonic() + backoff >= deadline:
                raise
        time.sleep(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF_S)
