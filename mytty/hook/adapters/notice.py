"""The hook output that adds text to the model's context: where a lead hears of its workers.

``agent spawn --notify-lead``'s notices reach the lead through its own hooks at a turn
boundary, never by typing into its pane. Claude Code and Codex read the same shape from a
``UserPromptSubmit`` or ``SessionStart`` hook's stdout:
``{"hookSpecificOutput":{"hookEventName":…,"additionalContext":…}}``. Both hooks fire only
before a turn (a prompt being submitted; a session starting, resuming or compacted), never
mid-turn. Which versions honour it is proven by tests/realagents/test_lead_notices.py.
"""

#: The hooks whose output can add context (the same names for Claude Code and Codex).
CONTEXT_HOOKS = frozenset({"UserPromptSubmit", "SessionStart"})


def takes_notice(payload: dict[str, object]) -> bool:
    """Can this hook's output hand the agent a lead notice?

    Not a subagent's (a payload with ``agent_id``: Codex fires ``UserPromptSubmit`` for a
    ``spawn_agent`` subagent's own prompt, in the lead's pane): the notice is for the lead.
    """
    return payload.get("hook_event_name") in CONTEXT_HOOKS and "agent_id" not in payload


def notice_output(payload: dict[str, object], text: str) -> bytes:
    """The hook's stdout that adds ``text`` to the model's context."""
    import json  # only when a notice came: json's import is a good part of the helper's start

    output = {
        "hookSpecificOutput": {
            "hookEventName": payload.get("hook_event_name"),
            "additionalContext": text,
        }
    }
    return json.dumps(output, ensure_ascii=False).encode("utf-8") + b"\n"
