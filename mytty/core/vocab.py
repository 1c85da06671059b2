"""The small wire vocabularies, as plain strings: the one place each is spelled.

``mytty-ctl`` validates arguments against these before connecting and the controller checks
requests against the same tuples, so the two can't drift. Plain tuples rather than enums keep
them cheap to import (``mytty-agent-hook`` uses them too and may not load ``typing``, so the
``Literal`` types exist for the type checker only); the enums in ``mytty.core.events`` take
their values from here.
"""

from __future__ import annotations

# Not typing.TYPE_CHECKING: importing typing would slow down the hook helper, which uses this
# module. mypy treats any TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:  # the same words as types, for the type checker only (tests/core/test_vocab.py)
    from typing import Final, Literal

    Side = Literal["left", "right", "up", "down"]
    AccessMode = Literal["inherit", "review", "workspace-write"]
    FixedAccessMode = Literal["review", "workspace-write"]  # AccessMode once inherit is resolved
    JobWaitCondition = Literal["running", "attention", "completed"]
    IntegrationStatus = Literal["installed", "needs-repair", "not-installed"]

# Provider names (the values of ``AgentProvider`` and ``WorkerProvider`` in mytty.core.events).
CODEX = "codex"
CLAUDE_CODE = "claude-code"
OPENCODE = "opencode"
ANTIGRAVITY = "antigravity"
CURSOR = "cursor"
CLAUDE = "claude"  # agent spawn's name for Claude Code
#: Event providers (``AgentProvider``), in the canonical order of ``integration list``.
PROVIDERS: tuple[str, ...] = (CODEX, CLAUDE_CODE, OPENCODE, ANTIGRAVITY, CURSOR)
#: The providers ``agent spawn`` can start (``WorkerProvider``): a different vocabulary on purpose.
WORKER_PROVIDERS: tuple[str, ...] = (CLAUDE, CODEX, CURSOR)
#: Claude Code's name in the other vocabulary: ``mytty integrations enable claude`` means
#: claude-code (the human CLI accepts it), ``agent spawn --provider claude-code`` means claude
#: (mytty-ctl, whose words are the seed's, suggests it).
PROVIDER_ALIASES: dict[str, str] = {CLAUDE: CLAUDE_CODE, CLAUDE_CODE: CLAUDE}


def suggestion(word: str, choices: tuple[str, ...]) -> str:
    """`` (did you mean claude-code?)`` when ``word`` is the other vocabulary's name of one of
    ``choices``, else ``""``."""
    meant = PROVIDER_ALIASES.get(word)
    return f" (did you mean {meant}?)" if meant in choices else ""


#: Where ``split`` and ``agent spawn`` put the new pane; ``auto`` keeps the tab an even grid.
LEFT, RIGHT, UP, DOWN, AUTO = "left", "right", "up", "down", "auto"
DIRECTIONS: tuple[str, ...] = (LEFT, RIGHT, UP, DOWN, AUTO)

#: ``agent spawn --access``: the worker's permission mode (leaving it out picks one).
INHERIT: Final = "inherit"
REVIEW: Final = "review"
WORKSPACE_WRITE: Final = "workspace-write"
ACCESS_MODES: tuple[str, ...] = (INHERIT, REVIEW, WORKSPACE_WRITE)

#: ``wait --until`` and ``agent wait --until``: the conditions a wait can end on.
IDLE = "idle"
ATTENTION = "attention"
RUNNING = "running"
COMPLETED = "completed"
PANE_WAIT_CONDITIONS: tuple[str, ...] = (IDLE, ATTENTION)
JOB_WAIT_CONDITIONS: tuple[str, ...] = (RUNNING, ATTENTION, COMPLETED)
#: How long ``wait`` and ``agent wait`` wait when no ``--timeout-seconds`` is given.
DEFAULT_WAIT_TIMEOUT_S = 120.0

#: A job's states (``AgentJobState`` in mytty.core.jobs.tracker), in its order: what ``agent list
#: --state`` accepts and a job's ``state`` says. ``running`` is the word above.
LAUNCHING = "launching"
WAITING_INPUT = "waiting-input"
WAITING_APPROVAL = "waiting-approval"
SUCCEEDED = "succeeded"
FAILED = "failed"
DISCONNECTED = "disconnected"
LAUNCH_FAILED = "launch-failed"
LOST = "lost"
#: A mytty addition: accepted, its pane made, its agent not started until admission lets it
#: (``[admission]`` in config.toml; mytty.core.admission).
QUEUED = "queued"
#: Stopped at its provider account's usage limit; mytty continues it after the reset.
PARKED = "parked"
JOB_STATES: tuple[str, ...] = (
    QUEUED,
    LAUNCHING,
    RUNNING,
    WAITING_INPUT,
    WAITING_APPROVAL,
    PARKED,
    SUCCEEDED,
    FAILED,
    DISCONNECTED,
    LAUNCH_FAILED,
    LOST,
)

#: The hook integration states ``integration list`` reports.
# Final so that the type checker reads each as its Literal (returned where a status is due).
INSTALLED: Final = "installed"
NEEDS_REPAIR: Final = "needs-repair"
NOT_INSTALLED: Final = "not-installed"
INTEGRATION_STATUSES: tuple[str, ...] = (INSTALLED, NEEDS_REPAIR, NOT_INSTALLED)


def one_of(words: tuple[str, ...]) -> str:
    """``"a, b or c"``: how every message names a vocabulary."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


#: How each provider's lead hears of ``agent spawn --notify-lead`` workers (a mytty addition):
#: ``next-prompt``: its UserPromptSubmit/SessionStart hook adds the notice to the model's
#: context (proven on Claude Code 2.1.332 and Codex 0.171.0 by the real-agent tier);
#: ``none``: the provider's hooks offer no output that reaches the model, so such a lead is
#: never told (it can still `agent wait` or `agent list`). A test pins this to the adapters.
LEAD_NOTICES: dict[str, str] = {
    CODEX: "next-prompt",
    CLAUDE_CODE: "next-prompt",
    OPENCODE: "none",
    ANTIGRAVITY: "none",
    CURSOR: "none",
}

#: ``agent spawn --approver``: who answers a worker's permission requests besides any person
#: (the same words as mytty.core.approvals.model).
APPROVERS: tuple[str, ...] = ("human", "lead")
#: A person's surfaces: ``decidedBy`` ``human:<channel>`` (a terminal, the popup, the web view).
HUMAN_CHANNELS: tuple[str, ...] = ("tty", "popup", "web")
