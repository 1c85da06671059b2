"""The params of the commands whose only field names their target.

``read``, ``focus`` and ``close-pane`` take ``paneID``; ``agent result|focus`` take ``jobID``;
``env`` and ``notifyTest`` take nothing but the caller's process (the socket peer). Each of
those modules binds the matching pair as its own ``Params`` and ``parse``. (Apart from
:mod:`mytty.control.spec`, which :mod:`mytty.control.base` reads, so that the two never
import each other.)
"""

from __future__ import annotations

from mytty.control.spec import JOB_ARG, PANE

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from mytty.control.base import Request


class PaneParams:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("pane_id",)

    def __init__(self, pane_id: str) -> None:
        self.pane_id = pane_id


def parse_pane(request: Request) -> PaneParams:
    return PaneParams(request.text(PANE))


class JobParams:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("job_id",)

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id


def parse_job(request: Request) -> JobParams:
    return JobParams(request.job(JOB_ARG))


class CallerParams:
    """The caller's process (SO_PEERCRED pid): the pane is found from its ancestry."""

    __slots__ = ("peer_pid",)

    def __init__(self, peer_pid: int) -> None:
        self.peer_pid = peer_pid


def parse_caller(request: Request) -> CallerParams:
    return CallerParams(request.peer_pid)
