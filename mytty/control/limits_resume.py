"""``resumeLimits``: continue parked workers now instead of at their reset (a mytty addition)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import JOB, JOB_LIST, Arg, Command, Field, Option, Values
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import UsageLimits
    from mytty.protocol.replies import LimitsReply

    class LimitsResumeContext(UsageLimits, Protocol):
        """What ``limits_resume`` uses of the controller."""


MAX_JOBS = 256
JOBS = Field("jobIDs", "these parked jobs", kind=JOB_LIST, maximum=MAX_JOBS)
ALL = Option("--all", None, "all", "every parked job")


def _client(request: dict[str, object], values: Values) -> None:
    jobs = values.positionals
    if bool(jobs) == (request.get(ALL.key) is True):
        values.fail(codes.USAGE, "name the parked jobs, or give --all")
    if len(jobs) > MAX_JOBS:
        values.fail(codes.USAGE, f"at most {MAX_JOBS} jobs at once")
    if jobs:
        request[JOBS.key] = [{"rawValue": job} for job in jobs]
    return None


COMMAND = Command(
    name="limits resume",
    wire="resumeLimits",
    summary="continue parked workers now (lifts a hold)",
    heading="limits resume JOB… | --all",
    args=(Arg("JOB", None, "a parked job", kind=JOB, optional=True, variadic=True),),
    options=(ALL,),
    wire_fields=(JOBS,),
    wire_order=("jobIDs", "all"),
    client=_client,
    errors=(codes.JOB_NOT_FOUND, codes.JOB_NOT_PARKED, codes.INVALID_REQUEST),
    client_errors=(codes.USAGE,),
    guide="""\
limits resume JOB… | --all
Continues parked workers now, whatever their reset (and lifts a hold): each on its own
conversation, one account at a time, stagger apart. A job parked without a reset time
waits for this. Replies like limits list.""",
    doc="""
A mytty addition. The named parked jobs (`--all`: every parked job) go on now rather than at
their reset: their hold is lifted and mytty continues each on its own conversation (typed
into its live session, or `claude --resume <id>` / `codex resume <id>` when its process is
gone), still one account at a time, `[limits] stagger_seconds` apart. This is how a job parked
without a reset time (the provider gave none) or held (`limits hold`, or after three re-parks in
a row) goes on. A named job that is not parked is `job-not-parked` and nothing changes; an
unknown one is `job-not-found`. If the limit has not reset yet, the worker parks again and backs
off as usual.

Request `{"type":"resumeLimits","jobIDs":[{"rawValue":"<UUID>"}]}` or
`{"type":"resumeLimits","all":true}` (`all` wins over `jobIDs`). Reply: as `limits list`.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("every", "job_ids")

    def __init__(self, job_ids: list[str] | None, every: bool) -> None:
        #: None: every parked job (``--all``).
        self.job_ids = job_ids
        self.every = every


def parse(request: Request) -> Params:
    from mytty.core.errors import ErrorCode, MyttyError

    job_ids = request.jobs(JOBS)
    every = request.flag(ALL)
    if job_ids is None and not every:
        raise MyttyError(ErrorCode.INVALID_REQUEST, "name the parked jobs (jobIDs), or all: true")
    return Params(None if every else job_ids, every)


async def handle(ctx: LimitsResumeContext, params: Params) -> LimitsReply:
    return ctx.resume_parked(params.job_ids)
