"""Routes one control request to its command module and maps every error to the wire.

A command may fail only with the codes its declaration lists (``COMMAND.errors``). A handler
that raises another code is a bug: it is logged, and with ``MYTTY_STRICT_ERRORS=1`` (the test
harness sets it) the reply becomes ``internal-error`` naming the stray code, so every e2e test
doubles as a check of the declarations.
"""

from __future__ import annotations

import logging
import os
from types import ModuleType

from mytty.control.base import Request
from mytty.control.ports import Context
from mytty.control.registry import by_wire
from mytty.core.errors import ErrorCode, MyttyError
from mytty.protocol.control import decode_request, failure
from mytty.protocol.replies import Reply

log = logging.getLogger(__name__)

STRICT_ERRORS_VAR = "MYTTY_STRICT_ERRORS"


class ControlRouter:
    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._commands = by_wire()
        self._strict = os.environ.get(STRICT_ERRORS_VAR) == "1"

    async def dispatch(self, body: bytes, peer_pid: int) -> Reply:
        module: ModuleType | None = None
        try:
            request = decode_request(body)
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
