"""``env``: the mytty environment of the pane the caller runs in (for hand-made panes).

The pane is decided from the caller's process ancestry (SO_PEERCRED pid → parents → a pane's
shell pid), never from anything the caller says, so a process cannot obtain another pane's
capability.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from mytty.control.spec import Command, Option, Values
from mytty.control.targets import CallerParams as Params
from mytty.control.targets import parse_caller as parse  # noqa: F401 - the command's parse()
from mytty.core import codes

if TYPE_CHECKING:
    from mytty.control.ports import PaneDirectory, PaneFacts
    from mytty.protocol.replies import EnvReply

    class EnvContext(PaneDirectory, PaneFacts, Protocol):
        """What ``env`` uses of the controller."""


def _render(reply: Mapping[str, object], values: Values) -> str:
    """Shell code that sets the environment (``--json``: the reply itself)."""
    import json

    from mytty.core.quoting import shell_quote

    if "--json" in values.flags:
        return json.dumps(reply, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
    fish = "--fish" in values.flags
    environment = reply.get("environment")
    env: Mapping[str, str] = environment if isinstance(environment, dict) else {}
    bin_dir = shell_quote(os.path.dirname(env.get("MYTTY_CTL_BIN", "")))
    lines = []
    for key, value in env.items():
        if key == "PATH" and fish:
            lines.append(f"contains -- {bin_dir} $PATH; or set -gx PATH $PATH {bin_dir}")
        elif key == "PATH":
            lines.append(
                f'case ":$PATH:" in *:{bin_dir}:*) ;; *) export PATH="$PATH":{bin_dir} ;; esac'
            )
        elif fish:
            lines.append(f"set -gx {key} {shell_quote(value)}")
        else:
            lines.append(f"export {key}={shell_quote(value)}")
    return "\n".join(lines) + "\n"


COMMAND = Command(
    name="env",
    wire="env",
    summary="the mytty environment of the calling pane, as shell code",
    options=(
        Option("--json", None, None, "print the controller's reply instead"),
        Option("--fish", None, None, "print fish commands instead of sh"),
    ),
    render=_render,
    errors=(codes.NOT_IN_PANE, codes.TMUX_UNAVAILABLE),
    client_errors=(codes.USAGE,),
    heading="env",
    doc="""
```sh
eval "$(mytty-ctl env)"           # sh, bash, zsh
mytty-ctl env --fish | source     # fish
mytty-ctl env --json
```

The mytty environment of the pane the caller runs in, for panes mytty did not create. The
controller decides the pane from the caller's process ancestry (the socket peer's pid, its
parents, up to a pane's shell), never from anything in the request, so a process can only
obtain its own pane's capability. A caller outside the bound tmux server gets `not-in-pane`.

Without `--json` the output is shell code, one line per variable, each value quoted so that
the shell reads it back byte for byte (single quotes; `'` and `\\` written outside them, which
is also right for fish):

```sh
export MYTTY_EVENT_SOCKET='/home/me/.config/mytty/events.sock'
export MYTTY_SURFACE_ID='BA8E1D92-1383-4D2D-B54D-518E4287492F'
export MYTTY_EVENT_CAPABILITY='D2…'
export MYTTY_CONTROL_SOCKET='/home/me/.config/mytty/control.sock'
export MYTTY_CTL_BIN='/home/me/mytty/.venv/bin/mytty-ctl'
case ":$PATH:" in *:'/home/me/mytty/.venv/bin':*) ;; *) export PATH="$PATH":'/home/me/mytty/.venv/bin' ;; esac
```

`--fish` prints `set -gx NAME 'value'` lines and
`contains -- 'DIR' $PATH; or set -gx PATH $PATH 'DIR'`. For `PATH` only the directory of
`mytty-ctl` is appended, if missing.

Request `{"type":"env"}`. Reply (`--json`):
`{"environment":{"MYTTY_CONTROL_SOCKET":…,"MYTTY_CTL_BIN":…,"MYTTY_EVENT_CAPABILITY":…,"MYTTY_EVENT_SOCKET":…,"MYTTY_SURFACE_ID":…,"PATH":…},"paneID":"<UUID>","type":"env"}`.
The `PATH` value there is the controller's own `PATH` plus the `mytty-ctl` directory.
""",
)


async def handle(ctx: EnvContext, params: Params) -> EnvReply:
    from mytty.core.errors import ErrorCode, MyttyError
    from mytty.protocol import wire

    surface = ctx.caller_surface(params.peer_pid)
    if surface is None:
        await ctx.refresh_panes()  # the caller's pane may be seconds old
        surface = ctx.caller_surface(params.peer_pid)
    if surface is None:
        raise MyttyError(
            ErrorCode.NOT_IN_PANE,
            "the caller does not run inside a pane of the tmux server this controller owns",
        )
    return wire.env_reply(surface, ctx.pane_environment(surface))
