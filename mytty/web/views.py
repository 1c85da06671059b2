"""The pages: pairing, the board, a job's or a pane's detail, signing out, the static files."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from importlib import resources

from aiohttp import web

from mytty.web import html, sessions
from mytty.web.context import (
    message_response,
    page_response,
    server,
    session_of,
    token_of,
)
from mytty.web.detail import detail_fragment, gather
from mytty.web.render import board_fragment

log = logging.getLogger("mytty.web")

#: A job or pane id as the board links it (a UUID); anything else is no page.
_ID = re.compile(r"^[0-9A-Fa-f-]{8,36}$")


def _client(request: web.Request) -> str:
    agent = request.headers.get("User-Agent", "")[:80]
    return html.shown(f"{request.remote or '?'} {agent}".strip())


async def pair(request: web.Request) -> web.StreamResponse:
    """``/pair/<code>``: a valid code becomes this browser's session cookie, once."""
    app = server(request)
    who = request.remote or "?"
    now = app.clock()
    if not app.throttle.allowed(who, now):
        wait = app.throttle.retry_after(who, now)
        log.warning("pairing attempts from %s are held back for %d s", who, wait)
        response = message_response("Too many attempts", f"Try again in {wait} s.", 429)
        response.headers["Retry-After"] = str(wait)
        return response
    paired = app.sessions.redeem(request.match_info["code"], _client(request))
    if paired is None:
        app.throttle.failed(who, now)
        log.warning("refused a pairing code from %s (unknown, used or expired)", who)
        return message_response(
            "Pairing link not valid",
            "This pairing link was used already or is older than 10 minutes. "
            "Run `mytty web --pair` for a new one.",
            401,
        )
    log.info("paired session %s (%s)", paired.record.id, paired.record.client)
    # A page that moves on by itself rather than a redirect: the navigation it starts is this
    # site's own, so the SameSite=Strict cookie goes with it even when the pairing link was
    # opened from another site (a chat app) — and the address bar no longer shows the code.
    response = page_response(
        html.page(
            "Paired",
            '<section class="message"><h1>Paired</h1>'
            '<p><a href="/">Open the agents</a></p></section>',
            head='<meta http-equiv="refresh" content="0; url=/">',
        )
    )
    response.set_cookie(
        app.cookie,
        paired.token,
        max_age=int(sessions.SESSION_TTL_S),
        path="/",
        httponly=True,
        samesite="Strict",
        secure=app.tls,
    )
    return response


async def home_page(request: web.Request) -> web.StreamResponse:
    app = server(request)
    await app.live.refresh()  # a first load shows now, not the last event's board
    body = board_fragment(app.live.board, app.clock())
    return page_response(
        html.page("mytty", body, csrf=sessions.csrf_token(token_of(request)), view="home")
    )


async def detail_page(request: web.Request) -> web.StreamResponse:
    """``/job/<id>`` and ``/pane/<id>``."""
    app = server(request)
    kind = "job" if request.path.startswith("/job/") else "pane"
    ident = request.match_info["id"]
    if not _ID.match(ident):
        return message_response("Not found", "No such job or pane.", 404)
    detail = await gather(app.controller, kind, ident.upper(), app.live.snapshot)
    title = detail.card.label if detail.card and detail.card.label else f"{kind} {ident[:8]}"
    return page_response(
        html.page(
            f"{title} · mytty",
            detail_fragment(detail, app.clock()),
            csrf=sessions.csrf_token(token_of(request)),
            view=f"{kind}:{ident.upper()}",
        )
    )


async def sign_out(request: web.Request) -> web.StreamResponse:
    app = server(request)
    record = session_of(request)
    app.sessions.end(record.id)
    log.info("session %s signed out", record.id)
    await app.live.notify()
    response = message_response("Signed out", "Pair again with `mytty web --pair`.", 200)
    response.del_cookie(app.cookie, path="/")
    return response


def static(name: str, content_type: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    body = resources.files("mytty.web").joinpath("static", name).read_bytes()

    async def serve(request: web.Request) -> web.StreamResponse:
        return web.Response(body=body, content_type=content_type, charset="utf-8")

    return serve
