"""``wait``: block until the pane's most relevant run is idle/done, or needs attention.

Event-driven: the controller wakes waiters on every stored event and pane change. A pane that
never had an event never satisfies ``idle`` (there is no "nothing yet = idle" default).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import PANE, Command, Option, timeout_option
from mytty.core import codes, vocab
from mytty.core.vocab import ATTENTION, IDLE, PANE_WAIT_CONDITIONS
from mytty.protocol.limits import MAX_WAIT_S

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import AgentChecks, PaneDirectory, RunWaiter
    from mytty.protocol.replies import WaitResultReply

    class WaitContext(PaneDirectory, RunWaiter, AgentChecks, Protocol):
        """What ``wait`` uses of the controller."""


DEFAULT_TIMEOUT_S = vocab.DEFAULT_WAIT_TIMEOUT_S

UNTIL = Option(
    "--until",
    "CONDITION",
    "until",
    "idle: the run ended or went idle; attention: it waits for input or approval (or it ended)",
    choices=PANE_WAIT_CONDITIONS,
    required=True,
)
TIMEOUT = timeout_option(DEFAULT_TIMEOUT_S, MAX_WAIT_S)

COMMAND = Command(
    name="wait",
    wire="wait",
    summary="block until the pane's run is idle or needs attention",
    args=(PANE,),
    options=(UNTIL, TIMEOUT),
    wait_key=TIMEOUT.key,
    errors=(
        codes.PANE_NOT_FOUND,
        codes.PROVIDER_INTEGRATION_NOT_INSTALLED,
        codes.TMUX_UNAVAILABLE,
        codes.INVALID_REQUEST,
    ),
    client_errors=(codes.USAGE, codes.INVALID_REQUEST),
    guide="""\
Waits on the pane's most relevant run. idle only resolves after the pane's agent reported a
run; a pane without agent events waits until its timeout (default 120 s, at most a week).
attention also returns once that run has ended (succeeded, failed, disconnected): check
"state".""",
    doc=f"""
Blocks until the pane's [most relevant run](event-protocol.md#most-relevant-run) is in a
matching state, or the timeout passes. `N` defaults to {int(DEFAULT_TIMEOUT_S)}; it must be
from 0 to {int(MAX_WAIT_S)} (a week), else `invalid-request` (from `mytty-ctl` before
connecting, and from the controller for a raw request). A non-number is a `usage` error.

| `--until` | satisfied by run state |
|---|---|
| `idle` | `idle`, `succeeded`, `failed`, `disconnected`, `parked` |
| `attention` | `waiting-input`, `waiting-approval`; or `succeeded`, `failed`, `disconnected`, `parked` |

(`parked`, mytty's: the turn stopped at the provider's usage limit; the pane's job goes on
after the reset, which `agent wait` follows.)

**Difference from the original**: `--until attention` also returns (with `"timedOut": false`
and that state) when the pane's most relevant run has ended (`succeeded`, `failed`,
`disconnected`): an ended run can no longer ask for input or approval, so the original's wait
ran on into its timeout. Check `state`. Since it looks at the pane's most relevant run, a wait
started right after `send` may still see the previous run's end; follow a job with
`agent wait` instead, which only looks at the run the job started.

The wait is woken by every stored event and every pane change; it does not poll. A pane that
never had an agent event never satisfies `idle` and waits until the timeout. An agent without
a hook integration gets runs from [native estimation](../explanation/native-estimation.md)
(3 s after it appears in the pane's foreground, ended by its exit status), so `idle` is met
when it exits; estimates never reach `attention`.

Before waiting for `attention`, the controller looks at the pane's foreground process: if it is
a known agent whose hook integration is `not-installed`, the wait fails at once with
`provider-integration-not-installed`. If the agent has not started yet (right after
`split --command`), the check sees only the shell and the wait blocks.

Request `{{"type":"wait","paneID":"<UUID>","until":"idle","timeoutSeconds":120}}`.
Reply `{{"state":"waiting-approval","timedOut":false,"type":"waitResult"}}`; `state` is the run
state seen last (`null` when the pane has no run), `timedOut` is `true` when the condition was
not met in time (a timeout is not an error: exit 0). `pane-not-found` also answers a pane that
closes while waiting.
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("pane_id", "timeout_s", "until")

    def __init__(self, pane_id: str, until: str, timeout_s: float) -> None:
        self.pane_id = pane_id
        self.until = until
        self.timeout_s = timeout_s


def parse(request: Request) -> Params:
    return Params(request.text(PANE), request.choice(UNTIL), request.seconds(TIMEOUT))


async def handle(ctx: WaitContext, params: Params) -> WaitResultReply:
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.events import AgentRunState
    from mytty.protocol import wire

    satisfies = {
        IDLE: frozenset(
            {
                AgentRunState.IDLE,
                AgentRunState.SUCCEEDED,
                AgentRunState.FAILED,
                AgentRunState.DISCONNECTED,
                AgentRunState.PARKED,  # mytty's: the turn ended at a usage limit
            }
        ),
        # A run that ended can't need attention any more (a difference from the original).
        ATTENTION: frozenset(
            {
                AgentRunState.WAITING_INPUT,
                AgentRunState.WAITING_APPROVAL,
                AgentRunState.SUCCEEDED,
                AgentRunState.FAILED,
                AgentRunState.DISCONNECTED,
                AgentRunState.PARKED,
            }
        ),
    }
    pane = ctx.require_pane(params.pane_id)
    if params.until == ATTENTION:
        await ctx.attention_preflight(pane)
    wanted = satisfies[params.until]
    surface = pane.surface_id
    last: list[AgentRunState | None] = [None]

    def probe() -> AgentRunState | None:
        if ctx.panes.by_surface.get(surface) is None:
            raise MyttyError(
                ErrorCode.PANE_NOT_FOUND, f"pane {params.pane_id} closed while waiting"
            )
        run = ctx.hub.book.most_relevant(surface)
        last[0] = run.state if run is not None else None
        return run.state if run is not None and run.state in wanted else None

    state, timed_out = await ctx.hub.wait_until(probe, params.timeout_s, surface_id=surface)
    final = state if state is not None else last[0]
    return wire.wait_result(final, timed_out)
