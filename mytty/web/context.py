"""What every handler shares: the server's parts, the request's session, and responses with
the security headers."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

from mytty.web import html
from mytty.web.control import Controller
from mytty.web.listen import Listen
from mytty.web.live import Live
from mytty.web.sessions import Sessions
from mytty.web.state import SessionRecord
from mytty.web.throttle import PairingThrottle


@dataclass
class Web:
    """The parts of one server."""

    listen: Listen
    tls: bool
    sessions: Sessions
    controller: Controller
    live: Live
    throttle: PairingThrottle
    clock: Callable[[], float]

    @property
    def cookie(self) -> str:
        # __Host-: the browser keeps it only from a secure origin, for this host and path /.
        return "__Host-mytty_session" if self.tls else "mytty_session"


WEB = web.AppKey("web", Web)
#: The session (and its token) of the request being handled: the guard sets it, in the task
#: that then runs the handler.
_ADMITTED: contextvars.ContextVar[tuple[SessionRecord, str]] = contextvars.ContextVar(
    "mytty_web_admitted"
)


def server(request: web.Request) -> Web:
    return request.app[WEB]


def admit(record: SessionRecord, token: str) -> None:
    """Let the request being handled through with its session (the guard does it)."""
    _ADMITTED.set((record, token))


def session_of(request: web.Request) -> SessionRecord:
    """The session the guard admitted ``request`` with."""
    return _ADMITTED.get()[0]


def token_of(request: web.Request) -> str:
    return _ADMITTED.get()[1]


def secure(response: web.StreamResponse) -> web.StreamResponse:
    for name, value in html.SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def page_response(
    body: str, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    return web.Response(text=body, status=status, content_type="text/html", headers=headers)


def message_response(title: str, message: str, status: int) -> web.Response:
    return page_response(html.message_page(title, message), status)
