"""``mytty``: the human's command (controller lifecycle, attention, integrations)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
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
from pathlib import Path
from typing import Any

import typer

from mytty.cli.doctor import doctor_command
from mytty.cli.integrations import app as integrations_app
from mytty.cli.ls import command as ls_command
from mytty.cli.notify import app as notify_app
from mytty.cli.resume import command as resume_command
from mytty.cli.resume import offer as offer_resume
from mytty.cli.shell_integration import app as shell_integration_app
from mytty.cli.tmux_cmd import app as tmux_app
from mytty.cli.worktree import app as worktree_app
from mytty.core.attention.items import need_word
from mytty.core.errors import ErrorCode, MyttyError

app = typer.Typer(
    help="mytty: a tmux-backed orchestration controller for AI coding agents.",
    no_args_is_help=True,
    # A failure is one `mytty: <code>: <explanation>` line, never a rich traceback.
    pretty_exceptions_enable=False,
)
app.add_typer(
    integrations_app, name="integrations", help="Install or remove agent hook integrations."
)
app.add_typer(shell_integration_app, name="shell-integration")
app.add_typer(worktree_app, name="worktree")
app.add_typer(tmux_app, name="tmux")
app.add_typer(notify_app, name="notify")
app.command("doctor")(doctor_command)
app.command("ls")(ls_command)
app.command("resume")(resume_command)
app.command("status", help="The same as `mytty ls`.")(ls_command)


def _print_version(value: bool) -> None:
    if value:
        from mytty import __version__

        typer.echo(f"mytty {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print mytty's version and exit.",
    ),
) -> None:
    pass


START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
#: After this long without a word from a starting controller, say that it is still starting.
SLOW_START_S = 5.0


def _die(message: str, code: int = 1) -> None:
    typer.echo(f"mytty: {message}", err=True)
    raise typer.Exit(code)


def ctl_bin() -> str:
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


def _home() -> Any:
    from mytty.daemon.home import Home, default_home

    return Home(default_home())


def _request(obj: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
    from mytty.cli import ctl

    body = json.dumps(obj).encode()
    try:
        reply = ctl.exchange(str(_home().control_socket), body, timeout)
    except ctl.CtlError as exc:
        raise MyttyError(_code(exc.code), exc.message) from None
    if reply.get("type") == "failure":
        raise MyttyError(_code(str(reply.get("code"))), str(reply.get("message")))
    return reply


def _code(text: str) -> Any:
    try:
        return ErrorCode(text)
    except ValueError:
        return ErrorCode.INTERNAL_ERROR


def _running() -> bool:
    try:
        _request({"type": "attention"}, timeout=3.0)
        return True
    except MyttyError:
        return False


def _say(message: str) -> None:
    """A progress line for humans (stderr: stdout stays for what scripts read)."""
    typer.echo(f"mytty: {message}", err=True)


def _prepare_home(home: Any) -> None:
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


def _log_traceback(home: Any) -> bool:
    """Append the current exception's traceback to the log. False when that failed."""
    try:
        with open(home.log_file, "a", encoding="utf-8") as log:
            log.write(f"{dt.datetime.now().isoformat(timespec='seconds')} the controller failed:\n")
            traceback.print_exc(file=log)
        return True
    except OSError:
        return False


@app.command()
def serve(
    tmux_socket: str | None = typer.Option(
        None, "--tmux-socket", help="tmux server socket (like tmux -S)."
    ),
    ready_fd: int | None = typer.Option(None, "--ready-fd", hidden=True),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging."),
) -> None:
    """Run the controller in the foreground until SIGTERM or Ctrl-C."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    home = _home()

    def report(line: str) -> None:
        if ready_fd is not None:
            try:
                os.write(ready_fd, f"{line}\n".encode())
                os.close(ready_fd)
            except OSError:
                pass

    def fail(code: ErrorCode, message: str) -> None:
        report(f"error {code.value}: {message}")
        _die(f"{code.value}: {message}")

    socket_path = tmux_socket or "?"
    try:
        _prepare_home(home)
        from mytty.daemon.app import Controller
        from mytty.daemon.clock import timings_from
        from mytty.tmux import socketdir
        from mytty.tmux.bootstrap import resolve_socket
        from mytty.tmux.control_client import TmuxConnectionLost

        socket_path = resolve_socket(tmux_socket, os.environ)
        socketdir.ensure(socket_path, default=socket_path == socketdir.default_socket(os.environ))
        # MYTTY_TEST_TIMINGS is for the test suite only; unset, the durations are the seeds'.
        controller = Controller(
            home, socket_path, ctl_bin=ctl_bin(), timings=timings_from(os.environ)
        )

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


def _record_socket(home: Any, socket_path: str) -> None:
    try:
        from mytty.daemon.home import write_private

        write_private(home.tmux_socket_record, os.fsencode(socket_path + "\n"))  # 0600: a path
    except OSError:
        pass  # only a convenience for `mytty up`'s recovery


def _recorded_socket(home: Any) -> str | None:
    try:
        return home.tmux_socket_record.read_text().strip() or None
    except OSError:
        return None


def _log_tail_line(log_file: Path, offset: int) -> str:
    """The last non-empty line the controller wrote to its log after ``offset``."""
    try:
        with open(log_file, "rb") as log:
            log.seek(offset)
            lines = log.read()[-8192:].decode(errors="replace").splitlines()
    except OSError:
        return ""
    return next((line.strip() for line in reversed(lines) if line.strip()), "")


def _start(tmux_socket: str | None, *, announce: bool = False) -> bool:
    """Start a background controller unless one answers. True when it was started now."""
    if _running():
        return False
    if announce:
        _say("starting the controller")
    home = _home()
    try:
        _prepare_home(home)
    except MyttyError as exc:
        _die(f"{exc.code.value}: {exc.message}")
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
                _say(f"the controller is still starting (log: {home.log_file})")
                continue
            chunk = os.read(pipe.fileno(), 4096)
            if not chunk:
                break
            message += chunk
    text = message.decode(errors="replace").strip()
    if text == "ready":
        return True
    if text.startswith("error "):
        _die(text.removeprefix("error "))  # "<code>: <explanation>" from the controller
    if proc.poll() is None:
        proc.terminate()
        _die(
            f"{ErrorCode.TIMEOUT.value}: the controller did not get ready within "
            f"{START_TIMEOUT_S:.0f} s; see {home.log_file}"
        )
    last = _log_tail_line(home.log_file, offset)
    _die(
        f"{ErrorCode.INTERNAL_ERROR.value}: the controller exited (status {proc.returncode})"
        + (f": {last}" if last else "")
        + f"; see {home.log_file}"
    )
    return False


@app.command()
def start(
    tmux_socket: str | None = typer.Option(
        None, "--tmux-socket", help="tmux server socket (like tmux -S)."
    ),
) -> None:
    """Start the controller in the background (does nothing when one is running)."""
    home = _home()
    if _start(tmux_socket):
        typer.echo(f"mytty started (home {home.root}, log {home.log_file})")
        offer_resume(True)  # [resume] mode in config.toml
    else:
        typer.echo(f"mytty is already running (home {home.root})")


def _stop() -> bool:
    """Stop this home's controller. False when none was running."""
    import fcntl

    home = _home()
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
        _die(
            f"{ErrorCode.INTERNAL_ERROR.value}: the controller's lock is held but its pid is unknown"
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
        _die(
            f"{ErrorCode.TIMEOUT.value}: the controller (pid {pid}) did not stop within "
            f"{STOP_TIMEOUT_S:.0f} s"
        )
    os.close(pidfd)
    return True


@app.command()
def stop() -> None:
    """Stop the background controller of this MYTTY_HOME."""
    typer.echo("mytty stopped" if _stop() else "mytty is not running")


#: The tmux sockets whose dead server `_ensure_session` replaced during this command.
_RESTARTED: list[str | None] = []


def _ensure_session(tmux_socket: str | None, started: bool) -> dict[str, Any]:
    """The `mytty` session (``ensureSession``), restarting a controller whose tmux died."""
    try:
        return _request({"type": "ensureSession"})
    except MyttyError as exc:
        if exc.code is not ErrorCode.TMUX_UNAVAILABLE or started:
            _die(f"{exc.code.value}: {exc.message}")
            raise
        failure = exc
    from mytty.tmux.bootstrap import server_alive

    home = _home()
    socket_path = tmux_socket or _recorded_socket(home)
    if socket_path is None or server_alive(socket_path):
        # The server is there (the controller is only reconnecting): a restart would lose
        # its jobs for nothing.
        _die(f"{failure.code.value}: {failure.message}; try again in a moment")
    # The controller never starts a server again by itself (a server the user killed stays
    # dead); `mytty up` is the user asking for one, so restart the controller onto a new one.
    _say(f"the tmux server at {socket_path} is gone; restarting the controller on a new one")
    _stop()
    _start(socket_path)
    _RESTARTED.append(socket_path)  # `up` then offers to resume the workers lost with it
    try:
        return _request({"type": "ensureSession"})
    except MyttyError as exc:
        _die(f"{exc.code.value}: {exc.message}")
        raise


@app.command()
def up(
    tmux_socket: str | None = typer.Option(
        None, "--tmux-socket", help="tmux server socket (like tmux -S)."
    ),
    no_attach: bool = typer.Option(
        False, "--no-attach", help="Prepare everything but don't attach."
    ),
) -> None:
    """Start mytty if needed, make sure the `mytty` session exists, and attach to it."""
    started = _start(tmux_socket, announce=True)
    reply = _ensure_session(tmux_socket, started)
    offer_resume(started or bool(_RESTARTED))  # [resume] mode in config.toml
    session, sock = reply["name"], reply["tmuxSocket"]
    from mytty.tmux.attach import attach_argv, attach_hint

    if no_attach:
        typer.echo(f"mytty is ready: {attach_hint(sock, session)}")
        return
    current = os.environ.get("TMUX", "").split(",")[0]
    if current and os.path.realpath(current) == os.path.realpath(sock):
        _say(f"switching to tmux session {session}")
        argv = attach_argv(sock, session, inside_same_server=True)
        os.execvp(argv[0], argv)
    if current:
        # Inside another tmux server: attaching would nest; say how instead.
        typer.echo(
            f"mytty runs on another tmux server; detach and run: {attach_hint(sock, session)}"
        )
        return
    if not sys.stdin.isatty():
        typer.echo(f"mytty is ready: {attach_hint(sock, session)}")
        return
    _say(f"attaching to tmux session {session} (detach with your tmux prefix, then d: C-b d)")
    argv = attach_argv(sock, session, inside_same_server=False)
    os.execvp(argv[0], argv)


def _age(created: str) -> str:
    try:
        then = dt.datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return "?"
    seconds = max(0, int(time.time() - then))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


#: Below this many columns for the message, items are listed one block each, not as a table.
_MIN_MESSAGE_COLUMNS = 24


def _resolve_runs(wanted: list[str], items: list[dict[str, Any]]) -> list[str]:
    """Full run ids for ``--ack`` arguments: a run id, or a unique prefix of one (as shown)."""
    runs = sorted({str(item["runID"]) for item in items})
    resolved: list[str] = []
    for text in wanted:
        key = text.strip().upper()
        matches = [r for r in runs if r == key] or [r for r in runs if key and r.startswith(key)]
        if len(matches) != 1:
            why = f"matches {len(matches)} runs; give more of it" if matches else "has no item"
            _die(
                f"{ErrorCode.RUN_NOT_FOUND.value}: run {text!r} {why} "
                "(`mytty attention --all` lists the runs); nothing was acknowledged"
            )
        resolved.append(matches[0])
    return resolved


@app.command()
def attention(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    show_all: bool = typer.Option(
        False, "--all", help="Also list resolved and acknowledged items (kept 24 h)."
    ),
    ack: list[str] = typer.Option(
        [],
        "--ack",
        help="Mark a run's open items as seen (its run id or a unique prefix; repeatable).",
    ),
    ack_all: bool = typer.Option(False, "--ack-all", help="Mark every open item as seen."),
    live: bool = typer.Option(
        False, "--watch", help="A live view that follows the events (Ctrl-C stops it)."
    ),
) -> None:
    """What needs a human: approvals, questions, failures, disconnects, long completions."""
    if live and as_json:
        _die(
            f"{ErrorCode.USAGE.value}: --watch is for humans; scripts long-poll `mytty-ctl events`"
        )
    request: dict[str, Any] = {"type": "attention"}
    try:
        if ack:
            request["acknowledge"] = _resolve_runs(ack, _request(request).get("items", []))
        if ack_all:
            request["acknowledgeAll"] = True
        reply = _request(request)
    except MyttyError as exc:
        _die(f"{exc.code.value}: {exc.message}")
        return
    if live:
        from mytty.cli.attention_watch import watch

        try:
            watch(_request, show_all)
        except MyttyError as exc:
            _die(f"{exc.code.value}: {exc.message}")
        return
    every = reply.get("items", [])
    items = every if show_all else [i for i in every if not i.get("resolvedAt")]
    if as_json:
        typer.echo(json.dumps({**reply, "items": items}, ensure_ascii=False))
        return
    _print_attention(items, hidden=len(every) - len(items), show_state=show_all)


def _print_attention(items: list[dict[str, Any]], *, hidden: int, show_state: bool) -> None:
    from rich import box
    from rich.console import Console
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    if not items:
        more = f" ({hidden} resolved hidden; --all lists them)" if hidden else ""
        console.print(Text("Nothing needs you right now." + more))
        return
    rows = [
        {
            "pane": item.get("location") or "(closed)",
            "label": item.get("label") or "-",
            "run": str(item["runID"])[:8],
            "provider": item["provider"],
            "needs": need_word(item["kind"]),
            "age": _age(item["createdAt"]),
            **({"state": "resolved" if item.get("resolvedAt") else "open"} if show_state else {}),
            "message": item.get("message") or "",
        }
        for item in items
    ]
    fixed = [column for column in rows[0] if column != "message"]
    # Each column is as wide as its widest cell or header, plus 3 for padding and the gap.
    width = sum(max(len(c), *(len(r[c]) for r in rows)) + 3 for c in fixed)
    if console.width - width >= _MIN_MESSAGE_COLUMNS:
        table = Table(title="mytty attention", box=box.SIMPLE_HEAD, pad_edge=False)
        for column in rows[0]:
            wrap = column == "message"
            table.add_column(column, no_wrap=not wrap, overflow="fold" if wrap else "ellipsis")
        for row in rows:
            table.add_row(*(Text(value) for value in row.values()))
        console.print(table)
        return
    # A narrow pane: one block per item, nothing cut off, the message on lines of its own.
    console.print(Text("mytty attention", style="bold"))
    for row in rows:
        state = f" ({row['state']})" if "state" in row else ""
        console.print(Text(f"{row['pane']}  {row['label']}  {row['needs']}{state}  {row['age']}"))
        console.print(Text(f"  {row['provider']}, run {row['run']}"))
        if row["message"]:
            console.print(Padding(Text(row["message"], style="dim"), (0, 0, 0, 2), expand=False))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
