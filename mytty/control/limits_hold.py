"""``holdLimits``: keep parked workers parked until ``limits resume`` (a mytty addition)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import JOB, JOB_LIST, Arg, Command, Field, Values
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import UsageLimits
    from mytty.protocol.replies import LimitsReply

    class LimitsHoldContext(UsageLimits, Protocol):
        """What ``limits_hold`` uses of the controller."""


MAX_JOBS = 256
JOBS = Field("jobIDs", "these parked jobs", kind=JOB_LIST, maximum=MAX_JOBS, nonempty=True)


def _client(request: dict[str, object], values: Values) -> None:
    if not values.positionals:
        values.fail(codes.USAGE, "name the parked jobs to hold")
    if len(values.positionals) > MAX_JOBS:
        values.fail(codes.USAGE, f"at most {MAX_JOBS} jobs at once")
    request[JOBS.key] = [{"rawValue": job} for job in values.positionals]
    return None


COMMAND = Command(
    name="limits hold",
    wire="holdLimits",
    summary="keep parked workers parked until limits resume",
    heading="limits hold JOB…",
    args=(Arg("JOB", None, "a parked job", kind=JOB, variadic=True),),
    wire_fields=(JOBS,),
    wire_order=("jobIDs",),
    client=_client,
    errors=(codes.JOB_NOT_FOUND, codes.JOB_NOT_PARKED, codes.INVALID_REQUEST),
    client_errors=(codes.USAGE,),
    guide="""\
limits hold JOB…
Keeps parked workers parked past their reset (mytty will not continue them) until
`limits resume`. Sends to them stay held. Replies like limits list.""",
    doc="""
A mytty addition. The named parked jobs stay parked past their reset: mytty does not continue
them (their `resumesAt` is null) until `limits resume` names them. `agent send` to them is still
held. A named job that is not parked is `job-not-parked`; an unknown one `job-not-found`.
Closing a held job (`agent close`) still closes it.

Request `{"type":"holdLimits","jobIDs":[{"rawValue":"<UUID>"}]}`. Reply: as `limits list`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("job_ids",)

    def __init__(self, job_ids: list[str]) -> None:
        self.job_ids = job_ids


def parse(request: Request) -> Params:
    return Params(request.jobs(JOBS) or [])


async def handle(ctx: LimitsHoldContext, params: Params) -> LimitsReply:
    return ctx.hold_parked(params.job_ids)
