"""A PermissionRequest (Claude Code, Codex) brought to the controller's approvals broker.

``mytty-agent-hook`` sends the request's event with an ``approval`` object (what the agent asks
to do) and keeps the connection open: the first reply line says at once whether a rule decided
(``decision``) or how long the controller holds it (``holdSeconds``); a held request gets a
second line, the decision or ``null``. The hook then prints the provider's own reply, which
both pinned CLIs read alike (docs/dev/research/approvals.md §4)::

    {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}
    {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"…"}}}

or nothing at all ("no decision": the agent's own dialog decides), and always exits 0. No other
key is ever printed (Codex refuses unknown keys and Claude-only ones), and nothing else goes to
stdout (Claude ignores a reply with text before it). The wait is bounded by the hold the
controller announced (at most :data:`~mytty.protocol.limits.MAX_APPROVAL_HOLD_S`) plus a short
grace, so a controller that dies or wedges mid-hold costs the agent no more than that.

``AskUserQuestion`` (and the other question tools) also fire PermissionRequest: those are
questions for the user, never decided here (the adapters map them to ``input-requested``).

Long actions are cut to fit the 64 KiB envelope (``truncated``: no rule can read them); text
that is not valid Unicode is made printable the same way (``\\udXXX`` escapes) and marked so.
"""

from mytty.hook.fields import sanitize_tool_name
from mytty.protocol.jsonlite import SPACED, dumps

#: Budgets of the envelope's 64 KiB (bytes of JSON text, escapes included).
COMMAND_BUDGET = 24 * 1024
DIFF_BUDGET = 8 * 1024
DESCRIPTION_BUDGET = 1024
PATH_BUDGET = 4096
MAX_PATHS = 32

_PATCH_FILE_PREFIXES = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
_PATH_KEYS = ("file_path", "notebook_path", "path")


def _json_size(text: str) -> int:
    return len(dumps(text).encode("utf-8"))


def _readable(text: str) -> tuple[str, bool]:
    """``text`` as valid Unicode, and whether it had to be changed to be."""
    try:
        text.encode("utf-8")
        return text, False
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8"), True


def clip(text: str, budget: int) -> tuple[str, bool]:
    """The longest start of ``text`` whose JSON form fits ``budget`` bytes, and whether it was
    cut (or made readable)."""
    text, changed = _readable(text)
    if _json_size(text) <= budget:
        return text, changed
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if _json_size(text[:middle]) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low], True


def _patch_paths(patch: str) -> list[str]:
    return [
        line[len(prefix) :].strip()
        for line in patch.splitlines()
        for prefix in _PATCH_FILE_PREFIXES
        if line.startswith(prefix)
    ]


def _diff(tool_input: dict[str, object]) -> str | None:
    """A short summary of the change a file tool asks for."""
    content = tool_input.get("content")
    if isinstance(content, str):
        return content
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    if isinstance(old, str) and isinstance(new, str):
        return "".join(f"-{line}\n" for line in old.splitlines()) + "".join(
            f"+{line}\n" for line in new.splitlines()
        )
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        return dumps(edits, separators=SPACED)
    return None


def approval_object(payload: dict[str, object]) -> dict[str, object] | None:
    """The envelope's ``approval`` for a PermissionRequest payload (None: no tool named)."""
    tool = sanitize_tool_name(payload.get("tool_name"))
    if tool is None:
        return None
    raw_input = payload.get("tool_input")
    tool_input: dict[str, object] = raw_input if isinstance(raw_input, dict) else {}
    out: dict[str, object] = {"tool": tool}
    truncated = False
    command = tool_input.get("command")
    paths: list[str] = []
    if isinstance(command, str):
        out["command"], cut = clip(command, COMMAND_BUDGET)
        truncated = truncated or cut
        if tool == "apply_patch":
            paths = _patch_paths(command)
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            paths.append(value)
    kept = []
    for path in paths[:MAX_PATHS]:
        text, cut = clip(path, PATH_BUDGET)
        truncated = truncated or cut
        if text:
            kept.append(text)
    truncated = truncated or len(paths) > MAX_PATHS
    if kept:
        out["paths"] = kept
    diff = _diff(tool_input)
    if diff is None and not isinstance(command, str) and not kept and tool_input:
        diff = dumps(tool_input, separators=SPACED)  # an unknown tool: show its input
    if diff is not None:
        out["diff"], _cut = clip(diff, DIFF_BUDGET)  # a cut diff still shows what changes
    description = tool_input.get("description")
    if isinstance(description, str) and description:
        out["description"], _cut = clip(description, DESCRIPTION_BUDGET)
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        text, cut = clip(cwd, PATH_BUDGET)
        if not cut:
            out["cwd"] = text
    out["truncated"] = truncated
    return out


def bare(approval: dict[str, object]) -> dict[str, object]:
    """The approval with only what always fits (an envelope that was still too large)."""
    out = {"tool": approval["tool"], "truncated": True}
    if "cwd" in approval:
        out["cwd"] = approval["cwd"]
    return out


def decision_output(line: object) -> bytes | None:
    """The provider's reply for a decision (``{"decision":…,"message"?:…}``), None for none."""
    if not isinstance(line, dict):
        return None
    behavior = line.get("decision")
    if behavior not in ("allow", "deny"):
        return None
    decision: dict[str, object] = {"behavior": behavior}
    message = line.get("message")
    if behavior == "deny" and isinstance(message, str) and message:
        decision["message"] = message
    reply = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}
    return dumps(reply).encode("utf-8") + b"\n"
