"""``mytty web``: serve the web view, pair another browser, or end every session."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer

from mytty.cli import client
from mytty.core.errors import ErrorCode

if TYPE_CHECKING:
    from mytty.web.sessions import Sessions

#: What an agent's pane hands its hooks. The web server talks to the control socket only, so
#: it drops them at start: nothing it runs (the browser ``--open`` starts) gets a pane's
#: event capability either.
PANE_ONLY_VARS = ("MYTTY_EVENT_CAPABILITY", "MYTTY_SURFACE_ID", "MYTTY_EVENT_SOCKET")


def _sessions() -> Sessions:
    import time

    from mytty.web.sessions import Sessions
    from mytty.web.state import WEB_DIR, StateFile

    return Sessions(StateFile(client.home().root / WEB_DIR), time.time)


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pair() -> None:
    import sys

    from mytty.web.server import pairing_text

    sessions = _sessions()
    state = sessions.current()
    if state.url is None or not _alive(state.pid):
        client.fail(
            ErrorCode.NOT_RUNNING,
            "no `mytty web` is running for this MYTTY_HOME; start one with `mytty web`",
        )
    code = sessions.issue_code()
    sys.stdout.write(pairing_text(state.url, code, terminal=sys.stdout.isatty()))


def command(
    listen: str = typer.Option(
        "127.0.0.1:8765",
        "--listen",
        metavar="HOST:PORT",
        help="Where to listen (default loopback only; port 0 picks a free one). An address "
        "other machines reach needs --tls-cert and --tls-key.",
    ),
    open_browser: bool = typer.Option(
        False, "--open", help="Open the pairing link in this machine's browser."
    ),
    tls_cert: str | None = typer.Option(
        None, "--tls-cert", metavar="PATH", help="Serve HTTPS with this certificate (PEM)."
    ),
    tls_key: str | None = typer.Option(
        None, "--tls-key", metavar="PATH", help="The certificate's private key (PEM)."
    ),
    pair: bool = typer.Option(
        False, "--pair", help="Print a new pairing link for the running `mytty web` and exit."
    ),
    revoke_all: bool = typer.Option(
        False, "--revoke-all", help="End every paired browser's session and exit."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log more."),
) -> None:
    """A phone-sized web view of every agent: approve, deny and answer from a browser."""
    if pair and revoke_all:
        client.fail(ErrorCode.USAGE, "--pair and --revoke-all are separate commands")
    if revoke_all:
        ended = _sessions().revoke_all()
        typer.echo(
            f"mytty web: ended {ended} session{'s' if ended != 1 else ''}; "
            "every browser must pair again"
        )
        return
    if pair:
        _pair()
        return
    import asyncio
    import sys

    from mytty.web import listen as listen_mod
    from mytty.web.server import Options, configure_logging, serve

    for name in PANE_ONLY_VARS:
        os.environ.pop(name, None)
    with client.exit_on_error():
        where = listen_mod.parse(listen)
        listen_mod.require_tls_where_needed(where, tls_cert, tls_key)
        configure_logging(verbose)
        options = Options(where, tls_cert, tls_key, open_browser)
        asyncio.run(serve(options, _sessions(), sys.stdout))
