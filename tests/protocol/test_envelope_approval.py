"""The envelope's ``approval`` (a PermissionRequest that waits) and the replies it gets."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mytty.core.approvals.model import Action
from mytty.core.errors import MyttyError
from mytty.protocol.envelope import (
    MAX_APPROVAL_PATHS,
    ApprovalAsk,
    decode_envelope,
    encode_decision_line,
    encode_event_reply,
)
from mytty.protocol.wire import held_approval

EVENT = {
    "schemaVersion": 1,
    "id": {"rawValue": "6D9C7B1E-4E0F-4A7B-9B51-1C1D2E3F4A5B"},
    "runID": {"rawValue": "5B0C1D2E-3F40-4152-8364-758697A8B9CA"},
    "surfaceID": {"rawValue": "5B0C1D2E-3F40-4152-8364-758697A8B9CB"},
    "provider": "claude-code",
    "kind": "approval-requested",
    "occurredAt": "2026-12-01T10:00:00.000Z",
}


def envelope(approval: Any) -> bytes:
    return json.dumps({"schemaVersion": 1, "event": EVENT, "approval": approval}).encode()


def test_an_approval_decodes_to_its_action() -> None:
    got = decode_envelope(
        envelope(
            {
                "tool": "Bash",
                "command": "touch x",
                "paths": ["/w/a"],
                "diff": "+a",
                "description": "d",
                "cwd": "/w",
                "truncated": True,
                "unknown": 1,
            }
        )
    )
    assert got.approval == ApprovalAsk(
        Action(
            "Bash", command="touch x", paths=("/w/a",), diff="+a", description="d", truncated=True
        ),
        "/w",
    )
    plain = decode_envelope(json.dumps({"schemaVersion": 1, "event": EVENT}).encode())
    assert plain.approval is None


@pytest.mark.parametrize(
    "approval",
    [
        "Bash",
        {},
        {"tool": ""},
        {"tool": "Bash", "command": 3},
        {"tool": "Bash", "paths": "/w"},
        {"tool": "Bash", "paths": [""]},
        {"tool": "Bash", "paths": ["/p"] * (MAX_APPROVAL_PATHS + 1)},
        {"tool": "Bash", "truncated": "yes"},
        {"tool": "Bash", "command": "\ud800"},
        {"tool": "Bash", "paths": ["\udfff"]},
    ],
)
def test_a_malformed_approval_is_an_invalid_request(approval: Any) -> None:
    with pytest.raises(MyttyError) as caught:
        decode_envelope(envelope(approval))
    assert caught.value.code.value == "invalid-request"


def test_the_replies_bytes() -> None:
    held = encode_event_reply(inserted=True, approval=held_approval("A", hold_seconds=15.0))
    assert held == b'{"ok": true, "inserted": true, "approval": {"id": "A", "holdSeconds": 15.0}}\n'
    ruled = encode_event_reply(
        inserted=False, approval=held_approval("A", decision="deny", message="m")
    )
    assert json.loads(ruled)["approval"] == {"id": "A", "decision": "deny", "message": "m"}
    assert encode_decision_line(None) == b'{"decision": null}\n'
    assert encode_decision_line(None, "dropped") == b'{"decision": null}\n'
    assert encode_decision_line("deny", "é") == '{"decision": "deny", "message": "é"}\n'.encode()
