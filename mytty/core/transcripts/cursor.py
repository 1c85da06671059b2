"""Cursor's chat store (``~/.cursor/chats/<md5 of cwd>/<conversationId>/store.db``) → the turn
(semantics §9.4).

The store is SQLite with a content-addressed ``blobs(id, data)`` table; the message blobs are
UTF-8 JSON ``{"role": "user"|"assistant"|"tool", "content": [{"type": "text", …},
{"type": "tool-call", …}, …]}`` (other blobs — the protobuf root, tool results — are not JSON
messages and are skipped). Given the newest blobs by rowid, newest first:

- the newest ``user`` blob with a text element is the turn, key ``<conversationId>#<rowid>``;
- it is completed when a newer ``assistant`` blob has a text element and no tool call, else
  active. Cursor never reports an interrupt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from mytty.core.estimation.turn_observation import TurnObservation, TurnPhase

#: How many of the newest blobs are looked at.
SCAN_BLOBS = 400


def _message(data: object) -> tuple[str, set[str]] | None:
    """(role, element types) of a JSON message blob, else None."""
    if isinstance(data, str):
        data = data.encode("utf-8", "replace")
    if not isinstance(data, bytes | bytearray) or data[:1] != b"{":
        return None
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or not isinstance(role := obj.get("role"), str):
        return None
    content = obj.get("content")
    kinds: set[str] = set()
    if isinstance(content, str):
        kinds.add("text")
    elif isinstance(content, list):
        for element in content:
            kind = element.get("type") if isinstance(element, dict) else None
            if isinstance(kind, str):
                kinds.add(kind)
    return role, kinds


def cursor_turn(
    conversation_id: str, newest_first: Iterable[tuple[int, object]]
) -> TurnObservation | None:
    """The turn the newest blobs show (``(rowid, data)`` pairs, newest first)."""
    answered = False  # a newer assistant blob with text and no tool call
    for n, (rowid, data) in enumerate(newest_first):
        if n >= SCAN_BLOBS:
            break
        message = _message(data)
        if message is None:
            continue
        role, kinds = message
        if role == "assistant" and "text" in kinds and "tool-call" not in kinds:
            answered = True
        elif role == "user" and "text" in kinds:
            phase = TurnPhase.COMPLETED if answered else TurnPhase.ACTIVE
            return TurnObservation(f"{conversation_id}#{rowid}", phase)
    return None
