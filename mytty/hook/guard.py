"""The ``PreToolUse`` kill-server guard, decided in the hook helper itself.

Only for a worker mytty spawned with the guard on (``MYTTY_WORKER=1`` and ``MYTTY_TMUX_GUARD``
= the controller's tmux socket in the agent's environment); everything else returns None at
once. No controller round trip: the guard must work when the controller is slow or down, and a
tool call must not wait for a socket. The decision is :func:`mytty.core.kill_guard.check_shell`;
this module only reads the payload and the process facts and words the deny.

Claude Code and Codex read the same deny on stdout (exit 0)::

    {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",
     "permissionDecisionReason":"…"}}
"""

from __future__ import annotations

import os

from mytty.core.kill_guard import GUARD_VAR, WORKER_VAR, GuardInput, check_argv, check_shell

TYPE_CHECKING = False  # (typing itself is slow to import here)
if TYPE_CHECKING:
    from collections.abc import Mapping

#: Providers whose PreToolUse hook honours a ``permissionDecision: deny``.
GUARDED_PROVIDERS = frozenset({"claude-code", "codex"})


def _socket_of(tmux_env: str) -> str:
    return tmux_env.split(",", 1)[0]


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def pre_tool_use_reply(
    provider: str, payload: dict[str, object], env: Mapping[str, str]
) -> bytes | None:
    """The deny to print for this payload, or None to let the tool run (and say nothing)."""
    if provider not in GUARDED_PROVIDERS or env.get(WORKER_VAR) != "1":
        return None
    protected = env.get(GUARD_VAR, "")
    if not protected or payload.get("hook_event_name") != "PreToolUse":
        return None
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str | list):
        return None
    # The server this worker runs on, by both names it may have (the controller's and tmux's).
    sockets = {_real(protected)}
    if env.get("TMUX"):
        sockets.add(_real(_socket_of(env["TMUX"])))
    cwd = payload.get("cwd")
    guard = GuardInput(
        env,
        os.getuid(),
        cwd if isinstance(cwd, str) and cwd.startswith("/") else os.getcwd(),
        lambda path: _real(path) in sockets,
    )
    if isinstance(command, str):
        refusal = check_shell(command, guard)
    elif all(isinstance(word, str) for word in command):
        refusal = check_argv([str(word) for word in command], guard)
    else:
        return None
    if refusal is None:
        return None
    import json  # only for a deny: json's import is a good part of the helper's start

    reply = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": refusal.message(),
        }
    }
    return (json.dumps(reply, ensure_ascii=False) + "\n").encode()
