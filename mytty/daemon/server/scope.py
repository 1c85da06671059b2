"""What a long wait needs to know about the connection it answers: whether its client left.

The socket server gives every request a ``RequestScope`` (through a context variable, so the
command handlers in between need not pass it along). A wait marks itself abandonable while it
blocks; when the server sees the client hang up, it cancels such a wait at once, and a wait
that starts after the hang-up ends before blocking. Anything else (a send, a spawn) runs to its
end even when nobody reads the answer: stopping it half way would leave half of it done.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


class ClientGone(asyncio.CancelledError):
    """The client of this request hung up; nobody is left to answer.

    A cancellation, not an error: nothing on the way up logs it as a failure.
    """


@dataclass(slots=True)
class RequestScope:
    task: asyncio.Task[Any] | None = None
    gone: bool = False
    waiting: bool = field(default=False)

    def hang_up(self) -> None:
        """The server saw the peer close: end a blocking wait now, refuse the next one."""
        self.gone = True
        if self.waiting and self.task is not None:
            self.task.cancel(msg="client gone")


CURRENT: contextvars.ContextVar[RequestScope | None] = contextvars.ContextVar(
    "mytty_request_scope", default=None
)


@contextmanager
def abandonable() -> Iterator[None]:
    """Around a blocking wait: the server may cancel it when the client hangs up."""
    scope = CURRENT.get()
    if scope is None:
        yield
        return
    if scope.gone:
        raise ClientGone
    scope.waiting = True
    try:
        yield
    finally:
        scope.waiting = False
