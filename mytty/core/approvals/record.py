"""A request as the store keeps it: one JSON object per request (the audit's row).

:func:`encode` / :func:`decode` are each other's inverse; :func:`decode` answers None for a row
it cannot read (a newer or damaged one), so one bad row never hides the rest of the log.
"""

from __future__ import annotations

import json

from mytty.core.approvals.model import Action, ApprovalRequest, ApprovalState, Decision
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.jobs.record_fields import optional_text, text, texts


def encode(request: ApprovalRequest) -> str:
    action = request.action
    obj = {
        "id": request.id,
        "event": request.event_id,
        "pane": request.surface_id,
        "run": request.run_id,
        "provider": request.provider,
        "tool": action.tool,
        "command": action.command,
        "paths": list(action.paths),
        "diff": action.diff,
        "description": action.description,
        "truncated": action.truncated,
        "cwd": request.cwd,
        "requestedAt": request.requested_at,
        "holdUntil": request.hold_until,
        "job": request.job_id,
        "label": request.label,
        "baseDir": request.base_dir,
        "approver": request.approver,
        "lead": request.lead,
        "state": str(request.state),
        "decision": None if request.decision is None else str(request.decision),
        "message": request.message,
        "decidedBy": request.decided_by,
        "session": request.session,
        "decidedAt": request.decided_at,
        "deliveredBy": request.delivered_by,
        "rule": request.rule,
    }
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _number(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("expected a number")
    return float(value)


def decode(payload: str) -> ApprovalRequest | None:
    try:
        obj = json.loads(payload)
        if not isinstance(obj, dict):
            return None
        truncated = obj.get("truncated", False)
        requested_at = _number(obj["requestedAt"])
        if not isinstance(truncated, bool) or requested_at is None:
            return None
        decision = optional_text(obj.get("decision"))
        job = optional_text(obj.get("job"))
        lead = optional_text(obj.get("lead"))
        return ApprovalRequest(
            id=text(obj["id"]),
            event_id=text(obj["event"]),
            surface_id=SurfaceId(text(obj["pane"])),
            run_id=RunId(text(obj["run"])),
            provider=text(obj["provider"]),
            action=Action(
                tool=text(obj["tool"]),
                command=optional_text(obj.get("command")),
                paths=texts(obj.get("paths", [])),
                diff=optional_text(obj.get("diff")),
                description=optional_text(obj.get("description")),
                truncated=truncated,
            ),
            cwd=optional_text(obj.get("cwd")),
            requested_at=requested_at,
            hold_until=_number(obj.get("holdUntil")),
            job_id=JobId(job) if job is not None else None,
            label=optional_text(obj.get("label")),
            base_dir=optional_text(obj.get("baseDir")),
            approver=text(obj.get("approver", "human")),
            lead=SurfaceId(lead) if lead is not None else None,
            state=ApprovalState(text(obj["state"])),
            decision=Decision(decision) if decision is not None else None,
            message=optional_text(obj.get("message")),
            decided_by=optional_text(obj.get("decidedBy")),
            session=optional_text(obj.get("session")),
            decided_at=_number(obj.get("decidedAt")),
            delivered_by=optional_text(obj.get("deliveredBy")),
            rule=optional_text(obj.get("rule")),
        )
    except (KeyError, TypeError, ValueError):
        return None
