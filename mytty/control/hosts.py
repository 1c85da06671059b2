"""``hosts``: the other machines this controller follows, as it last saw each (a mytty addition).

The controller follows every ``[hosts.NAME]`` of its ``config.toml`` by a long poll of that
host's ``events`` over SSH, and reads the host's attention items and jobs each time the poll
answers (mytty.daemon.hosts). This command says what it saw: ``current`` or ``stale`` since
when, when it last answered, its mytty version, round-trip time, agents, and its open
attention items with qualified ids. ``--refresh`` asks every host again first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command, Option
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.base import Request
    from mytty.control.ports import HostsView
    from mytty.protocol.replies import HostsReply

    class HostsContext(HostsView, Protocol):
        """What ``hosts`` uses of the controller."""


#: How long ``--refresh`` waits for the hosts to answer before it replies with what it has.
REFRESH_TIMEOUT_S = 3.0

REFRESH = Option(
    "--refresh", None, "refresh", "ask every host again before answering (at most 3 s)"
)

COMMAND = Command(
    name="hosts",
    wire="hosts",
    summary="the other hosts followed here: current or stale, their attention items",
    options=(REFRESH,),
    receive_timeout=REFRESH_TIMEOUT_S + 5.0,
    errors=(codes.INVALID_REQUEST,),
    client_errors=(codes.USAGE,),
    guide="""\
The other machines this controller follows ([hosts.NAME] in config.toml): each one's state
(current, stale, connecting), lastSeen, version, agents and its open attention items (ids
qualified NAME:<id>). Any command runs on a host with --host NAME, or by itself when given a
qualified id: mytty-ctl agent spawn --host build1 ... starts a worker on build1, and
mytty-ctl agent wait build1:<job> ... waits for it from here.""",
    doc="""
Every `[hosts.NAME]` of this controller's `config.toml`, in that order, as the controller
last saw it (see [hosts](hosts.md)): it follows each by a long poll of the host's `events`
over SSH, and reads the host's attention items and jobs each time the poll answers.

Request `{"type":"hosts","refresh":false}`. Reply:

```json
{"hosts":[{"agents":1,"attention":1,"error":null,"items":[{"createdAt":"2026-07-16T05:00:05.250Z","host":"build1","kind":"approval-request","label":"scan","location":"mytty:2.1","message":"Bash: rm -rf build","paneID":"build1:71A247CA-44A3-4B6F-9221-E5B34A705896","provider":"claude-code","resolvedAt":null,"runID":"build1:74C4B46D-9251-46AD-9200-61C97D98D43D"}],"lastSeen":"2026-07-16T05:00:06.120Z","name":"build1","rttMs":0.6,"since":"2026-07-16T04:58:00.002Z","ssh":"me@build1","state":"current","version":"0.1.0"}],"type":"hosts"}
```

| field | meaning |
|---|---|
| `state` | `connecting` (not reached since this controller started), `current` (its poll answers), `stale` (it stopped answering: its items are those of `lastSeen`) |
| `since` | when `state` began |
| `lastSeen` | when the host last answered (null: not since this controller started) |
| `version` | the mytty version there |
| `rttMs` | the round-trip time of the last request to it, in milliseconds |
| `agents`, `attention` | its unfinished jobs and open attention items (null until it answered) |
| `error` | the last failure (`{code, message}`, e.g. `host-unreachable`), null while current |
| `items` | its open attention items as its `attention` reply has them, ids qualified, plus `host` |
""",
)


class Params:
    """The request's fields, typed (read-only by convention)."""

    __slots__ = ("refresh",)

    def __init__(self, refresh: bool) -> None:
        self.refresh = refresh


def parse(request: Request) -> Params:
    return Params(request.flag(REFRESH))


async def handle(ctx: HostsContext, params: Params) -> HostsReply:
    from mytty.protocol import wire

    if params.refresh:
        await ctx.refresh_hosts(REFRESH_TIMEOUT_S)
    return wire.hosts_reply(ctx.followed_hosts())
