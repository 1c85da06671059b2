"""How a job's worker was started, kept with the job so ``mytty resume`` can start it again.

``agent spawn`` records these facts before it replies: the task, the directory (a worktree's
path when the worker runs in one, with its branch), the access mode asked for and the exact mode
flags it gave, the model, and the whole argv. ``mytty resume`` restarts the worker from them on
its own conversation (:func:`mytty.core.jobs.launch.build_resume_argv`) and counts the resumption.

Pure: no I/O. The record form (a JSON object) is :func:`to_record` / :func:`from_record`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mytty.core.jobs.record_fields import count, optional_text, text, texts


@dataclass(frozen=True, slots=True)
class JobLaunch:
    task: str
    cwd: str
    #: The branch of the worktree the worker runs in (``cwd`` is then the worktree's path).
    worktree_branch: str | None
    #: ``--access`` as asked (None: the default rule chose).
    access: str | None
    model: str | None
    mode_flags: tuple[str, ...]
    argv: tuple[str, ...]
    #: How many times ``mytty resume`` restarted the worker, and when it last did.
    resumed: int = 0
    resumed_at: float | None = None
    #: Its pane was closed on purpose (``agent close``): ``mytty resume`` leaves it alone
    #: unless the job is named.
    closed: bool = False
    #: A directory put first on the worker's PATH: where the spawning caller's PATH found the
    #: binary the worker's login shell lacks (see ``agent spawn``'s binary check).
    path_first: str | None = None

    def closed_now(self) -> JobLaunch:
        return replace(self, closed=True)

    def resumed_now(self, now: float, argv: tuple[str, ...]) -> JobLaunch:
        return replace(self, resumed=self.resumed + 1, resumed_at=now, argv=argv, closed=False)


def to_record(launch: JobLaunch) -> dict[str, object]:
    return {
        "task": launch.task,
        "cwd": launch.cwd,
        "worktree": launch.worktree_branch,
        "access": launch.access,
        "model": launch.model,
        "flags": list(launch.mode_flags),
        "argv": list(launch.argv),
        "resumed": launch.resumed,
        "resumedAt": launch.resumed_at,
        "closed": launch.closed,
        "pathFirst": launch.path_first,
    }


def from_record(obj: object) -> JobLaunch:
    """The launch a record holds; raises TypeError/KeyError/ValueError when it is malformed."""
    if not isinstance(obj, dict):
        raise TypeError("launch is not an object")
    resumed_at = obj["resumedAt"]
    if resumed_at is not None and not isinstance(resumed_at, int | float):
        raise TypeError("resumedAt is not a time")
    return JobLaunch(
        task=text(obj["task"]),
        cwd=text(obj["cwd"]),
        worktree_branch=optional_text(obj["worktree"]),
        access=optional_text(obj["access"]),
        model=optional_text(obj["model"]),
        mode_flags=texts(obj["flags"]),
        argv=texts(obj["argv"]),
        resumed=count(obj["resumed"]),
        resumed_at=None if resumed_at is None else float(resumed_at),
        closed=obj.get("closed") is True,
        path_first=optional_text(obj.get("pathFirst")),
    )
