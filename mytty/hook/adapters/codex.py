"""Codex hook payloads → events (providers.md §2.3, real payloads of codex-cli 0.171.0).

Beyond the original's table, ``Interrupt`` (Esc during a turn) ends the turn's run as ``idle``.

The run is keyed by ``turn_id`` (one run per turn), falling back to the session id
(``SessionStart`` has no turn). ``SessionEnd`` always lands on the session-keyed run.
The controller routes codex events by ``sessionID`` rather than by surface, because hooks of a
daemon-hosted Codex inherit the environment of whichever pane started the daemon.

Subagents (codex-cli 0.171.0, ``spawn_agent`` of its ``multi_agent_v1`` tools; an addition to
the original): the subagent's thread fires hooks with its parent's ``session_id``, a
``turn_id`` of its own and an ``agent_id`` (``SubagentStart``, its ``UserPromptSubmit``, its
tools, ``SubagentStop``; no ``Stop``), and the parent's ``Stop`` usually comes while the
subagent still works. Such an event is never a turn of its own: it becomes a ``running`` event
(``approval-requested`` for its permission requests) whose ``toolUseID`` is
:data:`SUBAGENT_PREFIX` + ``agent_id``, and the reducer folds it into the turn whose
``PostToolUse`` of ``spawn_agent`` returned that ``agent_id`` (ignoring it when no turn did).
``SubagentStart``/``SubagentStop`` keep that turn open while the subagent lives
(:mod:`mytty.core.runs.subagents`).

A usage limit (an addition, docs/dev/research/limits.md §2.4): 0.171.0 fires no ``Stop`` for a
turn whose model request hit the account's limit (HTTP 429 ``usage_limit_reached``, never
retried), only ``PostModelRequest`` with ``status: "failed"`` and the error's text, which
always opens with "You\u2019ve hit your usage limit" (a curly apostrophe). That one is ``limit-reached`` (its text the
message); every other ``PostModelRequest`` (one per model request) is ignored. The reset comes
from the rollout, where the controller also finds the limit when this hook is not installed.
"""

from mytty.hook import mapping as k
from mytty.hook.adapters.notice import notice_output, takes_notice
from mytty.hook.adapters.turns import turn_mapping
from mytty.hook.fields import sanitize_tool_name, sanitize_tool_use_id, text_field
from mytty.hook.mapping import INPUT_TOOLS, HookMapping
from mytty.protocol.jsonlite import loads

__all__ = ["map_payload", "notice_output", "takes_notice"]  # notices: see adapters.notice

_SIMPLE_KINDS = {
    "SessionStart": k.IDLE,
    "UserPromptSubmit": k.STARTED,
    "PostToolUse": k.RUNNING,
    "Stop": k.SUCCEEDED,
    "SessionEnd": k.DISCONNECTED,
    # Esc during a turn fires Interrupt and no Stop; without this the turn would stay running
    # forever (the original left it unmapped).
    "Interrupt": k.IDLE,
}
_MESSAGE_KEYS = ("message",)
#: PostModelRequest's text of the failed request (the usage limit's, as Codex shows it).
_LIMIT_MESSAGE_KEYS = ("error",)
#: ``toolUseID`` of the events a subagent's thread fires (and of the ``spawn_agent`` call that
#: started it): the prefix, then its ``agent_id``. The same value as mytty.core.runs.subagents uses.
SUBAGENT_PREFIX = "agent:"
_SPAWN_TOOL = "spawn_agent"
#: The hooks of a subagent's thread that count as activity of its parent's turn.
_SUBAGENT_ACTIVITY = frozenset(
    {"SubagentStart", "SubagentStop", "UserPromptSubmit", "PostToolUse", "Stop"}
)


#: How 0.171.0's every usage-limit text begins (U+2019; an ASCII apostrophe is taken too).
_LIMIT_TEXTS = ("You\u2019ve hit your usage limit", "You've hit your usage limit")
_MODEL_REQUEST = "PostModelRequest"


def usage_limited(payload: dict[str, object]) -> bool:
    """Is this ``PostModelRequest`` the failed request of a turn stopped at the usage limit?"""
    error = payload.get("error")
    return (
        payload.get("status") == "failed"
        and isinstance(error, str)
        and error.lstrip().startswith(_LIMIT_TEXTS)
    )


def map_payload(payload: dict[str, object]) -> HookMapping | None:
    """Map one Codex hook payload, or None when mytty does not follow that event."""
    name = text_field(payload, "hook_event_name")
    if name is None:
        return None
    tool_name = sanitize_tool_name(payload.get("tool_name"))
    agent_id = sanitize_tool_use_id(payload.get("agent_id"))
    if name == _MODEL_REQUEST:
        if agent_id is not None or not usage_limited(payload):
            return None  # a model request like any other (one per request)
        kind = k.LIMIT_REACHED
    elif name == "PermissionRequest":
        kind = k.INPUT_REQUESTED if tool_name in INPUT_TOOLS else k.APPROVAL_REQUESTED
    elif agent_id is not None:
        # An event of a subagent's thread: activity of the turn that spawned it, never a turn;
        # its Interrupt or SessionStart says nothing about that turn.
        if name not in _SUBAGENT_ACTIVITY:
            return None
        kind = k.RUNNING
    elif name in _SIMPLE_KINDS:
        kind = _SIMPLE_KINDS[name]
    else:
        return None
    mapping = turn_mapping(
        payload,
        name=name,
        kind=kind,
        tool_name=tool_name,
        turn_key="turn_id",
        message=None,
        message_keys=_LIMIT_MESSAGE_KEYS if kind == k.LIMIT_REACHED else _MESSAGE_KEYS,
    )
    if agent_id is not None:
        mapping.tool_use_id = SUBAGENT_PREFIX + agent_id
        mapping.last_assistant_message = None  # the subagent's report is not the turn's answer
    elif name == "PostToolUse" and tool_name == _SPAWN_TOOL:
        spawned = _spawned_agent(payload.get("tool_response"))
        if spawned is not None:
            mapping.tool_use_id = SUBAGENT_PREFIX + spawned
    return mapping


def _spawned_agent(response: object) -> str | None:
    """The ``agent_id`` in a ``spawn_agent`` result (a JSON text, or already an object)."""
    if isinstance(response, str):
        try:
            response = loads(response)
        except ValueError:
            return None
    if not isinstance(response, dict):
        return None
    return sanitize_tool_use_id(response.get("agent_id"))
