"""One job as one text: the row the store keeps for a job, so a controller restart keeps it.

A compact JSON object holding every field of :class:`~mytty.core.jobs.AgentJob`, its launch
(:mod:`mytty.core.job_launch`: task, cwd, worktree, access, argv, resumptions) included.
``JOB_RECORD_VERSION`` changes whenever the layout does; a record of another version, or one
that does not decode, reads as None (the store skips it and says so in the log).
"""

from __future__ import annotations

import json

from mytty.core import job_launch
from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.jobs import AgentJob, AgentJobState

JOB_RECORD_VERSION = 1


def encode_job(job: AgentJob) -> str:
    return json.dumps(
        {
            "v": JOB_RECORD_VERSION,
            "id": job.job_id,
            "surface": job.surface_id,
            "provider": job.provider.value,
            "label": job.label,
            "state": job.state.value,
            "run": job.run_id,
            "session": job.session_id,
            "message": job.message,
            "baseline": sorted(job.baseline),
            "deadline": job.deadline,
            "idle": job.bound_completed_by_idle,
            "live": job.live_subagents,
            "key": job.key,
            "digest": job.spawn_digest,
            "lead": job.lead,
            "notify": job.notify_lead,
            "notified": job.notified,
            "launch": job_launch.to_record(job.launch) if job.launch is not None else None,
            "budget": job.budget_tokens,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def decode_job(text: str) -> AgentJob | None:
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict) or obj.get("v") != JOB_RECORD_VERSION:
            return None
        baseline = obj["baseline"]
        deadline = obj["deadline"]
        if not isinstance(baseline, list) or not isinstance(deadline, int | float):
            return None
        return AgentJob(
            job_id=JobId(_text(obj["id"])),
            surface_id=SurfaceId(_text(obj["surface"])),
            provider=WorkerProvider(obj["provider"]),
            label=_optional(obj["label"]),
            state=AgentJobState(obj["state"]),
            run_id=RunId(run) if (run := _optional(obj["run"])) is not None else None,
            session_id=_optional(obj["session"]),
            message=_optional(obj["message"]),
            baseline=frozenset(RunId(_text(r)) for r in baseline),
            deadline=float(deadline),
            bound_completed_by_idle=obj["idle"] is True,
            # Absent in records written before subagent tracking: none live.
            live_subagents=_count(obj.get("live", 0)),
            # Absent in records written before keys and lead notices: none.
            key=_optional(obj.get("key")),
            spawn_digest=_optional(obj.get("digest")),
            lead=SurfaceId(lead) if (lead := _optional(obj.get("lead"))) is not None else None,
            notify_lead=obj.get("notify") is True,
            notified=_optional(obj.get("notified")),
            # Absent in records written before launches were recorded: nothing to resume from.
            launch=job_launch.from_record(raw) if (raw := obj.get("launch")) is not None else None,
            # Absent in records written before token budgets: no budget.
            budget_tokens=_count(budget) if (budget := obj.get("budget")) is not None else None,
        )
    except (ValueError, KeyError, TypeError):
        return None


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TypeError("not a count")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def _optional(value: object) -> str | None:
    return None if value is None else _text(value)
