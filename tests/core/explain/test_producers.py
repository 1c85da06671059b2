"""What would change a run next: only real transitions, each with who would send it; the hook
names are the ones the hook adapters really map to those kinds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.events import AgentEventKind, AgentProvider, AgentRunState
from mytty.core.explain.producers import HOOK_NAMES, Following, run_steps, senders
from mytty.core.runs.table import transition
from mytty.hook.adapt import map_hook_payload

K = AgentEventKind
S = AgentRunState
P = AgentProvider

#: A payload each adapter maps to ``kind`` for hook ``name`` (the least the adapter needs).
_EXTRA: dict[tuple[AgentProvider, str, AgentEventKind], dict[str, Any]] = {
    (P.CLAUDE_CODE, "PermissionRequest", K.APPROVAL_REQUESTED): {"tool_name": "Bash"},
    (P.CLAUDE_CODE, "PermissionRequest", K.INPUT_REQUESTED): {"tool_name": "AskUserQuestion"},
    (P.CLAUDE_CODE, "Notification", K.APPROVAL_REQUESTED): {
        "notification_type": "permission_prompt"
    },
    (P.CLAUDE_CODE, "Notification", K.INPUT_REQUESTED): {"notification_type": "agent_needs_input"},
    (P.CLAUDE_CODE, "SubagentStart", K.RUNNING): {"agent_id": "a1"},
    (P.CODEX, "PermissionRequest", K.APPROVAL_REQUESTED): {"tool_name": "shell"},
    (P.CODEX, "PermissionRequest", K.INPUT_REQUESTED): {"tool_name": "request_user_input"},
    (P.CLAUDE_CODE, "StopFailure", K.LIMIT_REACHED): {"error": "rate_limit"},
    (P.CODEX, "PostModelRequest", K.LIMIT_REACHED): {
        "status": "failed",
        "error": "You\u2019ve hit your usage limit. Try again later.",
    },
    (P.CURSOR, "stop", K.SUCCEEDED): {"status": "completed"},
    (P.CURSOR, "stop", K.FAILED): {"status": "error"},
    (P.CURSOR, "stop", K.DISCONNECTED): {"status": "aborted"},
}


def _payload(provider: AgentProvider, name: str, kind: AgentEventKind) -> dict[str, Any]:
    extra = _EXTRA.get((provider, name, kind), {})
    if provider is P.OPENCODE:
        info = {"role": "user"} if name == "message.updated" else {}
        return {
            "run_id": "r1",
            "event": {"type": name, "properties": {"sessionID": "s", "info": info}},
        }
    if provider is P.ANTIGRAVITY:
        if name == "Stop":
            failed = {"terminationReason": "error"} if kind is K.FAILED else {}
            return {"fullyIdle": True, "conversationId": "c1", **failed}
        return {"invocationNum": 1, "conversationId": "c1"}
    ids = {"session_id": "s1", "prompt_id": "p1", "turn_id": "t1"}
    if provider is P.CURSOR:
        ids = {"conversation_id": "c1", "generation_id": "g1"}
    return {"hook_event_name": name, **ids, **extra}


CASES = [
    (provider, name, kind)
    for provider, kinds in HOOK_NAMES.items()
    for kind, names in kinds.items()
    for name in names
]


@pytest.mark.parametrize(("provider", "name", "kind"), CASES, ids=str)
def test_each_named_hook_sends_that_kind(
    provider: AgentProvider, name: str, kind: AgentEventKind
) -> None:
    mapping = map_hook_payload(provider.value, _payload(provider, name, kind))
    assert mapping is not None, (provider, name)
    assert mapping.kind == kind.value, (provider, name, mapping)


STATES = st.sampled_from(list(S))
PROVIDERS = st.sampled_from(list(P))
FOLLOWINGS = st.builds(Following, st.booleans(), st.booleans(), st.booleans())


@given(STATES, PROVIDERS, FOLLOWINGS)
def test_steps_are_real_transitions_each_with_a_sender(
    state: AgentRunState, provider: AgentProvider, following: Following
) -> None:
    steps = run_steps(state, provider, following)
    for step in steps:
        assert transition(state, step.kind) == step.state != state
        assert step.by, step
    kinds = [s.kind for s in steps]
    assert len(kinds) == len(set(kinds))


@given(PROVIDERS, FOLLOWINGS)
def test_an_unfollowed_pane_has_only_mytty_rules(
    provider: AgentProvider, following: Following
) -> None:
    nobody = Following(hooked=False)
    for kind in K:
        assert set(senders(provider, kind, nobody)) <= set(senders(provider, kind, following))


def test_a_hooked_claude_run_succeeds_on_its_stop_hook() -> None:
    steps = {s.kind: s for s in run_steps(S.RUNNING, P.CLAUDE_CODE, Following(hooked=True))}
    assert steps[K.SUCCEEDED].by == ("the Stop hook",)
    assert steps[K.APPROVAL_REQUESTED].state is S.WAITING_APPROVAL
    assert any("mytty.startupSweep" in by for by in steps[K.DISCONNECTED].by)
    assert any("mytty.runSuperseded" in by for by in steps[K.IDLE].by)


def test_a_waiting_run_goes_on_when_its_tool_runs() -> None:
    steps = run_steps(S.WAITING_APPROVAL, P.CLAUDE_CODE, Following(hooked=True))
    running = next(s for s in steps if s.state is S.RUNNING)
    assert running.by == ("the PostToolBatch hook", "the SubagentStart hook")


def test_native_estimation_in_turn_mode_names_the_transcript() -> None:
    native = Following(hooked=False, estimated=True, turn_mode=True)
    steps = {s.kind: s for s in run_steps(S.RUNNING, P.CODEX, native)}
    assert "mytty.native.turnCompleted" in steps[K.SUCCEEDED].by[0]
    epoch = Following(hooked=False, estimated=True, turn_mode=False)
    steps = {s.kind: s for s in run_steps(S.RUNNING, P.CODEX, epoch)}
    assert steps[K.SUCCEEDED].by == ("the shell reporting exit 0 (mytty.native.commandFinished)",)
