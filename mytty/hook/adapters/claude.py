"""Claude Code hook payloads → events (providers.md §3.3, real payloads of Claude Code 2.1.332).

The run is keyed by ``prompt_id`` (one run per prompt), falling back to the session id, except
``SessionEnd``: it always lands on the session-keyed run that ``SessionStart`` opened, so quitting
the CLI does not turn the last prompt's outcome into ``disconnected`` (2.1.332 sends a
``prompt_id`` with ``SessionEnd``, which the original mapping did not expect).

Subagents (an addition to the original, docs/reference/event-protocol.md): ``SubagentStart`` and
``SubagentStop`` become ``running`` events of the parent's turn whose ``toolUseID`` is the
subagent's ``agent_id``; Claude's synthetic ``<task-notification>`` prompt (a second
UserPromptSubmit, with a prompt id of its own, sent when an async subagent finishes) becomes a
``running`` event naming the finished ``<task-id>``, which the reducer folds into the turn that
started that subagent instead of letting it supersede that turn.

An async subagent's ``SubagentStop`` that still lists the subagent itself as a running
background task is not followed (2.1.332, a subagent that finished before its parent's turn:
SubagentStop → the parent's Stop with no background tasks → the task-notification prompt → the
final Stop). Claude still owes the task-notification turn then, so the subagent stays live and
the parent's Stop keeps the run open until the final Stop carries the real answer; following
it would end the job at the first Stop with Claude's internal "Async agent launched" note as
its answer.

A usage limit (an addition, docs/dev/research/limits.md §1.5): ``StopFailure`` with
``error: "rate_limit"`` is ``limit-reached``, not ``failed`` — 2.1.332 sends that category for
every 429 it gives up on, a plain throttle as well as the account's limit, and its payload holds
neither the reset nor the window; the controller reads both from the transcript's error row.
Its text (``last_assistant_message``: "You've hit your 5-hour limit · resets 12am (UTC)")
becomes the event's message, not the turn's answer.
"""

from mytty.hook import mapping as k
from mytty.hook.adapters.notice import notice_output, takes_notice
from mytty.hook.adapters.turns import turn_mapping
from mytty.hook.fields import sanitize_tool_name, sanitize_tool_use_id, text_field
from mytty.hook.mapping import INPUT_TOOLS, HookMapping

__all__ = ["map_payload", "notice_output", "takes_notice"]  # notices: see adapters.notice

# Statuses of a background task that is no longer running (compared lower-cased).
_FINISHED_STATUSES = frozenset(
    {"completed", "failed", "cancelled", "canceled", "killed", "stopped", "done"}
)
# Only agents keep a turn open; a long-lived shell (a dev server) or a monitor must not.
_AGENT_TASK_TYPES = frozenset({"subagent", "workflow"})

_NOTIFICATION_KINDS = {
    "permission_prompt": k.APPROVAL_REQUESTED,
    "agent_needs_input": k.INPUT_REQUESTED,
    "elicitation_dialog": k.INPUT_REQUESTED,
    "agent_completed": k.SUCCEEDED,
    # idle_prompt is ignored on purpose: it fires ~60 s after Stop and would flip a run that
    # waits for background agents to waiting-input.
}

_MESSAGE_KEYS = ("message", "error_message")
_FAILURE_MESSAGE_KEYS = ("message", "error_message", "last_assistant_message", "error")

#: StopFailure's ``error`` for a 429 Claude gave up on (its usage limit, or a throttle).
_RATE_LIMIT = "rate_limit"

_SIMPLE_KINDS = {
    "SessionStart": k.IDLE,
    "UserPromptSubmit": k.STARTED,
    "PostToolBatch": k.RUNNING,
    "StopFailure": k.FAILED,
    "SessionEnd": k.DISCONNECTED,
}


def pending_background_agents(tasks: object) -> int:
    """How many ``background_tasks`` entries are agents (subagent/workflow) still unfinished."""
    if not isinstance(tasks, list):
        return 0
    count = 0
    for task in tasks:
        if not isinstance(task, dict):
            continue
        kind = task.get("type")
        if not isinstance(kind, str) or kind.lower() not in _AGENT_TASK_TYPES:
            continue
        status = task.get("status")
        if not isinstance(status, str) or status.lower() not in _FINISHED_STATUSES:
            count += 1
    return count


_NOTIFICATION_TAG = "<task-notification>"
_TASK_ID_OPEN = "<task-id>"
_TASK_ID_CLOSE = "</task-id>"
_SUBAGENT_HOOKS = frozenset({"SubagentStart", "SubagentStop"})


def notified_task_id(prompt: object) -> str | None:
    """The ``<task-id>`` of a synthetic ``<task-notification>`` prompt, else None."""
    if not isinstance(prompt, str) or not prompt.lstrip().startswith(_NOTIFICATION_TAG):
        return None
    start = prompt.find(_TASK_ID_OPEN)
    end = prompt.find(_TASK_ID_CLOSE, start + 1)
    if start < 0 or end < 0:
        return None
    return sanitize_tool_use_id(prompt[start + len(_TASK_ID_OPEN) : end].strip())


def _notification_owed(payload: dict[str, object], agent_id: str) -> bool:
    """Whether a SubagentStop's ``background_tasks`` still lists that subagent as unfinished."""
    tasks = payload.get("background_tasks")
    if not isinstance(tasks, list):
        return False
    return any(
        isinstance(task, dict)
        and sanitize_tool_use_id(task.get("id")) == agent_id
        and pending_background_agents([task]) == 1
        for task in tasks
    )


def _waiting_message(count: int) -> str:
    return f"Waiting for {count} background agent" + ("" if count == 1 else "s")


def map_payload(payload: dict[str, object]) -> HookMapping | None:
    """Map one Claude Code hook payload, or None when mytty does not follow that event."""
    name = text_field(payload, "hook_event_name")
    if name is None:
        return None
    tool_name = sanitize_tool_name(payload.get("tool_name"))
    message: str | None = None
    agent_id: str | None = None
    if name == "UserPromptSubmit" and (agent_id := notified_task_id(payload.get("prompt"))):
        kind = k.RUNNING
    elif name in _SUBAGENT_HOOKS:
        agent_id = sanitize_tool_use_id(payload.get("agent_id"))
        if agent_id is None:
            return None
        if name == "SubagentStop" and _notification_owed(payload, agent_id):
            return None  # its task-notification ends it (see the module's docstring)
        kind = k.RUNNING
    elif name == "StopFailure" and text_field(payload, "error") == _RATE_LIMIT:
        kind = k.LIMIT_REACHED
    elif name in _SIMPLE_KINDS:
        kind = _SIMPLE_KINDS[name]
    elif name == "PermissionRequest":
        kind = k.INPUT_REQUESTED if tool_name in INPUT_TOOLS else k.APPROVAL_REQUESTED
    elif name == "Notification":
        found = _NOTIFICATION_KINDS.get(text_field(payload, "notification_type") or "")
        if found is None:
            return None
        kind = found
    elif name == "Stop":
        pending = pending_background_agents(payload.get("background_tasks"))
        kind = k.RUNNING if pending else k.SUCCEEDED
        if pending:
            message = _waiting_message(pending)
    else:
        return None

    # 2.1.332's StopFailure has no error_message: `error` is a category ("unknown") and the
    # API error text is in `last_assistant_message`.
    keys = _FAILURE_MESSAGE_KEYS if kind in (k.FAILED, k.LIMIT_REACHED) else _MESSAGE_KEYS
    mapping = turn_mapping(
        payload,
        name=name,
        kind=kind,
        tool_name=tool_name,
        turn_key="prompt_id",
        message=message,
        message_keys=keys,
    )
    if agent_id is not None:
        mapping.tool_use_id = agent_id
    return mapping
