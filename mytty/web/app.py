"""The web application: the routes behind the guard (:mod:`mytty.web.guard`).

| route | what |
|---|---|
| ``GET /pair/<code>`` | trade a pairing code for a session cookie (the only route without one) |
| ``GET /`` | the board: agents by session, what needs a person first |
| ``GET /job/<id>``, ``GET /pane/<id>`` | a job's (an agent pane's) screen, result and runs |
| ``GET /events?view=…`` | server-sent events with the view's HTML (:mod:`mytty.web.stream`) |
| ``POST /approvals/<id>`` | allow or deny a permission request (:mod:`mytty.web.answers`) |
| ``POST /questions/<run>`` | answer an agent that waits for input |
| ``POST /signout`` | end this browser's session |
| ``GET /static/app.js``, ``/static/app.css`` | the page's script and style |
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable

from aiohttp import web

from mytty.web import answers
from mytty.web.context import WEB, Web
from mytty.web.guard import PAIR_ROUTE, guard
from mytty.web.stream import stream
from mytty.web.views import detail_page, home_page, pair, sign_out, static

log = logging.getLogger("mytty.web")


def make_app(parts: Web) -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=64 * 1024)
    app[WEB] = parts
    app.router.add_get("/pair/{code}", pair, name=PAIR_ROUTE)
    app.router.add_get("/", home_page)
    app.router.add_get("/job/{id}", detail_page)
    app.router.add_get("/pane/{id}", detail_page)
    app.router.add_get("/events", stream)
    app.router.add_get("/static/app.js", static("app.js", "text/javascript"))
    app.router.add_get("/static/app.css", static("app.css", "text/css"))
    app.router.add_post("/approvals/{id}", answers.approval)
    app.router.add_post("/questions/{run}", answers.question)
    app.router.add_post("/signout", sign_out)
    app.router.add_get("/favicon.ico", _no_icon)
    app.cleanup_ctx.append(_following)
    app.on_shutdown.append(_closing)
    return app


async def _following(app: web.Application) -> AsyncIterator[None]:
    """While the app runs: the live feed, and a watch on the state file (another process
    paired or revoked: every stream looks at its session again)."""
    parts = app[WEB]
    feed = asyncio.ensure_future(parts.live.run())
    watch = _watch_state(parts)
    try:
        yield
    finally:
        feed.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await feed
        if watch is not None:
            watch()


def _watch_state(parts: Web) -> Callable[[], None] | None:
    """inotify on ``$MYTTY_HOME/web``; returns the function that stops it (None when inotify
    is unavailable: streams then notice an ended session at their next heartbeat)."""
    from mytty.daemon.inotify import IN_CLOSE_WRITE, IN_MOVED_TO, Inotify

    directory = parts.sessions.file.directory
    loop = asyncio.get_running_loop()
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        notify = Inotify()
        notify.add_watch(str(directory), IN_MOVED_TO | IN_CLOSE_WRITE)
    except OSError as exc:
        log.info("not watching %s (%s): ended sessions are noticed within 15 s", directory, exc)
        return None

    pending: set[asyncio.Task[None]] = set()

    def readable() -> None:
        if notify.read():
            task = asyncio.ensure_future(parts.live.notify())
            pending.add(task)
            task.add_done_callback(pending.discard)

    loop.add_reader(notify.fd, readable)

    def stop() -> None:
        loop.remove_reader(notify.fd)
        notify.close()

    return stop


async def _no_icon(request: web.Request) -> web.StreamResponse:
    return web.Response(status=204)


async def _closing(app: web.Application) -> None:
    parts = app[WEB]
    parts.live.closing = True
    await parts.live.notify()
