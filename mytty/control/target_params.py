"""Params of the commands whose only field names their target: one pane, or one job.

``read``, ``focus`` and ``close-pane`` take ``paneID``; ``agent result``, ``agent focus`` and
``agent close`` take ``jobID``. Each of those modules re-exports the matching pair as its own
``Params`` and ``parse``, so the registry and the router see the usual module shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mytty.control.base import Request


class PaneParams:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("pane_id",)

    def __init__(self, pane_id: str) -> None:
        self.pane_id = pane_id


def parse_pane(request: Request) -> PaneParams:
    return PaneParams(request.str("paneID"))


class JobParams:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("job_id",)

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id


def parse_job(request: Request) -> JobParams:
    return JobParams(request.raw_id("jobID"))
