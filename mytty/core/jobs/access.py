"""The access policy of ``agent spawn``: which mode flags a worker starts with.

``--access review`` and ``--access workspace-write`` give fixed flags. ``--access inherit``
copies the lead agent's mode, read from the lead's process (argv, else its stored mode); the
daemon does that reading. Leaving ``--access`` out means inherit when the anchor pane's
foreground agent is the worker's provider, else workspace-write; an implicit inherit that
cannot read the lead falls back to workspace-write, an explicit one fails.

Pure: the caller says what runs in the anchor pane; :func:`plan_access` decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.events import AgentProvider, WorkerProvider
from mytty.core.jobs.launch import access_flags
from mytty.core.vocab import INHERIT, REVIEW, WORKSPACE_WRITE


@dataclass(frozen=True, slots=True)
class FixedAccess:
    """Start with these flags; nothing needs reading."""

    flags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class InheritAccess:
    """Copy the mode of the lead process ``lead_pid``.

    ``fallback`` is what to use when the lead can't be read as the worker's provider; ``None``
    means that failure is the answer (the human asked for inherit explicitly).
    """

    lead_pid: int
    fallback: tuple[str, ...] | None


AccessPlan = FixedAccess | InheritAccess
if TYPE_CHECKING:
    from mytty.core.vocab import AccessMode as ResolvedAccess


def resolve_access(
    requested: str | None, worker: WorkerProvider, lead_provider: AgentProvider | None
) -> ResolvedAccess:
    """An explicit access wins; omitted means inherit for a same-provider lead, else workspace-write."""
    if requested is None:
        return INHERIT if lead_provider == worker.agent_provider else WORKSPACE_WRITE
    if requested == INHERIT:
        return INHERIT
    if requested == REVIEW:
        return REVIEW
    if requested == WORKSPACE_WRITE:
        return WORKSPACE_WRITE
    raise ValueError(f"unknown access {requested!r}")


def plan_access(
    requested: str | None,
    worker: WorkerProvider,
    lead_provider: AgentProvider | None,
    lead_pid: int | None,
) -> AccessPlan:
    """Decide the worker's mode flags from ``--access`` and the anchor's foreground agent.

    ``lead_provider``/``lead_pid`` describe the anchor pane's foreground process (both None
    without an anchor or when the shell is in front). Raises ``inherit-unavailable`` for an
    explicit inherit with no process to inherit from; ``ValueError`` for an unknown access.
    """
    resolved = resolve_access(requested, worker, lead_provider)
    if resolved != INHERIT:
        return FixedAccess(tuple(access_flags(worker, resolved)))
    default = tuple(access_flags(worker, WORKSPACE_WRITE))
    explicit = requested == INHERIT
    if lead_pid is None:
        if explicit:
            raise MyttyError(
                ErrorCode.INHERIT_UNAVAILABLE,
                "--access inherit needs an anchor pane running the same provider",
            )
        return FixedAccess(default)
    # An implicit inherit whose lead only looked like the provider (e.g. by its hint) falls
    # back; an explicit one reports why it could not inherit.
    return InheritAccess(lead_pid, None if explicit else default)
