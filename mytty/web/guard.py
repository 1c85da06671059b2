"""The one guard in front of every route.

For every request, in this order:

1. a loopback server refuses a ``Host`` that is not a loopback name (421): a page elsewhere
   whose name was re-pointed at 127.0.0.1 (DNS rebinding) never reaches a handler;
2. ``/pair/<code>`` is the one route without a session: it trades a valid code for one;
3. every other route, known or not, needs the session cookie of a live session, else 401;
4. a request that changes something (any method but GET and HEAD) must come from this
   server's own page — ``Origin`` equal to this server's origin (a missing one is refused),
   ``Sec-Fetch-Site: same-origin`` when the browser sends it — and carry the session's CSRF
   token in ``X-CSRF-Token``, else 403;

and every response, refusals included, carries :data:`mytty.web.html.SECURITY_HEADERS` (a
strict Content-Security-Policy, no framing, no referrer, no caching).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from mytty.web import sessions
from mytty.web.context import admit, message_response, secure, server
from mytty.web.listen import host_header_allowed

log = logging.getLogger("mytty.web")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_SAFE_METHODS = frozenset({"GET", "HEAD"})
#: The name of the one route a request without a session may reach.
PAIR_ROUTE = "pair"


def unauthorized() -> web.Response:
    return message_response(
        "Not paired",
        "This browser has no mytty session. Open the pairing link `mytty web` printed, "
        "or run `mytty web --pair` for a new one.",
        401,
    )


def same_origin(request: web.Request) -> bool:
    origin = request.headers.get("Origin")
    if origin is None or origin.lower() != f"{request.scheme}://{request.host}".lower():
        return False
    return request.headers.get("Sec-Fetch-Site", "same-origin") == "same-origin"


@web.middleware
async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        response = await _checked(request, handler)
    except web.HTTPException as exc:
        response = message_response(exc.reason, exc.text or exc.reason, exc.status)
    return secure(response)


async def _checked(request: web.Request, handler: Handler) -> web.StreamResponse:
    app = server(request)
    if not host_header_allowed(request.headers.get("Host"), app.listen):
        return web.Response(status=421, text="This server answers only to a loopback name.")
    if request.match_info.route.name == PAIR_ROUTE and request.method in _SAFE_METHODS:
        return await handler(request)
    token = request.cookies.get(app.cookie)
    record = app.sessions.find(token)
    if record is None or token is None:
        return unauthorized()
    if request.method not in _SAFE_METHODS:
        if not same_origin(request):
            log.warning("refused a %s from another origin (session %s)", request.method, record.id)
            return web.Response(status=403, text="Refused: not sent by this server's page.")
        if not sessions.csrf_ok(token, request.headers.get("X-CSRF-Token")):
            log.warning(
                "refused a %s without the CSRF token (session %s)", request.method, record.id
            )
            return web.Response(status=403, text="Refused: the request has no valid CSRF token.")
    admit(record, token)
    return await handler(request)
