"""Real tmux + real controller harness for integration tests.

Every harness owns a private tmux server on its own short socket path (never the user's
default server) and a controller process with its own MYTTY_HOME and HOME.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

VENV_BIN = Path(sys.executable).parent
MYTTY = str(VENV_BIN / "mytty")
MYTTY_CTL = str(VENV_BIN / "mytty-ctl")
HOOK = str(VENV_BIN / "mytty-agent-hook")
TESTS_DIR = Path(__file__).resolve().parent.parent
# Resolved once: a test may take tmux off the controller's PATH, the harness still needs it.
TMUX = shutil.which("tmux") or "tmux"


#: The first pause of ``wait_until``, and the longest once it has grown (see there).
FIRST_POLL_S = 0.02
LONGEST_POLL_S = 0.1


def wait_until(
    predicate: Callable[[], T | None],
    timeout: float = 10.0,
    interval: float | None = None,
    message: str = "condition",
) -> T:
    """Poll ``predicate`` until it returns a truthy value; fail after ``timeout`` seconds.

    ``interval`` fixes the pause between looks. Without it the pause starts at FIRST_POLL_S
    and grows to LONGEST_POLL_S: most predicates run ``mytty-ctl`` (~25 ms of CPU each), and
    on a busy machine a long wait polling every 20 ms took a core's worth of CPU from the
    tests beside it, which made every wait longer still.
    """
    deadline = time.monotonic() + timeout
    pause = FIRST_POLL_S if interval is None else interval
    last: Any = None
    while True:
        try:
            last = predicate()
        except AssertionError:
            last = None
        if last:
            return last
        left = deadline - time.monotonic()
        if left < 0:
            raise AssertionError(
                f"timed out after {timeout}s waiting for {message} (last={last!r})"
            )
        time.sleep(min(pause, left))  # the last look is at the deadline, not a pause after it
        if interval is None:
            pause = min(pause * 1.5, LONGEST_POLL_S)


class CtlResult:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    @property
    def json(self) -> dict[str, Any]:
        assert self.returncode == 0, f"mytty-ctl failed: {self.stderr}"
        lines = self.stdout.splitlines()
        assert len(lines) == 1, f"expected exactly one line, got {self.stdout!r}"
        return json.loads(lines[0])

    def ok(self) -> None:
        """Assert the command succeeded with one JSON line (for calls whose reply is unused)."""
        self.json  # noqa: B018 - the property asserts

    @property
    def code(self) -> str:
        assert self.returncode == 1, (
            f"expected failure, got rc={self.returncode} out={self.stdout!r}"
        )
        assert self.stdout == "", f"failure printed to stdout: {self.stdout!r}"
        line = self.stderr.strip()
        assert line.count("\n") == 0, f"expected one stderr line: {self.stderr!r}"
        prefix, code, _rest = line.split(": ", 2)
        assert prefix == "mytty-ctl"
        return code


class BackgroundCtl:
    """A ``mytty-ctl`` command running while the test goes on (e.g. a blocking ``wait``)."""

    def __init__(self, m: Mytty, *args: str) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [MYTTY_CTL, *args],
            env=m.env,
            cwd=str(m.home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def running(self) -> bool:
        return self.proc.poll() is None

    def result(self, timeout: float = 60.0) -> CtlResult:
        out, err = self.proc.communicate(timeout=timeout)
        return CtlResult(
            subprocess.CompletedProcess(self.proc.args, self.proc.returncode, out, err)
        )

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def kill_processes_naming(path: Path) -> None:
    """SIGKILL every process (but this one) whose command line names ``path``."""
    marker = str(path).encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if marker in cmdline:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass


class Mytty:
    """A tmux server plus a controller, both private to one test."""

    def __init__(self, *, start_tmux: bool = True, extra_env: dict[str, str] | None = None) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="mt", dir="/tmp"))
        self.home = self.root / "home"  # HOME of the user
        self.mytty_home = self.root / "m"
        self.home.mkdir()
        self.socket = str(self.root / "tmux.sock")
        self.bin = self.root / "bin"  # stand-in agents go here, first on PATH
        self.bin.mkdir()
        self.standin_dir = self.root / "standin"  # stand-in agents record what they saw here
        self.standin_dir.mkdir()
        # Like a real user's login profile, put the agents' directory on PATH (Debian's
        # /etc/profile resets PATH for login shells, which tmux starts).
        (self.home / ".profile").write_text(f'export PATH="{self.bin}:$PATH"\n')
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("MYTTY_", "TMUX", "CODEX_", "CLAUDE"))
        }
        self.env.update(
            HOME=str(self.home),
            MYTTY_HOME=str(self.mytty_home),
            SHELL="/bin/bash",
            PATH=f"{self.bin}:{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            LANG="C.UTF-8",
            LC_ALL="C.UTF-8",
            TERM="xterm-256color",
            MYTTY_STANDIN_DIR=str(self.standin_dir),
            CODEX_HOME=str(self.home / ".codex"),
            # `tmux -L NAME` in a test (the guard's allowed case) makes its socket here, never
            # in the machine's /tmp/tmux-UID.
            TMUX_TMPDIR=str(self.root),
            # A handler answering a code its declaration does not list fails loudly.
            MYTTY_STRICT_ERRORS="1",
        )
        if extra_env:
            self.env.update(extra_env)
        self.proc: subprocess.Popen[bytes] | None = None
        if start_tmux:
            self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "base", "-x", "200", "-y", "50")

    def install_standins(self, *names: str) -> None:
        """Put the stand-in agents (tests/standins/<name>) on the panes' PATH."""
        for name in names:
            target = TESTS_DIR / "standins" / name
            assert target.exists(), f"no stand-in {name}"
            (self.bin / name).symlink_to(target)

    # -- tmux ---------------------------------------------------------------------------------
    def tmux(self, *args: str, check: bool = True) -> str:
        out = subprocess.run(
            [TMUX, "-S", self.socket, *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
            # The server starts here, and new panes default to its directory: never the
            # checkout (an approved stand-in command once left a file in the repository).
            cwd=str(self.home) if self.home.is_dir() else None,
        )
        if check and out.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {out.stderr}")
        return out.stdout

    # -- controller -----------------------------------------------------------------------------
    def start(
        self, timeout: float = 20.0, *, nofile: int | None = None, wrapper: tuple[str, ...] = ()
    ) -> None:
        """Start the controller; ``nofile`` sets its RLIMIT_NOFILE (soft and hard).

        ``wrapper`` is a command that execs the rest of its arguments (the controller keeps
        its pid), e.g. ``unshare`` for a mount namespace of its own.
        """
        read_fd, write_fd = os.pipe()

        def limit_descriptors() -> None:
            if nofile is not None:
                import resource

                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        log = open(self.root / "controller.log", "ab")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [
                *wrapper,
                MYTTY,
                "serve",
                "--tmux-socket",
                self.socket,
                "--ready-fd",
                str(write_fd),
                "-v",
            ],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            pass_fds=(write_fd,),
            cwd=str(self.home),
            preexec_fn=limit_descriptors if nofile is not None else None,
        )
        log.close()
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:
            import select

            ready, _, _ = select.select([pipe], [], [], timeout)
            line = pipe.readline().decode().strip() if ready else ""
        if line != "ready":
            self.stop()
            raise AssertionError(f"controller did not start ({line!r}):\n{self.log()}")

    def open_fds(self) -> int:
        """How many descriptors the controller process holds now."""
        assert self.proc is not None
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def log(self) -> str:
        try:
            return (self.root / "controller.log").read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()
        self.proc = None

    def close(self) -> None:
        self.stop()
        subprocess.run(
            [TMUX, "-S", self.socket, "kill-server"], env=self.env, capture_output=True, check=False
        )
        self._kill_leftovers()
        shutil.rmtree(self.root, ignore_errors=True)

    def _kill_leftovers(self) -> None:
        """Kill any process still naming this test's directory (a server a test replaced,
        a control client or controller orphaned by kill -9): tests must not leak processes."""
        kill_processes_naming(self.root)

    # -- clients --------------------------------------------------------------------------------
    @property
    def control_socket(self) -> str:
        return str(self.mytty_home / "control.sock")

    @property
    def event_socket(self) -> str:
        return str(self.mytty_home / "events.sock")

    def ctl(
        self,
        *args: str,
        timeout: float = 60.0,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
    ) -> CtlResult:
        run_env = dict(self.env)
        if env:
            run_env.update(env)
        proc = subprocess.run(
            [MYTTY_CTL, *args],
            env=run_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=cwd or str(self.home),
        )
        return CtlResult(proc)

    def request(
        self, obj: dict[str, Any] | bytes, sock: str | None = None, timeout: float = 10.0
    ) -> dict[str, Any]:
        """Send one raw request to a socket and return the decoded reply."""
        body = obj if isinstance(obj, bytes) else json.dumps(obj).encode() + b"\n"
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(sock or self.control_socket)
        s.sendall(body)
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        return json.loads(data.split(b"\n")[0])

    def panes(self) -> list[dict[str, Any]]:
        return self.ctl("list").json["panes"]

    def first_pane(self) -> str:
        return self.panes()[0]["paneID"]

    def pane_env(self, pane_id: str) -> dict[str, str]:
        """The environment tmux gave the pane's first process (read from /proc)."""
        tmux_id = self.tmux_id(pane_id)
        pid = int(self.tmux("display-message", "-p", "-t", tmux_id, "#{pane_pid}").strip())

        def read() -> dict[str, str]:
            raw = Path(f"/proc/{pid}/environ").read_bytes()
            return dict(
                e.split("=", 1) for e in raw.decode(errors="replace").split("\0") if "=" in e
            )

        # Right after the split the pane's process may not have exec'd yet (it still shows
        # the tmux server's environment); a pane the controller made always has its id.
        if self.tmux(
            "show-options", "-pv", "-t", tmux_id, "@mytty_surface"
        ).strip() == pane_id and self._created_by_controller(tmux_id):
            return wait_until(
                lambda: env if (env := read()).get("MYTTY_SURFACE_ID") else None,
                10,
                message=f"pane {pane_id}'s process to exec",
            )
        return read()

    def _created_by_controller(self, tmux_id: str) -> bool:
        start = self.tmux("display-message", "-p", "-t", tmux_id, "#{pane_start_command}")
        return "mytty-shell" in start

    def tmux_id(self, pane_id: str) -> str:
        out = self.tmux("list-panes", "-a", "-F", "#{pane_id} #{@mytty_surface}")
        for line in out.splitlines():
            tid, _, surface = line.partition(" ")
            if surface == pane_id:
                return tid
        raise AssertionError(f"no tmux pane carries surface {pane_id}")

    def read(self, pane_id: str) -> str:
        return self.ctl("read", pane_id).json["content"]["text"]

    def wait_for_text(self, pane_id: str, needle: str, timeout: float = 15.0) -> str:
        def probe() -> str | None:
            text = self.read(pane_id)
            return text if needle in text else None

        return wait_until(probe, timeout, message=f"{needle!r} in pane {pane_id}")
