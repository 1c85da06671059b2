"""What a page sends: a decision on an approval, an answer to a question.

Both reply JSON (``{"ok": true, "message"}`` or ``{"ok": false, "code", "message"}`` with 400
for a malformed answer and 409 when the controller refused it) and make the board be read at
once, so the card leaves every open page.

- ``POST /approvals/<id>`` (``decision`` ``allow``/``deny``, ``message`` with deny): answered
  through the approvals broker (``approval answer``) as ``via: web`` with this session's id, so
  the approvals audit records ``human:web`` and the session; the broker decides whether the
  request is still open (first answer wins) and how the agent gets it.
- ``POST /questions/<run>`` (``answer``): typed into that agent only while it waits for input
  (``waiting-input``, its job on that very run), read fresh from the controller just before:
  ``agent send JOB TEXT --enter`` for a job, ``send PANE TEXT --enter`` for a hand-started agent.
  One line of text without control characters: a newline would press Enter early and an
  escape sequence would be keys, not an answer.
"""

from __future__ import annotations

import logging

from aiohttp import web

from mytty.core.errors import MyttyError
from mytty.web import board as board_mod
from mytty.web.context import server, session_of
from mytty.web.html import shown

log = logging.getLogger("mytty.web")

MAX_MESSAGE = 2000
MAX_ANSWER = 4000


def reply(message: str, *, status: int = 200, code: str | None = None) -> web.Response:
    body: dict[str, object] = {"ok": status == 200, "message": message}
    if code is not None:
        body["code"] = code
    return web.json_response(body, status=status)


def one_line(text: str, limit: int, what: str) -> str | None:
    """Why ``text`` cannot be sent, or None when it can."""
    if len(text) > limit:
        return f"The {what} is longer than {limit} characters."
    if shown(text) != text or "\n" in text or "\t" in text:
        return f"The {what} must be one line of text, without control characters."
    return None


async def _field(request: web.Request, name: str) -> str:
    form = await request.post()
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


async def approval(request: web.Request) -> web.StreamResponse:
    app, record = server(request), session_of(request)
    ident = request.match_info["id"]
    decision = await _field(request, "decision")
    message = await _field(request, "message")
    if decision not in ("allow", "deny"):
        return reply("The decision is allow or deny.", status=400)
    if message and decision != "deny":
        return reply("Only a denial carries a message.", status=400)
    if message and (why := one_line(message, MAX_MESSAGE, "message")):
        return reply(why, status=400)
    values: dict[str, object] = {"ID": ident, "DECISION": decision, "via": "web"}
    values["session"] = record.id
    if message:
        values["--message"] = message
    try:
        await app.controller.ask("approval answer", values, timeout=30.0)
    except MyttyError as exc:
        return reply(exc.message, status=409, code=exc.code.value)
    finally:
        app.live.kick()
    log.info("session %s answered approval %s: %s", record.id, ident[:8], decision)
    return reply("Approved." if decision == "allow" else "Denied.")


async def question(request: web.Request) -> web.StreamResponse:
    app, record = server(request), session_of(request)
    run = request.match_info["run"].upper()
    answer = await _field(request, "answer")
    if not answer:
        return reply("Write an answer first.", status=400)
    if why := one_line(answer, MAX_ANSWER, "answer"):
        return reply(why, status=400)
    snapshot = await app.controller.snapshot()
    if snapshot.problem is not None:
        return reply(snapshot.problem, status=409, code="not-running")
    asked = [q for q in board_mod.build(snapshot).questions if q.run_id == run]
    if not asked:
        return reply("This question was answered or withdrawn.", status=409)
    if not asked[0].answerable:
        return reply("The agent is not waiting for input now.", status=409)
    target = asked[0]
    try:
        if target.job_id:
            await app.controller.ask(
                "agent send", {"JOB": {"rawValue": target.job_id}, "TEXT": answer, "--enter": True}
            )
        else:
            await app.controller.ask(
                "send", {"PANE": target.pane_id, "TEXT": answer, "--enter": True}
            )
    except MyttyError as exc:
        return reply(exc.message, status=409, code=exc.code.value)
    finally:
        app.live.kick()
    log.info("session %s answered the question of pane %s", record.id, target.pane_id[:8])
    return reply("Sent.")
