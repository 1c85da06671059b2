"""The controller's lifecycle as the ``mytty`` commands drive it.

:func:`start` launches ``mytty serve`` in the background and waits for the word it writes to
a pipe (``ready``, or ``error <code>: <explanation>``); :func:`stop` signals the process that
holds the home's lock and waits for it to exit; :func:`ensure_session` makes sure the
``mytty`` tmux session exists, restarting onto a new tmux server a controller whose server
died; :func:`serve` is the controller in the foreground. Failures end the command with the
one line of :mod:`mytty.cli.client`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from mytty.cli import client
from mytty.core.errors import ErrorCode, MyttyError

if TYPE_CHECKING:
    from mytty.daemon.home import Home

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
#: After this long without a word from a starting controller, say that it is still starting.
SLOW_START_S = 5.0


@dataclass(frozen=True, slots=True)
class Session:
    """The ``mytty`` tmux session (``ensureSession``'s reply) and whether getting it took a
    new tmux server (then the workers lost with the old one may be resumed)."""

    name: str
    tmux_socket: str
    restarted: bool


def ctl_bin() -> str:
    """The ``mytty-ctl`` executable panes get: the one beside this Python, else on PATH."""
    beside = Path(sys.executable).parent / "mytty-ctl"
    if beside.exists():
        return str(beside)
    found = shutil.which("mytty-ctl")
    if found:
        return os.path.abspath(found)
    raise MyttyError(
        ErrorCode.INTERNAL_ERROR,
        "the mytty-ctl executable was not found next to Python or on PATH; reinstall mytty",
    )


def prepare_home(home: Home) -> None:
    """Create MYTTY_HOME (0700) and make sure its log is writable (``invalid-home`` if not)."""
    try:
        home.ensure()
        fd = os.open(home.log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.close(fd)
        os.chmod(home.log_file, 0o600)
    except OSError as exc:
        raise MyttyError(
            ErrorCode.INVALID_HOME,
            f"cannot use {home.root} as MYTTY_HOME ({exc.strerror or exc}); "
            "point MYTTY_HOME at a directory you can write",
        ) from None


def recorded_socket(home: Home) -> str | None:
    """The tmux socket the home's controller last ran on (what ``mytty up`` restarts onto)."""
    try:
        return home.tmux_socket_record.read_text().strip() or None
    except OSError:
        return None


def _record_socket(home: Home, socket_path: str) -> None:
    try:
        from mytty.daemon.home import write_private

        # 0600: a path another user could swap for their own server's
        write_private(home.tmux_socket_record, os.fsencode(socket_path + "\n"))
    except OSError:
        pass  # only a convenience for `mytty up`'s recovery


# -- which tmux server -------------------------------------------------------------------------
def socket_choice(tmux_socket: str | None, env: dict[str, str] | None = None) -> tuple[str, str]:
    """The tmux server a controller started now binds to, and why: the order of
    :func:`mytty.tmux.bootstrap.resolve_socket`, in words for the user."""
    from mytty.tmux.bootstrap import resolve_socket

    env = dict(os.environ) if env is None else env
    path = resolve_socket(tmux_socket, env)
    if tmux_socket:
        return path, "--tmux-socket"
    if env.get("MYTTY_TMUX_SOCKET"):
        return path, "$MYTTY_TMUX_SOCKET"
    if env.get("TMUX"):
        return path, "the server of $TMUX, the tmux you are in"
    return path, "your default tmux server"


def refuse_other_server(tmux_socket: str | None) -> None:
    """A running controller stays on its server: a ``--tmux-socket`` (or
    ``$MYTTY_TMUX_SOCKET``) naming another is refused with ``already-running``, never ignored."""
    if not tmux_socket and not os.environ.get("MYTTY_TMUX_SOCKET"):
        return  # nothing asked for explicitly
    home = client.home()
    running_on = recorded_socket(home)
    wanted, why = socket_choice(tmux_socket)
    if running_on is None or os.path.realpath(running_on) == os.path.realpath(wanted):
        return
    client.fail(
        ErrorCode.ALREADY_RUNNING,
        f"the controller of {home.root} runs on the tmux server at {running_on}, not {wanted} "
        f"({why}); run `mytty stop` first to move it, or give the other server its own "
        "MYTTY_HOME",
    )


# -- start -------------------------------------------------------------------------------------
def start(tmux_socket: str | None, *, announce: bool = False) -> bool:
    """Start a background controller unless one answers. True when it was started now.
    A running one on another server than the one asked for is refused (see
    :func:`refuse_other_server`)."""
    if client.running():
        refuse_other_server(tmux_socket)
        return False
    if announce:
        path, why = socket_choice(tmux_socket)
        client.say(f"starting the controller on the tmux server at {path} ({why})")
    home = client.home()
    with client.exit_on_error():
        prepare_home(home)
    read_fd, write_fd = os.pipe()
    argv = [sys.executable, "-m", "mytty.cli.main", "serve", "--ready-fd", str(write_fd)]
    if tmux_socket:
        argv += ["--tmux-socket", tmux_socket]
    offset = home.log_file.stat().st_size
    with open(home.log_file, "ab") as log:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            pass_fds=(write_fd,),
            start_new_session=True,
        )
    os.close(write_fd)
    word = _read_ready_word(read_fd, home)
    if word == "ready":
        return True
    _start_failed(word, proc, home, offset)


def _read_ready_word(read_fd: int, home: Home) -> str:
    """The line the starting controller writes to the pipe ('' when it wrote none in time)."""
    message = b""
    deadline = time.monotonic() + START_TIMEOUT_S
    with os.fdopen(read_fd, "rb") as pipe:
        # EOF on the pipe means the controller exited (nothing else holds its write end).
        warn_at, warned = time.monotonic() + SLOW_START_S, False
        while b"\n" not in message and (left := deadline - time.monotonic()) > 0:
            wait = left if warned else max(0.0, min(left, warn_at - time.monotonic()))
            ready, _, _ = select.select([pipe], [], [], wait)
            if not ready:
                if warned:
                    break
                warned = True  # a slow start is said once, not left silent for 30 s
                client.say(f"the controller is still starting (log: {home.log_file})")
                continue
            chunk = os.read(pipe.fileno(), 4096)
            if not chunk:
                break
            message += chunk
    return message.decode(errors="replace").strip()


def _start_failed(word: str, proc: subprocess.Popen[bytes], home: Home, offset: int) -> NoReturn:
    if word.startswith("error "):
        client.die(word.removeprefix("error "))  # "<code>: <explanation>" from the controller
    if proc.poll() is None:
        proc.terminate()
        client.fail(
            ErrorCode.TIMEOUT,
            f"the controller did not get ready within {START_TIMEOUT_S:.0f} s; see {home.log_file}",
        )
    last = _log_tail_line(home.log_file, offset)
    client.fail(
        ErrorCode.INTERNAL_ERROR,
        f"the controller exited (status {proc.returncode})"
        + (f": {last}" if last else "")
        + f"; see {home.log_file}",
    )


def _log_tail_line(log_file: Path, offset: int) -> str:
    """The last non-empty line the controller wrote to its log after ``offset``."""
    try:
        with open(log_file, "rb") as log:
            log.seek(offset)
            lines = log.read()[-8192:].decode(errors="replace").splitlines()
    except OSError:
        return ""
    return next((line.strip() for line in reversed(lines) if line.strip()), "")


# -- stop --------------------------------------------------------------------------------------
def stop() -> bool:
    """Stop this home's controller. False when none was running."""
    import fcntl

    home = client.home()
    try:
        fd = os.open(home.lock_file, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            pid = int(os.read(fd, 32).decode().strip() or "0")
    finally:
        os.close(fd)
    if pid <= 0:
        client.fail(
            ErrorCode.INTERNAL_ERROR, "the controller's lock is held but its pid is unknown"
        )
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return False
    os.kill(pid, signal.SIGTERM)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    if not poller.poll(STOP_TIMEOUT_S * 1000):
        os.close(pidfd)
        client.fail(
            ErrorCode.TIMEOUT,
            f"the controller (pid {pid}) did not stop within {STOP_TIMEOUT_S:.0f} s",
        )
    os.close(pidfd)
    return True


# -- the mytty session -------------------------------------------------------------------------
def _session(reply: dict[str, Any], *, restarted: bool) -> Session:
    return Session(str(reply["name"]), str(reply["tmuxSocket"]), restarted)


def ensure_session(tmux_socket: str | None, started: bool) -> Session:
    """The ``mytty`` session (``ensureSession``), restarting a controller whose tmux died."""
    try:
        return _session(client.request("ensureSession"), restarted=False)
    except MyttyError as exc:
        if exc.code is not ErrorCode.TMUX_UNAVAILABLE or started:
            client.fail(exc.code, exc.message)
        failure = exc
    from mytty.tmux.bootstrap import server_alive

    recorded = recorded_socket(client.home())
    socket_path = tmux_socket or recorded
    if socket_path is None or server_alive(socket_path):
        # The server is there (the controller is only reconnecting): a restart would lose
        # its jobs for nothing.
        client.fail(failure.code, f"{failure.message}; try again in a moment")
    # The controller never starts a server again by itself (a server the user killed stays
    # dead); `mytty up` is the user asking for one, so restart the controller onto a new one:
    # on the server asked for, else on the one it ran on (not wherever this shell points).
    why = (
        "--tmux-socket"
        if tmux_socket
        else "where this home's controller ran; --tmux-socket X for another"
    )
    gone = f"the tmux server at {recorded or socket_path} is gone"
    client.say(f"{gone}; restarting the controller on a new one at {socket_path} ({why})")
    stop()
    start(socket_path)
    with client.exit_on_error():
        return _session(client.request("ensureSession"), restarted=True)


# -- serve -------------------------------------------------------------------------------------
def _log_traceback(home: Home) -> bool:
    """Append the current exception's traceback to the log. False when that failed."""
    try:
        with open(home.log_file, "a", encoding="utf-8") as log:
            log.write(f"{dt.datetime.now().isoformat(timespec='seconds')} the controller failed:\n")
            traceback.print_exc(file=log)
        return True
    except OSError:
        return False


def _reporter(ready_fd: int | None) -> Callable[[str], None]:
    """Writes the one line ``mytty start`` waits for to ``ready_fd`` (if any), then closes it."""

    def report(line: str) -> None:
        if ready_fd is not None:
            try:
                os.write(ready_fd, f"{line}\n".encode())
                os.close(ready_fd)
            except OSError:
                pass

    return report


def _run(home: Home, socket_path: str, report: Callable[[str], None]) -> None:
    from mytty.daemon.app import Controller
    from mytty.daemon.clock import timings_from

    # MYTTY_TEST_TIMINGS is for the test suite only; unset, the durations are the seeds'.
    controller = Controller(home, socket_path, ctl_bin=ctl_bin(), timings=timings_from(os.environ))

    def ready() -> None:
        # What `mytty up` restarts the controller onto, should this server die.
        _record_socket(home, socket_path)
        report("ready")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, controller.request_stop)
        await controller.run(on_ready=ready)

    asyncio.run(main())


def serve(tmux_socket: str | None, ready_fd: int | None, verbose: bool) -> None:
    """Run the controller in the foreground until SIGTERM, SIGINT or SIGHUP. A failure is the
    one ``mytty: <code>: …`` line, and ``error <code>: …`` on ``ready_fd``."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    home = client.home()
    report = _reporter(ready_fd)

    def fail(code: ErrorCode, message: str) -> NoReturn:
        report(f"error {code.value}: {message}")
        client.fail(code, message)

    # Imported before the try: its except clause needs the name whatever fails first.
    from mytty.tmux.control_client import TmuxConnectionLost

    socket_path = tmux_socket or "?"
    try:
        prepare_home(home)
        from mytty.tmux import socketdir
        from mytty.tmux.bootstrap import resolve_socket

        socket_path = resolve_socket(tmux_socket, os.environ)
        socketdir.ensure(socket_path, default=socket_path == socketdir.default_socket(os.environ))
        _run(home, socket_path, report)
    except typer.Exit:
        raise
    except MyttyError as exc:
        fail(exc.code, exc.message)
    except TmuxConnectionLost:
        fail(
            ErrorCode.TMUX_UNAVAILABLE,
            f"could not attach a control client to the tmux server at {socket_path}",
        )
    except sqlite3.DatabaseError as exc:  # only the event store uses sqlite
        _log_traceback(home)
        fail(
            ErrorCode.INVALID_HOME,
            f"the event store {home.store} cannot be read ({exc}); move it away and start "
            "again (mytty starts a new, empty one)",
        )
    except Exception as exc:  # noqa: BLE001 - one line here, the traceback in the log
        logged = _log_traceback(home)
        fail(
            ErrorCode.INTERNAL_ERROR,
            f"{type(exc).__name__}: {exc}" + (f" (traceback in {home.log_file})" if logged else ""),
        )
