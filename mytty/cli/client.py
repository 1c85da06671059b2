"""What every ``mytty`` command shares: its ``MYTTY_HOME``, requests to that home's controller,
the one way a command fails, progress lines, and the one rich console set-up.

A failure is one line on stderr, ``mytty: <code>: <explanation>``, and exit status 1, whether
it comes from the controller's reply, the transport or the command itself: :func:`fail` and
:func:`die` print it, and ``with exit_on_error():`` turns a :class:`MyttyError` raised inside
into it. Requests are built from the control commands' declarations
(:func:`mytty.cli.requests.build`), never spelled here.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import typer

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.terminal_text import printable

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderHook, RichCast
    from rich.segment import Segment

    from mytty.daemon.home import Home

#: How long a request waits for its reply unless the command chooses otherwise.
REPLY_TIMEOUT_S = 10.0
#: How long :func:`running` gives the controller to answer.
PROBE_TIMEOUT_S = 3.0


def home() -> Home:
    """This ``mytty``'s home: ``$MYTTY_HOME``, else ``~/.config/mytty``."""
    from mytty.daemon.home import Home, default_home

    return Home(default_home())


def _code(text: str) -> ErrorCode:
    try:
        return ErrorCode(text)
    except ValueError:
        return ErrorCode.INTERNAL_ERROR


def request(
    command: str, values: Mapping[str, object] | None = None, *, timeout: float = REPLY_TIMEOUT_S
) -> dict[str, Any]:
    """Ask this home's controller: ``command`` (its ``mytty-ctl`` words or wire type) with
    ``values`` as :func:`mytty.cli.requests.build` takes them. The reply, or MyttyError (a
    failure reply, no controller, no answer within ``timeout`` seconds)."""
    from mytty.cli import requests, transport

    try:
        built = requests.build(command, values)
        return transport.send(built, timeout, path=str(home().control_socket))
    except transport.CtlError as exc:
        raise MyttyError(_code(exc.code), exc.message) from None
    except requests.Refused as exc:
        raise MyttyError(_code(exc.code), exc.message) from None


def running() -> bool:
    """Whether this home's controller answers (within :data:`PROBE_TIMEOUT_S`)."""
    try:
        request("attention", timeout=PROBE_TIMEOUT_S)
        return True
    except MyttyError:
        return False


def say(message: str) -> None:
    """A progress line for humans (stderr: stdout stays for what scripts read)."""
    typer.echo(f"mytty: {message}", err=True)


def die(message: str) -> NoReturn:
    """End the command: ``mytty: <message>`` on stderr, exit status 1."""
    typer.echo(f"mytty: {message}", err=True)
    raise typer.Exit(1)


def fail(code: ErrorCode, message: str) -> NoReturn:
    """End the command with the one failure line, ``mytty: <code>: <message>``."""
    die(f"{code.value}: {message}")


@contextlib.contextmanager
def exit_on_error(*, os_errors: bool = False) -> Iterator[None]:
    """Turn a MyttyError raised inside into the failure line and exit 1; with ``os_errors``,
    an OSError too (as ``internal-error``: the commands that edit the user's files)."""
    try:
        yield
    except MyttyError as exc:
        fail(exc.code, exc.message)
    except OSError as exc:
        if not os_errors:
            raise
        fail(ErrorCode.INTERNAL_ERROR, str(exc))


def console(file: TextIO | None = None, *, force_terminal: bool | None = None) -> Console:
    """The console every human command prints rich output to (a new one each time: it reads
    the terminal then). No automatic highlighting: numbers, paths and quotes in a message keep
    the style their table gives them. Whatever it prints passes through :func:`printable`:
    labels, notes and messages come from agents, and rich passes an escape sequence in a
    string straight to the terminal (a title change, a clipboard write, a cleared screen)."""
    from rich.console import Console

    out = Console(highlight=False, file=file, force_terminal=force_terminal)
    out.push_render_hook(_printable_hook())
    return out


def _printable_hook() -> RenderHook:
    """A rich render hook: each renderable is printed through :func:`printable`, segment by
    segment, so rich's own styles and cursor controls stay and only the text is cleaned."""
    from rich.console import RenderHook
    from rich.segment import Segment

    class Printable:  # a ConsoleRenderable
        def __init__(self, inner: ConsoleRenderable) -> None:
            self.inner = inner

        def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
            for segment in console.render(self.inner, options):
                yield (
                    segment if segment.control else Segment(printable(segment.text), segment.style)
                )

    class Hook(RenderHook):
        def process_renderables(
            self, renderables: list[ConsoleRenderable]
        ) -> list[ConsoleRenderable]:
            return [Printable(r) for r in renderables]

    return Hook()


def fits(rows: Sequence[Sequence[str]], width: int, per_column: int = 3) -> bool:
    """Whether a table of ``rows`` fits ``width`` columns with no cell wrapped or cut
    (``per_column``: each column's padding and rule). What a user must copy (a path, a
    command) is never cut: a table that does not fit is printed another way (one block per row,
    soft-wrapped by the terminal)."""
    if not rows:
        return True
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    return sum(widths) + per_column * len(widths) + 1 <= width


#: How long one long poll of a live view waits for the controller's next event (seconds).
LIVE_POLL_S = 30.0


def follow(view: ConsoleRenderable | RichCast, refresh: Callable[[str], None]) -> None:
    """Show ``view`` live until Ctrl-C: ``refresh(status)`` now and after every batch of the
    controller's events, woken by a long poll, never by a timer (MyttyError when the
    controller stops answering)."""
    from rich.live import Live

    cursor = request("events")["latestSequence"]
    refresh("up to date")
    try:
        with Live(view, console=console(), refresh_per_second=1):
            while True:
                page = request(
                    "events",
                    {"afterSequence": cursor, "timeoutSeconds": LIVE_POLL_S},
                    timeout=LIVE_POLL_S + 15,
                )
                cursor = page["latestSequence"]
                refresh(f"updated {time.strftime('%H:%M:%S')}")
    except KeyboardInterrupt:
        return
