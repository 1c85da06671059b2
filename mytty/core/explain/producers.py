"""What would change a run next: the transition table read forward, with who sends each kind.

For a run in state S, every event kind K with ``transition(S, K)`` ≠ S is a way out; who can
send K depends on the provider and on how the pane is followed: its hooks (the names below,
the same the hook adapters in ``mytty/hook/adapters`` map; ``tests/core/explain`` feeds each
through its adapter), native estimation (epoch or turn mode), and mytty's own rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from mytty.core.estimation import epochs
from mytty.core.events import ACTIVE_STATES, AgentEventKind, AgentProvider, AgentRunState
from mytty.core.explain.sources import CURSOR_APPROVAL_HOOK_NAME
from mytty.core.runs.synthesized import STARTUP_SWEEP_HOOK_NAME, SUPERSEDED_HOOK_NAME
from mytty.core.runs.table import transition
from mytty.core.transcripts.claude import INTERRUPT_HOOK_NAME
from mytty.core.transcripts.codex import FAILURE_HOOK_NAME
from mytty.core.transcripts.limits import CLAUDE_LIMIT_HOOK, CODEX_LIMIT_HOOK

_K = AgentEventKind
_P = AgentProvider

#: The kinds in the order a reader expects them: the run moving on, asking, ending.
KIND_ORDER: tuple[AgentEventKind, ...] = (
    _K.STARTED,
    _K.RUNNING,
    _K.APPROVAL_REQUESTED,
    _K.INPUT_REQUESTED,
    _K.SUCCEEDED,
    _K.FAILED,
    _K.LIMIT_REACHED,
    _K.IDLE,
    _K.DISCONNECTED,
)


def _frozen(
    table: dict[AgentProvider, dict[AgentEventKind, tuple[str, ...]]],
) -> Mapping[AgentProvider, Mapping[AgentEventKind, tuple[str, ...]]]:
    return MappingProxyType({p: MappingProxyType(kinds) for p, kinds in table.items()})


#: The provider hooks that send each kind *to a turn's run* (SessionStart's idle lands on a
#: run of its own and is left out). ``-`` stands for Antigravity's unnamed invocation hooks.
HOOK_NAMES: Mapping[AgentProvider, Mapping[AgentEventKind, tuple[str, ...]]] = _frozen(
    {
        _P.CLAUDE_CODE: {
            _K.STARTED: ("UserPromptSubmit",),
            _K.RUNNING: ("PostToolBatch", "SubagentStart"),
            _K.APPROVAL_REQUESTED: ("PermissionRequest", "Notification"),
            _K.INPUT_REQUESTED: ("PermissionRequest", "Notification"),
            _K.SUCCEEDED: ("Stop",),
            _K.FAILED: ("StopFailure",),
            _K.LIMIT_REACHED: ("StopFailure",),
            _K.DISCONNECTED: ("SessionEnd",),
        },
        _P.CODEX: {
            _K.STARTED: ("UserPromptSubmit",),
            _K.RUNNING: ("PostToolUse",),
            _K.APPROVAL_REQUESTED: ("PermissionRequest",),
            _K.INPUT_REQUESTED: ("PermissionRequest",),
            _K.SUCCEEDED: ("Stop",),
            _K.IDLE: ("Interrupt",),
            _K.LIMIT_REACHED: ("PostModelRequest",),
            _K.DISCONNECTED: ("SessionEnd",),
        },
        _P.CURSOR: {
            _K.STARTED: ("beforeSubmitPrompt",),
            _K.RUNNING: ("preToolUse", "postToolUse", "postToolUseFailure"),
            _K.SUCCEEDED: ("stop",),
            _K.FAILED: ("stop",),
            _K.DISCONNECTED: ("stop",),
        },
        _P.OPENCODE: {
            _K.STARTED: ("message.updated",),
            _K.RUNNING: ("permission.replied",),
            _K.APPROVAL_REQUESTED: ("permission.asked",),
            _K.INPUT_REQUESTED: ("question.asked",),
            _K.SUCCEEDED: ("session.idle",),
            _K.FAILED: ("session.error",),
        },
        _P.ANTIGRAVITY: {
            _K.RUNNING: ("-",),
            _K.SUCCEEDED: ("Stop",),
            _K.FAILED: ("Stop",),
        },
    }
)

#: What mytty itself sends besides native estimation, per provider and kind.
_MYTTY_RULES: Mapping[AgentProvider, Mapping[AgentEventKind, tuple[str, ...]]] = _frozen(
    {
        _P.CLAUDE_CODE: {
            _K.IDLE: (
                f"the next prompt ({SUPERSEDED_HOOK_NAME})",
                f"Esc, read from the transcript ({INTERRUPT_HOOK_NAME})",
            ),
            _K.LIMIT_REACHED: (f"the usage limit in the transcript ({CLAUDE_LIMIT_HOOK})",),
        },
        _P.CODEX: {
            _K.FAILED: (f"a model API error in the rollout ({FAILURE_HOOK_NAME})",),
            _K.LIMIT_REACHED: (f"the usage limit in the rollout ({CODEX_LIMIT_HOOK})",),
        },
        _P.CURSOR: {
            _K.APPROVAL_REQUESTED: (
                f"a tool call unanswered for 10 s ({CURSOR_APPROVAL_HOOK_NAME})",
            )
        },
    }
)

#: Native estimation's senders of each kind: (epoch mode, turn mode).
_NATIVE: Mapping[AgentEventKind, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType(
    {
        _K.STARTED: (
            (f"the start grace passing ({epochs.LAUNCH_OBSERVED})",),
            (f"a new turn in the transcript ({epochs.TURN_STARTED})",),
        ),
        _K.SUCCEEDED: (
            (f"the shell reporting exit 0 ({epochs.COMMAND_FINISHED})",),
            (
                f"the transcript's turn end ({epochs.TURN_COMPLETED})",
                f"the shell reporting exit 0 ({epochs.COMMAND_FINISHED})",
            ),
        ),
        _K.FAILED: (
            (f"the shell reporting a non-zero exit ({epochs.COMMAND_FINISHED})",),
            (
                f"an error in the transcript ({epochs.TURN_FAILED})",
                f"the shell reporting a non-zero exit ({epochs.COMMAND_FINISHED})",
            ),
        ),
        _K.LIMIT_REACHED: ((), (f"a usage limit in the transcript ({epochs.TURN_LIMITED})",)),
        _K.IDLE: (
            (f"the transcript's first turn ({epochs.TURN_HANDOFF})",),
            (
                f"a newer turn ({epochs.TURN_SUPERSEDED})",
                f"an interrupt in the transcript ({epochs.TURN_INTERRUPTED})",
            ),
        ),
        _K.DISCONNECTED: (
            (f"the agent process ending unreported ({epochs.PROCESS_EXITED})",),
            (f"the agent process ending unreported ({epochs.PROCESS_EXITED})",),
        ),
    }
)

_SWEEP = f"a controller restart finding the agent gone ({STARTUP_SWEEP_HOOK_NAME})"


@dataclass(frozen=True, slots=True)
class Following:
    """How a pane's agent is followed: by its hooks, by native estimation, or both."""

    hooked: bool
    estimated: bool = False
    turn_mode: bool = False


@dataclass(frozen=True, slots=True)
class RunStep:
    """One way out of the run's state: an event ``kind``, the ``state`` it leads to, and who
    would send it."""

    kind: AgentEventKind
    state: AgentRunState
    by: tuple[str, ...]


def senders(provider: AgentProvider, kind: AgentEventKind, following: Following) -> tuple[str, ...]:
    """Who can send ``kind`` to a run of ``provider`` followed as ``following``."""
    out: list[str] = []
    if following.hooked:
        out += [
            "a hook" if name == "-" else f"the {name} hook"
            for name in HOOK_NAMES.get(provider, {}).get(kind, ())
        ]
    out += _MYTTY_RULES.get(provider, {}).get(kind, ())
    if following.estimated and kind in _NATIVE:
        out += _NATIVE[kind][1 if following.turn_mode else 0]
    return tuple(dict.fromkeys(out))


def run_steps(
    state: AgentRunState, provider: AgentProvider, following: Following
) -> tuple[RunStep, ...]:
    """Every transition out of ``state`` someone could send, in :data:`KIND_ORDER`.

    ``disconnected`` from an active state also names the startup sweep; kinds nobody sends
    for this provider and following are left out (a Claude run is never ``idle`` by a hook).
    """
    steps = []
    for kind in KIND_ORDER:
        target = transition(state, kind)
        if target is None or target == state:
            continue
        by = senders(provider, kind, following)
        if kind is _K.DISCONNECTED and state in ACTIVE_STATES:
            by = (*by, _SWEEP)
        if by:
            steps.append(RunStep(kind, target, by))
    return tuple(steps)
