"""One job as one text: the row the store keeps for a job, so a controller restart keeps it.

A compact JSON object holding every field of :class:`~mytty.core.jobs.tracker.AgentJob`, its launch
(:mod:`mytty.core.jobs.launch_record`: task, cwd, worktree, access, argv, resumptions) included.
``JOB_RECORD_VERSION`` changes whenever the layout does; a record of another version, or one
that does not decode, reads as None (the store skips it and says so in the log).
"""

from __future__ import annotations

import json

from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, RunId, SurfaceId
from mytty.core.jobs import launch_record as job_launch
from mytty.core.jobs import record_fields as field
from mytty.core.jobs.tracker import AgentJob, AgentJobState, FollowThrough
from mytty.core.limits import park as job_park

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
            "budgetUsd": job.budget_usd,
            "queued": job.queued_because,
            "ticket": job.queue_ticket,
            "paced": job.paced,
            "endReason": job.end_reason,
            "capMb": job.memory_cap_mb,
            "cap": job.memory_cap,
            "park": job_park.park_to_record(job.park) if job.park is not None else None,
            "held": job_park.held_to_record(job.held_sends),
            "streak": job.limit_streak,
            "followUpAt": job.follow_up_at,
            "through": _through_to_record(job.follow_through),
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
            job_id=JobId(field.text(obj["id"])),
            surface_id=SurfaceId(field.text(obj["surface"])),
            provider=WorkerProvider(obj["provider"]),
            label=field.optional_text(obj["label"]),
            state=AgentJobState(obj["state"]),
            run_id=RunId(run) if (run := field.optional_text(obj["run"])) is not None else None,
            session_id=field.optional_text(obj["session"]),
            message=field.optional_text(obj["message"]),
            baseline=frozenset(RunId(field.text(r)) for r in baseline),
            deadline=float(deadline),
            bound_completed_by_idle=obj["idle"] is True,
            # Absent in records written before subagent tracking: none live.
            live_subagents=field.count(obj.get("live", 0)),
            # Absent in records written before keys and lead notices: none.
            key=field.optional_text(obj.get("key")),
            spawn_digest=field.optional_text(obj.get("digest")),
            lead=SurfaceId(lead)
            if (lead := field.optional_text(obj.get("lead"))) is not None
            else None,
            notify_lead=obj.get("notify") is True,
            notified=field.optional_text(obj.get("notified")),
            # Absent in records written before launches were recorded: nothing to resume from.
            launch=job_launch.from_record(raw) if (raw := obj.get("launch")) is not None else None,
            # Absent in records written before token budgets: no budget.
            budget_tokens=field.count(budget)
            if (budget := obj.get("budget")) is not None
            else None,
            # Absent in records written before admission and dollar budgets: none of them.
            budget_usd=field.optional_text(obj.get("budgetUsd")),
            queued_because=field.optional_text(obj.get("queued")),
            queue_ticket=field.count(ticket) if (ticket := obj.get("ticket")) is not None else None,
            paced=obj.get("paced") is True,
            end_reason=field.optional_text(obj.get("endReason")),
            memory_cap_mb=field.count(cap) if (cap := obj.get("capMb")) is not None else None,
            memory_cap=field.optional_text(obj.get("cap")),
            # Absent in records written before usage limits: never parked, nothing held.
            park=job_park.park_from_record(raw_park)
            if (raw_park := obj.get("park")) is not None
            else None,
            held_sends=job_park.held_from_record(obj.get("held", [])),
            limit_streak=field.count(obj.get("streak", 0)),
            # Absent in records written before follow-ups were followed: none pending.
            follow_up_at=field.optional_time(obj.get("followUpAt")),
            follow_through=_through_from_record(obj.get("through")),
        )
    except (ValueError, KeyError, TypeError):
        return None


def _through_to_record(through: FollowThrough | None) -> dict[str, object] | None:
    if through is None:
        return None
    return {"run": through.run_id, "state": through.state.value, "message": through.message}


def _through_from_record(value: object) -> FollowThrough | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError("expected an object")
    return FollowThrough(
        run_id=RunId(field.text(value["run"])),
        state=AgentJobState(value["state"]),
        message=field.optional_text(value["message"]),
    )
