"""The normalized agent event, its vocabulary, and its timestamps.

Internally a timestamp is a float of Unix seconds so the reducer can compare it cheaply; on the
wire it is ISO 8601. The JSON shape itself (camelCase keys, ids wrapped as
``{"rawValue": UUID}``) is :mod:`mytty.protocol.envelope` (decoding) and
:mod:`mytty.protocol.wire` (encoding).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from mytty.core import vocab
from mytty.core.ids import RunId, SurfaceId

SCHEMA_VERSION = 1
SYNTHESIZED_PREFIX = "mytty."


class AgentProvider(StrEnum):
    CODEX = vocab.CODEX
    CLAUDE_CODE = vocab.CLAUDE_CODE
    OPENCODE = vocab.OPENCODE
    ANTIGRAVITY = vocab.ANTIGRAVITY
    CURSOR = vocab.CURSOR


#: The canonical order used by ``integration list`` and friends.
PROVIDER_ORDER: tuple[AgentProvider, ...] = (
    AgentProvider.CODEX,
    AgentProvider.CLAUDE_CODE,
    AgentProvider.OPENCODE,
    AgentProvider.ANTIGRAVITY,
    AgentProvider.CURSOR,
)


class WorkerProvider(StrEnum):
    """The three providers ``agent spawn`` can launch (a different vocabulary on purpose)."""

    CODEX = vocab.CODEX
    CLAUDE = vocab.CLAUDE
    CURSOR = vocab.CURSOR

    @property
    def agent_provider(self) -> AgentProvider:
        return {
            WorkerProvider.CODEX: AgentProvider.CODEX,
            WorkerProvider.CLAUDE: AgentProvider.CLAUDE_CODE,
            WorkerProvider.CURSOR: AgentProvider.CURSOR,
        }[self]


class AgentEventKind(StrEnum):
    IDLE = "idle"
    STARTED = "started"
    RUNNING = "running"
    INPUT_REQUESTED = "input-requested"
    APPROVAL_REQUESTED = "approval-requested"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    DISCONNECTED = "disconnected"
    #: The turn stopped at the provider account's usage limit (a mytty addition: Claude's
    #: ``StopFailure`` with ``error: "rate_limit"``, Codex's ``usage_limit_exceeded``).
    LIMIT_REACHED = "limit-reached"


class AgentRunState(StrEnum):
    UNKNOWN = "unknown"
    IDLE = "idle"
    RUNNING = "running"
    WAITING_INPUT = "waiting-input"
    WAITING_APPROVAL = "waiting-approval"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    DISCONNECTED = "disconnected"
    #: The turn ended at a usage limit; the job waits for the reset (a mytty addition).
    PARKED = "parked"


ACTIVE_STATES = frozenset(
    {AgentRunState.RUNNING, AgentRunState.WAITING_INPUT, AgentRunState.WAITING_APPROVAL}
)
#: A run in one of these is over: its turn ended (``parked`` included: the turn stopped at a
#: limit; the job goes on in a later run of the same conversation).
TERMINAL_STATES = frozenset(
    {
        AgentRunState.IDLE,
        AgentRunState.SUCCEEDED,
        AgentRunState.FAILED,
        AgentRunState.DISCONNECTED,
        AgentRunState.PARKED,
    }
)


@dataclass(frozen=True, slots=True)
class AgentEvent:
    id: str  # uppercase UUID
    run_id: RunId  # uppercase UUID
    surface_id: SurfaceId  # uppercase UUID
    provider: AgentProvider
    kind: AgentEventKind
    occurred_at: float  # Unix seconds
    session_id: str | None = None
    message: str | None = None
    hook_name: str | None = None
    tool_use_id: str | None = None
    tool_name: str | None = None
    schema_version: int = SCHEMA_VERSION
    #: The agent's final answer of the turn (Stop's ``last_assistant_message``), clipped by the
    #: hook to fit the envelope; an addition to the original's event (docs/reference).
    last_assistant_message: str | None = None

    @property
    def synthesized(self) -> bool:
        return self.hook_name is not None and self.hook_name.startswith(SYNTHESIZED_PREFIX)


def format_timestamp(seconds: float, *, fractional: bool = False) -> str:
    """ISO 8601 in UTC with a ``Z`` suffix; whole seconds unless ``fractional``."""
    dt = datetime.fromtimestamp(seconds, tz=UTC)
    # strftime's %Y does not pad years before 1000 on glibc; ISO 8601 needs four digits.
    stamp = f"{dt.year:04d}-{dt:%m-%dT%H:%M:%S}"
    if fractional:
        return f"{stamp}.{dt.microsecond // 1000:03d}Z"
    return stamp + "Z"


def parse_timestamp(text: object) -> float:
    """Parse ISO 8601 (with or without fractional seconds and offsets) to Unix seconds.

    A timestamp without an offset is read as UTC. Raises ValueError otherwise.
    """
    if not isinstance(text, str) or not text or len(text) > 64:
        raise ValueError("occurredAt must be an ISO 8601 string")
    value = text.strip()
    if value.endswith(("z", "Z")):
        value = value[:-1] + "+00:00"
    dt = datetime.fromisoformat(value)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()
