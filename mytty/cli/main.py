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
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import typer

from mytty.cli.integrations import app as integrations_app
from mytty.core.errors import MyttyError

app = typer.Typer(
    help="mytty: a tmux-backed orchestration controller for AI coding agents.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(
    integrations_app, name="integrations", help="Install or remove agent hook integrations."
)

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0


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
    _die("the mytty-ctl executable was not found next to Python or on PATH; reinstall mytty")
    raise AssertionError


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
    from mytty.core.errors import ErrorCode

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


@app.command()
def serve(
    tmux_socket: str | None = typer.Option(
        None, "--tmux-socket", help="tmux server socket (like tmux -S)."
    ),
    ready_fd: int | None = typer.Option(None, "--ready-fd", hidden=True),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Debug logging."),
) -> None:
    """Run the controller in the foreground until SIGTERM or Ctrl-C."""
    from mytty.daemon.app import Controller
    from mytty.tmux.bootstrap import resolve_socket

    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    home = _home()
    controller = Controller(home, resolve_socket(tmux_socket, os.environ), ctl_bin=ctl_bin())

    def ready() -> None:
        if ready_fd is not None:
            os.write(ready_fd, b"ready\n")
            os.close(ready_fd)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, controller.request_stop)
        await controller.run(on_ready=ready)

    try:
        asyncio.run(main())
    except MyttyError as exc:
        if ready_fd is not None:
            try:
                os.write(ready_fd, f"error {exc.code.value}: {exc.message}\n".encode())
            except OSError:
                pass
        _die(f"{exc.code.value}: {exc.message}")


def _start(tmux_socket: str | None) -> bool:
    """Start a background controller unless one answers. True when it was started now."""
    if _running():
        return False
    home = _home()
    try:
        home.ensure()
    except MyttyError as exc:
        _die(f"{exc.code.value}: {exc.message}")
    read_fd, write_fd = os.pipe()
    argv = [sys.executable, "-m", "mytty.cli.main", "serve", "--ready-fd", str(write_fd)]
    if tmux_socket:
        argv += ["--tmux-socket", tmux_socket]
    with open(home.log_file, "ab") as log:
        os.chmod(home.log_file, 0o600)
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
        while time.monotonic() < deadline:
            ready, _, _ = select.select([pipe], [], [], deadline - time.monotonic())
            if not ready:
                break
            chunk = os.read(pipe.fileno(), 4096)
            if not chunk:
                break
            message += chunk
            if b"\n" in message:
                break
    text = message.decode(errors="replace").strip()
    if text == "ready":
        return True
    if proc.poll() is None and not text:
        proc.terminate()
    if text.startswith("error "):
        _die(text.removeprefix("error "))  # "<code>: <explanation>" from the controller
    _die(f"the controller did not start; see {home.log_file}")
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
    else:
        typer.echo(f"mytty is already running (home {home.root})")


@app.command()
def stop() -> None:
    """Stop the background controller of this MYTTY_HOME."""
    import fcntl

    home = _home()
    try:
        fd = os.open(home.lock_file, os.O_RDWR)
    except FileNotFoundError:
        typer.echo("mytty is not running")
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            typer.echo("mytty is not running")
            return
        except BlockingIOError:
            pid = int(os.read(fd, 32).decode().strip() or "0")
    finally:
        os.close(fd)
    if pid <= 0:
        _die("the controller's lock is held but its pid is unknown")
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        typer.echo("mytty is not running")
        return
    os.kill(pid, signal.SIGTERM)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    if not poller.poll(STOP_TIMEOUT_S * 1000):
        os.close(pidfd)
        _die(f"the controller (pid {pid}) did not stop within {STOP_TIMEOUT_S:.0f} s")
    os.close(pidfd)
    typer.echo("mytty stopped")


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
    _start(tmux_socket)
    try:
        reply = _request({"type": "ensureSession"})
    except MyttyError as exc:
        _die(f"{exc.code.value}: {exc.message}")
        return
    session, sock = reply["name"], reply["tmuxSocket"]
    if no_attach:
        typer.echo(f"mytty is ready: tmux -S {sock} attach -t {session}")
        return
    tmux = shutil.which("tmux") or "tmux"
    current = os.environ.get("TMUX", "").split(",")[0]
    if current and os.path.realpath(current) == os.path.realpath(sock):
        os.execvp(tmux, [tmux, "-S", sock, "switch-client", "-t", f"={session}"])
    if current:
        # Inside another tmux server: attaching would nest; say how instead.
        typer.echo(
            f"mytty runs on another tmux server; detach and run: tmux -S {sock} attach -t {session}"
        )
        return
    if not sys.stdin.isatty():
        typer.echo(f"mytty is ready: tmux -S {sock} attach -t {session}")
        return
    os.execvp(tmux, [tmux, "-S", sock, "attach-session", "-t", f"={session}"])


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


@app.command()
def attention(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    ack: list[str] = typer.Option(
        [], "--ack", help="Mark a run's open items as seen (its runID; repeatable)."
    ),
    ack_all: bool = typer.Option(False, "--ack-all", help="Mark every open item as seen."),
) -> None:
    """What needs a human: approvals, questions, failures, disconnects, long completions."""
    request: dict[str, Any] = {"type": "attention"}
    if ack:
        request["acknowledge"] = ack
    if ack_all:
        request["acknowledgeAll"] = True
    try:
        reply = _request(request)
    except MyttyError as exc:
        _die(f"{exc.code.value}: {exc.message}")
        return
    if as_json:
        typer.echo(json.dumps(reply, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.table import Table

    items = reply.get("items", [])
    console = Console()
    if not items:
        console.print("Nothing needs you right now.")
        return
    labels = {
        "approval-request": "approve a tool call",
        "input-request": "answer a question",
        "failure": "look at a failure",
        "disconnect": "agent disconnected",
        "completion": "finished (long run)",
    }
    table = Table(title="mytty attention")
    for column in ("pane", "run", "provider", "needs", "age", "message", "state"):
        table.add_column(column)
    for item in items:
        table.add_row(
            item["paneID"][:8],
            item["runID"],
            item["provider"],
            labels.get(item["kind"], item["kind"]),
            _age(item["createdAt"]),
            item.get("message") or "",
            "resolved" if item.get("resolvedAt") else "open",
        )
    console.print(table)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
