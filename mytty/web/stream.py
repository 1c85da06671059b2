"""``GET /events?view=…``: the page's live updates as server-sent events.

A stream sends ``retry: 1000`` (the browser reconnects after a second when the server goes),
then the view's HTML at once (``event: board``) and again each time the board changes: the
whole fragment of ``<main>``, which the page's script merges card by card. ``view`` is
``home``, ``job:<id>`` or ``pane:<id>``; a detail view is read again on each board change and
sent only when it differs. A comment line every :data:`HEARTBEAT_S` keeps proxies and tunnels
from closing an idle stream and finds browsers that went away. The stream checks its session
whenever it wakes (the state file's watcher wakes every stream when it changes): once the
session is ended (``mytty web --revoke-all``, signing out) it sends ``event: signed-out`` and
closes.
"""

from __future__ import annotations

import logging
import re

from aiohttp import web

from mytty.web.context import secure, server, session_of, token_of
from mytty.web.detail import Detail, detail_fragment, gather
from mytty.web.render import board_fragment

log = logging.getLogger("mytty.web")

HEARTBEAT_S = 15.0
_VIEW = re.compile(r"^(home|(job|pane):[0-9A-Fa-f-]{8,36})$")


def event(name: str, data: str) -> bytes:
    """One server-sent event; every line of ``data`` its own ``data:`` field (the browser joins
    them with newlines). Agent text reaches here escaped, so it holds no CR."""
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"event: {name}\n{lines}\n".encode()


async def stream(request: web.Request) -> web.StreamResponse:
    app = server(request)
    view = request.query.get("view", "home")
    if not _VIEW.match(view):
        return web.Response(status=404, text="No such view.")
    record, token = session_of(request), token_of(request)
    response = secure(
        web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "X-Accel-Buffering": "no",
            }
        )
    )
    await response.prepare(request)
    live = app.live
    live.watchers += 1
    seen = -1
    last_detail: Detail | None = None
    try:
        await response.write(b"retry: 1000\n\n")
        while not live.closing:
            if app.sessions.find(token) is None:
                log.info("stream of session %s closed: the session ended", record.id)
                await response.write(event("signed-out", "Pair again with `mytty web --pair`."))
                break
            if live.version != seen:
                seen = live.version
                if view == "home":
                    await response.write(event("board", board_fragment(live.board, app.clock())))
                else:
                    kind, ident = view.split(":", 1)
                    detail = await gather(app.controller, kind, ident.upper(), live.snapshot)
                    if detail != last_detail:
                        last_detail = detail
                        await response.write(event("board", detail_fragment(detail, app.clock())))
            if await live.wait_change(seen, HEARTBEAT_S) == seen:
                await response.write(b": ping\n\n")
    except (ConnectionResetError, ConnectionError):
        pass  # the browser went away
    finally:
        live.watchers -= 1
    return response
