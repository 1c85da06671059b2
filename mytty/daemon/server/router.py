"""Routes one control request to its command module and maps every error to the wire.

A command may fail only with the codes its declaration lists (``COMMAND.errors``). A handler
that raises another code is a bug: it is logged, and with ``MYTTY_STRICT_ERRORS=1`` (the test
harness sets it) the reply becomes ``internal-error`` naming the stray code, so every e2e test
doubles as a check of the declarations.

Before any command runs, the request claims its share of the control socket's connection
budget (:func:`mytty.daemon.server.budget.admit`): past its client's share, or past what
requests that may wait may hold, it is answered ``too-many-requests`` (a socket-level code,
like ``request-too-large``, that no declaration needs to list). :data:`SHORT_REQUESTS` are the
ones the reserve is kept for: they answer from what the controller holds, or with one quick
tmux command, and never wait for an event, a person, an agent or a new pane.
"""

from __future__ import annotations

import json
import logging
import os
from types import ModuleType

from mytty.control.base import Request
from mytty.control.ports import Context
from mytty.control.registry import by_wire
from mytty.core.errors import ErrorCode, MyttyError
from mytty.daemon.server.budget import Rules, admit
from mytty.protocol.control import decode_request, encode_reply, failure
from mytty.protocol.replies import Reply

log = logging.getLogger(__name__)

STRICT_ERRORS_VAR = "MYTTY_STRICT_ERRORS"

#: Requests that never wait (wire types): the control socket keeps a reserve of connections that
#: only these may use, so they answer even while waits fill the rest. Everything else (``wait``,
#: ``waitAgent``, ``events``, spawns, new panes, integration consent, an unknown type) may wait.
SHORT_REQUESTS = frozenset(
    {
        "list",
        "listAgents",
        "agentResult",
        "attention",
        "setPaneStatus",
        "read",
        "env",
        "integrationList",
        "focus",
        "focusAgent",
        "send",
        "sendKey",
        "sendAgent",
        "closePane",
    }
)


def is_short(request: bytes) -> bool | None:
    """Whether a request line is one of :data:`SHORT_REQUESTS` (None: not a request at all)."""
    try:
        kind = json.loads(request).get("type")
    except (ValueError, AttributeError, RecursionError):
        return None
    return kind in SHORT_REQUESTS if isinstance(kind, str) else None


def _too_many(why: str) -> bytes:
    return encode_reply(failure(ErrorCode.TOO_MANY_REQUESTS, why))


class ControlRouter:
    #: The control socket's budget rules (the server asks them before a request is read).
    BUDGET_RULES = Rules(reply=_too_many, is_short=is_short)

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._commands = by_wire()
        self._strict = os.environ.get(STRICT_ERRORS_VAR) == "1"

    async def dispatch(self, body: bytes, peer_pid: int) -> Reply:
        module: ModuleType | None = None
        try:
            request = decode_request(body)
            try:
                admit(short=request["type"] in SHORT_REQUESTS)
            except MyttyError as exc:
                return failure(exc.code, exc.message)
            module = self._commands.get(request["type"])
            if module is None:
                raise MyttyError(
                    ErrorCode.INVALID_REQUEST, f"unknown request type {request['type']!r}"
                )
            params = module.parse(Request(request, peer_pid))
            reply: Reply = await module.handle(self._ctx, params)
            return reply
        except MyttyError as exc:
            if module is not None and exc.code not in module.COMMAND.errors:
                return self._undeclared(module, exc)
            return failure(exc.code, exc.message)
        except Exception:
            log.exception("control request failed")
            return failure(
                ErrorCode.INTERNAL_ERROR, "the controller hit an unexpected error (see its log)"
            )

    def _undeclared(self, module: ModuleType, exc: MyttyError) -> Reply:
        wire = module.COMMAND.wire
        log.error("%s answered %s, which its declaration does not list", wire, exc.code.value)
        if self._strict:
            return failure(
                ErrorCode.INTERNAL_ERROR,
                f"undeclared error code {exc.code.value} from {wire}: {exc.message}",
            )
        return failure(exc.code, exc.message)
