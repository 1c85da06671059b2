"""``list``: every pane of the bound tmux server (the controller's private session excluded)."""

from __future__ import annotations

from mytty.control.spec import Command
from mytty.core import codes

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from typing import Protocol

    from mytty.control.base import Request
    from mytty.control.ports import PaneDirectory, PaneFacts
    from mytty.protocol.replies import ListReply

    class ListContext(PaneDirectory, PaneFacts, Protocol):
        """What ``list_panes`` uses of the controller."""


COMMAND = Command(
    name="list",
    wire="list",
    summary="every pane (paneID, windowID, tabID, title, command, ...)",
    errors=(codes.TMUX_UNAVAILABLE,),
    doc="""
Every pane of the tmux server the controller is bound to, except its private `_mytty`
session, ordered by session name, window index, pane index.

Request `{"type":"list"}`. Reply:

```json
{"panes":[{"command":"bash","isActive":true,"paneID":"490F88BA-FAAB-4316-BC18-E27EFE503F8C","tabID":"@1","title":"bash","windowID":"$1","workingDirectory":"/home/me"},{"agentState":"succeeded","command":"Claude Code","isActive":false,"paneID":"71A247CA-44A3-4B6F-9221-E5B34A705896","provider":"claude-code","tabID":"@4","title":"bash","windowID":"$1","workingDirectory":"/tmp"}],"type":"list"}
```

| field | meaning |
|---|---|
| `paneID` | the pane's mytty id (kept in the tmux pane option `@mytty_surface`) |
| `windowID` | the tmux **session** id (`$N`); `tabID` is the tmux **window** id (`@N`) |
| `title` | the tmux window name |
| `command` | what runs in the pane's foreground: the agent's name (`Claude Code`, `Codex`, `OpenCode`, `Gemini (Antigravity)`, `Cursor`) when one runs there, else the foreground process name, else tmux's `pane_current_command`. For the pane you call `list` from this is `mytty-ctl` itself (it is the foreground process at that moment), not your shell |
| `workingDirectory` | tmux's `pane_current_path` |
| `isActive` | the pane is the active pane of the active window of its session |
| `provider`, `agentState` | provider and state of the pane's [most relevant run](event-protocol.md#most-relevant-run); both keys are absent when the pane never had an agent event |
| `liveSubagents` | mytty's addition: live Claude subagents of that run (started, not yet stopped or notified); absent when none ([subagent-aware runs](event-protocol.md#subagent-aware-claude-runs)) |
| `statusNote` | the pane's [status note](#status); absent when there is none |
| `shell` | mytty's addition, once the pane's [shell integration](../how-to/shell-integration.md) reported: `lastExitStatus` (0–255, `null` before the first command), `lastExitAt` (when it finished, ISO 8601 with milliseconds; the controller's clock when the shell has none), `cwd` (the shell's directory after it), `commandCount` (command lines reported; after a controller restart, those in the tail of the file it read back), `reportedAt` (when the controller read the last report); absent for panes whose shell has no integration |
""",
)


class Params:
    """This request has no fields."""

    __slots__ = ()


def parse(request: Request) -> Params:
    return Params()


async def handle(ctx: ListContext, params: Params) -> ListReply:
    from mytty.protocol import wire

    await ctx.refresh_panes()
    listed = [
        (p.row.session_name, p.row.window_index, p.row.pane_index, p)
        for p in ctx.panes.panes()
        if p.row is not None
    ]
    listed.sort(key=lambda entry: entry[:3])
    return wire.list_reply(ctx.pane_info(entry[3]) for entry in listed)
