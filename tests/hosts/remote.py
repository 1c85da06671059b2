"""A second machine on loopback for the host tests and the hosts bench: a real ``sshd`` and a
second user account with its own HOME, mytty, tmux server and controller.

- :class:`Sshd`: Debian's ``/usr/sbin/sshd`` on ``127.0.0.1`` at a free high port, with its
  own host key, its own ``sshd_config`` (no PAM, public keys only, ``AuthorizedKeysFile`` in
  the test directory, only the test account may log in) and a generated client key; the
  client side gets its own ``ssh_config`` and ``known_hosts`` (``ssh -F``), so nothing reads or
  writes ``~/.ssh`` and nothing leaves loopback.
- :class:`RemoteUser`: the "other machine", an account made with ``useradd`` (removed at the
  end). It runs mytty from this checkout: a venv of the system's Python 3.11 that loads this
  checkout's venv's packages (the account cannot reach the test runner's own interpreter),
  with the three console scripts.

Everything lives under one directory ``/tmp/mth<pid>`` (short: socket paths are limited).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tests.support.harness import TESTS_DIR, TMUX, kill_processes_naming, wait_until

SSHD = "/usr/sbin/sshd"
SYSTEM_PYTHON = "/usr/bin/python3.11"
SITE_PACKAGES = (
    Path(sys.prefix)
    / "lib"
    / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    / "site-packages"
)
USER_PREFIX = "mth"
SCRIPTS = {
    "mytty": "mytty.cli.main",
    "mytty-ctl": "mytty.cli.ctl",
    "mytty-agent-hook": "mytty.hook.main",
}


def _run(*argv: str, check: bool = True, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=check, **kw)  # type: ignore[call-overload]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def prerequisites() -> str | None:
    """What is missing to run these tests (None: nothing)."""
    if os.geteuid() != 0:
        return "the host tests create a second user account: run them as root"
    for path in (SSHD, SYSTEM_PYTHON, shutil.which("ssh") or "/usr/bin/ssh", "/usr/sbin/useradd"):
        if not os.access(path, os.X_OK):
            return f"{path} is missing (scripts/test installs openssh-server with apt-get)"
    return None


def sweep_stale_users() -> None:
    """Remove test accounts of sessions that died before cleaning up (their pid is gone)."""
    for entry in pwd.getpwall():
        name = entry.pw_name
        if not name.startswith(USER_PREFIX) or not name[len(USER_PREFIX) :].isdigit():
            continue
        if Path(f"/proc/{name[len(USER_PREFIX) :]}").exists():
            continue
        _kill_uid(entry.pw_uid)
        _run("userdel", "-f", name, check=False)
        shutil.rmtree(f"/tmp/{name}", ignore_errors=True)


def _pids_of(uid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid != uid:
                    continue
                with open(f"/proc/{entry}/stat") as f:
                    zombie = f.read().rsplit(")", 1)[1].split()[0] == "Z"
            except OSError:
                continue
            if not zombie:  # a zombie waits for its parent (maybe init) to reap it
                pids.append(int(entry))
    return pids


def _kill_uid(uid: int) -> None:
    """SIGKILL every process of ``uid`` (only the test account's: processes this test made)
    and wait until they are gone (``userdel`` refuses an account that still runs one)."""
    for pid in _pids_of(uid):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not _pids_of(uid), 10, message=f"the processes of uid {uid} to end")


class Sshd:
    """A private sshd on loopback and the client configuration that reaches it."""

    def __init__(self, root: Path, user: str) -> None:
        self.root = root
        self.user = user
        self.dir = root / "sshd"
        self.client_dir = root / "client"
        self.auth_dir = root / "auth"
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.ssh_config = self.client_dir / "ssh_config"
        self.client_key = self.client_dir / "id_ed25519"

    def start(self) -> None:
        for d, mode in ((self.dir, 0o700), (self.client_dir, 0o700), (self.auth_dir, 0o755)):
            d.mkdir(mode=mode)
            d.chmod(mode)
        host_key = self.dir / "host_ed25519"
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(host_key))
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.client_key))
        authorized = self.auth_dir / "authorized_keys"
        authorized.write_text(Path(f"{self.client_key}.pub").read_text())
        authorized.chmod(0o644)
        # The privilege separation directory Debian's package normally makes at boot.
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        config = self.dir / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    f"Port {self.port}",
                    "ListenAddress 127.0.0.1",
                    f"HostKey {host_key}",
                    f"PidFile {self.dir / 'sshd.pid'}",
                    "UsePAM no",
                    "StrictModes no",  # the keys sit under /tmp, which is world-writable
                    f"AuthorizedKeysFile {authorized}",
                    "PubkeyAuthentication yes",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin no",
                    f"AllowUsers {self.user}",
                    "AllowStreamLocalForwarding yes",
                    "X11Forwarding no",
                    "PrintMotd no",
                    "MaxStartups 100:30:200",
                    "MaxSessions 100",
                    "LogLevel VERBOSE",
                    "",
                ]
            )
        )
        log = open(self.dir / "sshd.log", "ab")  # noqa: SIM115 - closed below
        self.proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=log, stdin=subprocess.DEVNULL
        )
        log.close()
        wait_until(self._listening, 10, message=f"sshd on port {self.port}")
        known = self.client_dir / "known_hosts"
        known.write_text(f"[127.0.0.1]:{self.port} {Path(f'{host_key}.pub').read_text()}")
        self.ssh_config.write_text(
            "\n".join(
                [
                    "Host *",
                    f"  IdentityFile {self.client_key}",
                    "  IdentitiesOnly yes",
                    f"  UserKnownHostsFile {known}",
                    "  GlobalKnownHostsFile /dev/null",
                    "  StrictHostKeyChecking yes",
                    "  UpdateHostKeys no",
                    "  LogLevel ERROR",
                    "",
                ]
            )
        )

    def _listening(self) -> bool:
        assert self.proc is not None
        assert self.proc.poll() is None, self.log()
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    @property
    def destination(self) -> str:
        return f"{self.user}@127.0.0.1"

    def ssh_argv(self, *args: str) -> list[str]:
        """A plain ssh to the test account (no master), for checks the tests make."""
        return ["ssh", "-F", str(self.ssh_config), "-p", str(self.port), "-o", "BatchMode=yes",
                self.destination, *args]  # fmt: skip

    def log(self) -> str:
        try:
            return (self.dir / "sshd.log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class RemoteUser:
    """The other machine: a user account with its own HOME, mytty, tmux server and controller."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name
        self.home = root / "b"
        self.venv = root / "bvenv"
        self.bin = self.home / "bin"
        self.standin_dir = self.home / "standin"
        self.tmux_socket = str(self.home / "tmux.sock")
        self.mytty_home = self.home / ".config" / "mytty"
        self.uid = -1
        self.gid = -1
        self.proc: subprocess.Popen[bytes] | None = None

    # -- the account ------------------------------------------------------------------------------
    def create(self) -> None:
        _run("useradd", "-M", "-d", str(self.home), "-s", "/bin/bash", self.name)
        _run("usermod", "-p", "*", self.name)  # no password, but not locked (sshd refuses locked)
        entry = pwd.getpwnam(self.name)
        self.uid, self.gid = entry.pw_uid, entry.pw_gid
        self._make_venv()
        for d in (self.home, self.bin, self.standin_dir):
            d.mkdir(mode=0o755, exist_ok=True)
        self.home.chmod(0o700)
        for name in ("claude", "codex", "cursor-agent"):
            (self.bin / name).symlink_to(TESTS_DIR / "standins" / name)
        (self.home / ".profile").write_text(f'export PATH="{self.bin}:{self.venv}/bin:$PATH"\n')
        for path in [self.home, *self.home.rglob("*")]:
            os.lchown(path, self.uid, self.gid)

    def _make_venv(self) -> None:
        _run(SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(self.venv))
        lib = self.venv / "lib" / "python3.11" / "site-packages"
        # addsitedir also reads that directory's .pth files: the editable install of mytty.
        (lib / "mytty-test.pth").write_text(
            f"import site; site.addsitedir({str(SITE_PACKAGES)!r})\n"
        )
        for script, module in SCRIPTS.items():
            path = self.venv / "bin" / script
            path.write_text(
                f"#!{self.venv / 'bin' / 'python'}\nimport sys\nfrom {module} import main\n"
                "sys.exit(main())\n"
            )
            path.chmod(0o755)
        for path in [self.venv, *self.venv.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "HOME": str(self.home),
            "USER": self.name,
            "LOGNAME": self.name,
            "SHELL": "/bin/bash",
            "PATH": f"{self.bin}:{self.venv}/bin:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": "xterm-256color",
            "MYTTY_STANDIN_DIR": str(self.standin_dir),
            "TMUX_TMPDIR": str(self.home),
            "MYTTY_STRICT_ERRORS": "1",
        }
        env.update(extra)
        return env

    def run(
        self, *argv: str, timeout: float = 60, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run a command as the account, in its HOME."""
        proc = subprocess.run(
            argv, env=self.env(), cwd=self.home, user=self.uid, group=self.gid, extra_groups=[],
            capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
        if check and proc.returncode != 0:
            raise AssertionError(f"{argv} as {self.name} failed: {proc.stderr}")
        return proc

    def ctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.venv / "bin" / "mytty-ctl"), *args, check=False)

    # -- tmux and the controller -------------------------------------------------------------------
    def start_tmux(self) -> None:
        self.run(TMUX, "-S", self.tmux_socket, "-f", "/dev/null", "new-session", "-d", "-s",
                 "base", "-x", "200", "-y", "50")  # fmt: skip

    def enable_integrations(self, *providers: str) -> None:
        for provider in providers:
            self.run(str(self.venv / "bin" / "mytty"), "integrations", "enable", provider)

    def start_controller(self, timeout: float = 30.0) -> None:
        """``mytty serve`` as the account, on its own tmux server; its home records the tmux
        socket as ``mytty start`` would (the jump to a remote pane reads it)."""
        import select

        self.mytty_home.mkdir(parents=True, exist_ok=True)
        for path in (self.home / ".config", self.mytty_home):
            os.chown(path, self.uid, self.gid)
        record = self.mytty_home / "tmux-socket"
        record.write_text(self.tmux_socket + "\n")
        os.chown(record, self.uid, self.gid)
        read_fd, write_fd = os.pipe()
        log = open(self.root / "b-controller.log", "ab")  # noqa: SIM115 - closed below
        self.proc = subprocess.Popen(
            [str(self.venv / "bin" / "mytty"), "serve", "--tmux-socket", self.tmux_socket,
             "--ready-fd", str(write_fd), "-v"],
            env=self.env(), cwd=self.home, user=self.uid, group=self.gid, extra_groups=[],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(write_fd,),
        )  # fmt: skip
        log.close()
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:
            ready, _, _ = select.select([pipe], [], [], timeout)
            line = pipe.readline().decode().strip() if ready else ""
        if line != "ready":
            self.kill_controller()
            raise AssertionError(f"the remote controller did not start ({line!r}):\n{self.log()}")

    def kill_controller(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def stop_controller(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def log(self) -> str:
        try:
            return (self.root / "b-controller.log").read_text(errors="replace")
        except OSError:
            return ""

    def remove(self) -> None:
        self.stop_controller()
        with contextlib.suppress(Exception):
            self.run(TMUX, "-S", self.tmux_socket, "kill-server", check=False, timeout=10)
        if self.uid >= 0:
            _kill_uid(self.uid)
        _run("userdel", "-f", self.name, check=False)


class SecondMachine:
    """:class:`Sshd` plus :class:`RemoteUser`, set up and taken down together."""

    def __init__(self) -> None:
        self.name = f"{USER_PREFIX}{os.getpid()}"
        self.root = Path(f"/tmp/{self.name}")
        self.user = RemoteUser(self.root, self.name)
        self.sshd = Sshd(self.root, self.name)

    def start(self, *, providers: tuple[str, ...] = ("claude-code",)) -> None:
        sweep_stale_users()
        if self.root.exists():
            shutil.rmtree(self.root)
        self.root.mkdir(mode=0o755)
        self.root.chmod(0o755)
        self.user.create()
        self.sshd.start()
        self.user.start_tmux()
        self.user.enable_integrations(*providers)
        self.user.start_controller()

    def host_table(
        self, name: str = "b", *, timeout: float = 10, options: tuple[str, ...] = (), **extra: str
    ) -> str:
        """The ``[hosts]`` TOML naming this machine's account as host ``name`` (``extra``
        overrides or adds keys of ``[hosts.NAME]``)."""
        entry = {
            "ssh": self.sshd.destination,
            "mytty_ctl": str(self.user.venv / "bin" / "mytty-ctl"),
            **extra,
        }
        lines = [
            "[hosts]",
            f"connect_timeout_seconds = {timeout}",
            f"ssh_command = {json.dumps(f'ssh -F {self.sshd.ssh_config}')}",
            "",
            f"[hosts.{name}]",
            f"ssh_options = {json.dumps([*options, f'Port={self.sshd.port}'])}",
            *(f"{key} = {json.dumps(value)}" for key, value in entry.items()),
        ]
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        self.user.remove()
        self.sshd.stop()
        kill_processes_naming(self.root)  # ssh masters of this machine's client config
        shutil.rmtree(self.root, ignore_errors=True)
