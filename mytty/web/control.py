"""What the web view asks of the controller: exactly what the ``mytty`` command may ask.

Every request goes through :func:`mytty.cli.client.request` (built from the control commands'
declarations, one connection each, the CLI's transport and error codes), run in a worker
thread so that the server's loop never blocks on a socket. The web server is therefore a
client like any ``mytty`` command of the same user: the controller sees its process, it holds
no pane's event capability and never opens the store. Besides the control socket it reads
the ``@mytty_*`` options of the tmux server as ``mytty ls`` does, for what the control replies
don't carry: each pane's place (``session:window.pane``) and since when its state holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mytty.cli import client
from mytty.core.errors import ErrorCode, MyttyError

#: The longest a view waits on one ordinary request.
REQUEST_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class Place:
    """A pane as tmux shows it, from its published options."""

    location: str  # session:window.pane
    session: str
    since: float | None  # @mytty_since: when the pane's state last changed (Unix seconds)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One look at everything the board shows."""

    panes: list[dict[str, Any]] = field(default_factory=list)
    jobs: list[dict[str, Any]] = field(default_factory=list)
    attention: list[dict[str, Any]] = field(default_factory=list)
    #: ``approval list``: the open permission requests (a person sees every one).
    approvals: list[dict[str, Any]] = field(default_factory=list)
    places: dict[str, Place] = field(default_factory=dict)
    #: Why the controller could not be asked (it is not running…); None when it answered.
    problem: str | None = None


class Controller:
    """Requests to this home's controller (``$MYTTY_HOME``), each in a worker thread.
    ``places`` reads each pane's place (tests give their own)."""

    def __init__(self, places: Callable[[], dict[str, Place]] | None = None) -> None:
        self.places = places or read_places

    async def ask(
        self,
        command: str,
        values: Mapping[str, object] | None = None,
        *,
        timeout: float = REQUEST_TIMEOUT_S,
    ) -> dict[str, Any]:
        """The reply to ``command`` (its ``mytty-ctl`` words) with ``values``; MyttyError for a
        failure reply or no controller."""
        return await asyncio.to_thread(client.request, command, values, timeout=timeout)

    async def events(self, after: int | None, timeout: float) -> dict[str, Any]:
        """The ``events`` long poll (without ``after``: only the current cursor)."""
        values: dict[str, object] = {"timeoutSeconds": timeout}
        if after is not None:
            values["afterSequence"] = after
        return await self.ask("events", values, timeout=timeout + 5)

    async def snapshot(self) -> Snapshot:
        """Panes, jobs, attention items and open approvals, asked at once."""
        asks: list[Any] = [
            self.ask("list"),
            self.ask("agent list", {"allLeads": True}),
            self.ask("attention"),
            asyncio.to_thread(self.places),
            self.ask("approval list"),
        ]
        try:
            replies = await asyncio.gather(*asks)
        except MyttyError as exc:
            return Snapshot(problem=_problem(exc))
        return Snapshot(
            panes=list(replies[0].get("panes", [])),
            jobs=list(replies[1].get("jobs", [])),
            attention=list(replies[2].get("items", [])),
            places=replies[3],
            approvals=list(replies[4].get("approvals", [])),
        )


def _problem(exc: MyttyError) -> str:
    if exc.code is ErrorCode.NOT_RUNNING:
        return "The controller is not running: start it with `mytty start` (or `mytty up`)."
    return f"The controller did not answer: {exc.code.value}: {exc.message}"


def read_places() -> dict[str, Place]:
    """Each pane's place and state age from the tmux server the controller runs on (as
    ``mytty ls`` reads them); empty when tmux cannot be asked (the board then groups by the
    session id ``list`` gives)."""
    from mytty.cli.controller import recorded_socket
    from mytty.tmux.bootstrap import tmux_binary
    from mytty.tmux.user_formats import TmuxCli, TmuxCliError, published_panes

    socket_path = recorded_socket(client.home())
    if socket_path is None:
        return {}
    try:
        rows = published_panes(TmuxCli(socket_path, tmux_binary()))
    except (TmuxCliError, MyttyError):
        return {}
    places: dict[str, Place] = {}
    for row in rows:
        surface = row.get("@mytty_surface", "")
        if not surface:
            continue
        since = row.get("@mytty_since", "")
        places[surface.upper()] = Place(
            f"{row['session_name']}:{row['window_index']}.{row['pane_index']}",
            row["session_name"],
            float(since) if since.isdigit() else None,
        )
    return places
