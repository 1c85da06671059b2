"""Requests for the approvals tests."""

from __future__ import annotations

from dataclasses import replace

from mytty.core.approvals.model import Action, ApprovalRequest
from mytty.core.ids import JobId, RunId, SurfaceId, stable_uuid

PANE = SurfaceId(stable_uuid("test", "pane"))
LEAD = SurfaceId(stable_uuid("test", "lead"))
RUN = RunId(stable_uuid("test", "run"))
JOB = JobId(stable_uuid("test", "job"))


def request(
    command: str | None = "git status",
    *,
    tool: str = "Bash",
    paths: tuple[str, ...] = (),
    provider: str = "claude-code",
    label: str | None = None,
    truncated: bool = False,
    cwd: str | None = "/work/repo",
    base_dir: str | None = None,
    **changes: object,
) -> ApprovalRequest:
    made = ApprovalRequest(
        id=stable_uuid("approval", command or "", *paths, tool),
        event_id=stable_uuid("event", command or ""),
        surface_id=PANE,
        run_id=RUN,
        provider=provider,
        action=Action(tool=tool, command=command, paths=paths, truncated=truncated),
        cwd=cwd,
        requested_at=1000.0,
        hold_until=1015.0,
        label=label,
        base_dir=base_dir,
    )
    return replace(made, **changes)  # type: ignore[arg-type]
