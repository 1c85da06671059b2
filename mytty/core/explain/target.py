"""What ``explain PANE|JOB`` names: a pane or a job, by its full id or a unique prefix.

A pane is named by its surface id (``paneID``, ``$MYTTY_SURFACE_ID``), a job by its job id;
either may be shortened to a prefix that only one of them starts with (``mytty ls`` shows a
job's first 8 characters). Case does not matter. The lookup sees the panes and jobs the
caller passes: live panes and panes that still have runs, jobs in memory. A full job id the
caller does not list may still be a finished job in the store: :func:`resolve` says so with
``stored``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from mytty.core.ids import JobId, SurfaceId, normalize_uuid

_PREFIX = re.compile(r"[0-9A-Fa-f][0-9A-Fa-f-]{0,35}")


@dataclass(frozen=True, slots=True)
class Target:
    """A resolved target: a pane (``job_id`` None) or a job."""

    surface_id: SurfaceId | None = None
    job_id: JobId | None = None
    #: A full job id nothing listed matched: look it up among the stored jobs.
    stored: bool = False


class Unresolved(ValueError):
    """No pane or job matches (``candidates`` empty), or several do."""

    def __init__(self, text: str, candidates: tuple[str, ...]) -> None:
        self.text = text
        self.candidates = candidates
        if candidates:
            shown = ", ".join(c[:13] for c in candidates[:4])
            more = "…" if len(candidates) > 4 else ""
            message = f"{text!r} matches {len(candidates)} panes and jobs ({shown}{more}): give more of it"
        else:
            message = f"no pane or job matches {text!r}"
        super().__init__(message)


def resolve(text: str, panes: Iterable[SurfaceId], jobs: Iterable[str]) -> Target:
    """The pane or job ``text`` names (see the module docstring). Raises :class:`Unresolved`."""
    wanted = text.strip()
    full = normalize_uuid(wanted)
    pane_ids = {p.upper(): p for p in panes}
    job_ids = {j.upper(): j for j in jobs}
    if full is not None:
        if full in pane_ids:
            return Target(surface_id=pane_ids[full])
        return Target(job_id=JobId(job_ids.get(full, full)), stored=full not in job_ids)
    if not _PREFIX.fullmatch(wanted):
        raise Unresolved(wanted, ())
    prefix = wanted.upper()
    found = [Target(surface_id=p) for key, p in pane_ids.items() if key.startswith(prefix)]
    found += [Target(job_id=JobId(j)) for key, j in job_ids.items() if key.startswith(prefix)]
    if len(found) == 1:
        return found[0]
    names = tuple(sorted(str(t.surface_id or t.job_id) for t in found))
    raise Unresolved(wanted, names)
