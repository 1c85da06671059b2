"""``agentResult``: the job's state, its pane's current screen (empty for a lost job), and the
worker's last answer.

``lastAssistantMessage`` is an addition to the original's reply: the final assistant message the
bound run's Stop hook reported (Claude Code and Codex send ``last_assistant_message``), clipped
by the hook to fit an event; null until the run has finished a turn or when the provider sends
none (Cursor, OpenCode, Antigravity).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import JOB_ARG, Command
from mytty.control.targets import JobParams as Params
from mytty.control.targets import parse_job as parse  # noqa: F401 - the command's parse()
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.ports import JobStore, PaneDirectory, RunWaiter, TmuxAccess
    from mytty.protocol.replies import AgentResultReply

    class AgentResultContext(JobStore, PaneDirectory, TmuxAccess, RunWaiter, Protocol):
        """What ``agent_result`` uses of the controller."""


COMMAND = Command(
    name="agent result",
    wire="agentResult",
    summary="the job, the worker's last answer and its current screen",
    args=(JOB_ARG,),
    errors=(codes.JOB_NOT_FOUND, codes.TMUX_UNAVAILABLE, codes.INVALID_REQUEST),
    guide="""\
The job, the worker's last answer (.lastAssistantMessage, from its Stop hook; null for
cursor) and its current screen (.content.text).""",
    doc="""
The job snapshot plus the worker pane's current text, as [`read`](#read-pane) returns it. For
a lost job `text` is `""` and the cursor fields are `null`. This is the screen, not a
transcript: the worker contract asks for a summary short enough to read there.

`lastAssistantMessage` is the worker's last answer: the final assistant message its bound run's
`Stop` hook reported (Claude Code and Codex send it; Cursor does not), clipped to about 32 KiB
with a note in the middle when longer; `null` until the run finishes a turn. It is an addition
to the original's reply. `mytty-ctl agent result "$job" | jq -r .lastAssistantMessage` prints
just the answer.

Request `{"type":"agentResult","jobID":{"rawValue":"<UUID>"}}`. Reply:

```json
{"content":{"cursorColumn":0,"cursorRow":2,"paneID":"201841B5-2A1E-41BE-93CD-775F48479797","text":"working on: Find why login times out. Report causes only.\\nSUMMARY: finished turn 1"},"job":{"jobID":{"rawValue":"04AA9DA1-F255-412D-808A-A53E2525DB4F"},"label":"scan-a","message":null,"paneID":{"rawValue":"201841B5-2A1E-41BE-93CD-775F48479797"},"provider":"claude","runID":{"rawValue":"91AC8931-9D51-5F4D-A10D-39D5A5443351"},"sessionID":"sess-13616","state":"succeeded"},"lastAssistantMessage":"Login times out because the pool has 5 connections; see db/pool.py.","type":"agentResult"}
```
""",
)


async def handle(ctx: AgentResultContext, params: Params) -> AgentResultReply:
    from mytty.control.read import read_content
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.core.jobs.tracker import AgentJobState
    from mytty.protocol import wire

    await ctx.jobs.refresh_resources()  # rssBytes / cpuPercent at most a second old
    job = ctx.jobs.current(params.job_id)
    pane = ctx.panes.by_surface.get(job.surface_id)
    content = wire.pane_content(job.surface_id, "", None, None)
    if pane is not None and job.state is not AgentJobState.LOST:
        try:
            content = await read_content(ctx, pane, job.surface_id)
        except MyttyError as exc:
            if exc.code is not ErrorCode.PANE_NOT_FOUND:
                raise
            job = ctx.jobs.current(job.job_id)
    run = ctx.hub.book.get(job.run_id) if job.run_id is not None else None
    last_answer = run.last_assistant_message if run is not None else None
    return wire.agent_result(ctx.jobs.snapshot(job), content, last_answer)
