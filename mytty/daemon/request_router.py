"""Routes one control request to its command module and maps every error to the wire."""

from __future__ import annotations

import logging

from mytty.control.base import Params
from mytty.control.ports import Context
from mytty.control.registry import COMMANDS
from mytty.core.errors import ErrorCode, MyttyError
from mytty.protocol.control import decode_request, failure
from mytty.protocol.replies import Reply

log = logging.getLogger(__name__)


class ControlRouter:
    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx

    async def dispatch(self, body: bytes, peer_pid: int) -> Reply:
        try:
            request = decode_request(body)
            module = COMMANDS.get(request["type"])
            if module is None:
                raise MyttyError(
                    ErrorCode.INVALID_REQUEST, f"unknown request type {request['type']!r}"
                )
            reply: Reply = await module.handle(self._ctx, Params(request, peer_pid))
            return reply
        except MyttyError as exc:
            return failure(exc.code, exc.message)
        except Exception:
            log.exception("control request failed")
            return failure(
                ErrorCode.INTERNAL_ERROR, "the controller hit an unexpected error (see its log)"
            )
