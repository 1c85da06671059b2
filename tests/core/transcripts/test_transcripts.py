"""Transcript parsers against transcripts the real CLIs wrote (Claude Code 2.1.332, codex-cli
0.171.0 against the loopback mocks of tests/realagents; long strings clipped, temp paths
replaced), plus rows in the documented shapes the captures did not provoke."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.estimation.turn_observation import TurnObservation, TurnPhase
from mytty.core.events import AgentEventKind, AgentProvider, parse_timestamp
from mytty.core.ids import SurfaceId, stable_uuid
from mytty.core.transcripts.claude import (
    INTERRUPT_HOOK_NAME,
    ClaudeInterrupt,
    ClaudeTranscript,
    interrupt_event,
    registry_interrupt,
)
from mytty.core.transcripts.codex import CodexRollout
from mytty.core.transcripts.usage import TokenUsage, budget_stage

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
SURFACE = SurfaceId("6F1C2E0A-0B1D-4C55-9B7E-0D1D2A3B4C5D")


def lines(name: str) -> list[bytes]:
    return (FIXTURES / name).read_bytes().splitlines(keepends=True)


def rows(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines(name)]


def claude(data: list[bytes]) -> ClaudeTranscript:
    t = ClaudeTranscript()
    for line in data:
        t.feed(line)
    return t


def codex(data: list[bytes]) -> CodexRollout:
    r = CodexRollout()
    for line in data:
        r.feed(line)
    return r


def encode(row: dict[str, Any]) -> bytes:
    return json.dumps(row).encode() + b"\n"


def prompt_ids(name: str) -> list[str]:
    seen: list[str] = []
    for row in rows(name):
        pid = row.get("promptId")
        if row.get("type") == "user" and pid and pid not in seen:
            seen.append(pid)
    return seen


def end_turn_text(name: str) -> str:
    """The text of the fixture's first end_turn assistant row, read with plain json."""
    for line in lines(name):
        row = json.loads(line)
        message = row.get("message") or {}
        if row.get("type") == "assistant" and message.get("stop_reason") == "end_turn":
            return "\n".join(b["text"] for b in message["content"] if b.get("type") == "text")
    raise AssertionError(f"no end_turn in {name}")


def last_agent_message(name: str) -> str:
    for line in lines(name):
        row = json.loads(line)
        if row.get("type") == "event_msg" and row["payload"].get("type") == "task_complete":
            return str(row["payload"]["last_agent_message"])
    raise AssertionError(f"no task_complete in {name}")


# -- Claude: turns ---------------------------------------------------------------------------


def test_claude_turn_with_a_tool_completes_then_the_next_prompt_starts_a_new_turn() -> None:
    data = lines("claude_tool_turn_then_prompt.jsonl")
    first, second = prompt_ids("claude_tool_turn_then_prompt.jsonl")
    phases: list[TurnObservation | None] = []
    t = ClaudeTranscript()
    for line in data:
        t.feed(line)
        if not phases or phases[-1] != t.observation:
            phases.append(t.observation)
    assert phases == [
        None,
        TurnObservation(first, TurnPhase.ACTIVE),  # the typed prompt, then tool_use/tool_result
        # end_turn (then turn_duration), with the turn's answer
        TurnObservation(
            first,
            TurnPhase.COMPLETED,
            answer=end_turn_text("claude_tool_turn_then_prompt.jsonl"),
        ),
        TurnObservation(second, TurnPhase.ACTIVE),  # the next prompt, still streaming
    ]
    assert t.interrupt is None
    assert t.session_id == "c260d58f-0374-46a1-953d-4469e408a24b"


def test_claude_turn_completes_on_turn_duration_alone() -> None:
    data = [
        line
        for line in lines("claude_tool_error_turn.jsonl")
        if json.loads(line).get("type") != "assistant"
        or json.loads(line)["message"]["stop_reason"] != "end_turn"
    ]
    (prompt,) = prompt_ids("claude_tool_error_turn.jsonl")
    t = ClaudeTranscript()
    for line in data:
        if json.loads(line).get("subtype") == "turn_duration":
            assert t.observation == TurnObservation(prompt, TurnPhase.ACTIVE)
        t.feed(line)
    assert t.observation == TurnObservation(prompt, TurnPhase.COMPLETED)


def test_claude_sidechain_rows_do_not_move_the_turn() -> None:
    data = lines("claude_tool_turn_then_prompt.jsonl")
    first, _ = prompt_ids("claude_tool_turn_then_prompt.jsonl")
    cut = next(i for i, line in enumerate(data) if b'"stop_reason":"end_turn"' in line)
    end_turn = json.loads(data[cut])
    side = dict(end_turn, isSidechain=True)
    side["message"] = dict(end_turn["message"], id="msg_side")
    t = claude([*data[:cut], encode(side)])
    assert t.observation == TurnObservation(first, TurnPhase.ACTIVE)
    sub_prompt = next(r for r in rows("claude_tool_turn_then_prompt.jsonl") if r.get("promptId"))
    t.apply(dict(sub_prompt, isSidechain=True, promptId="other-prompt"))
    assert t.observation == TurnObservation(first, TurnPhase.ACTIVE)


def test_claude_injected_and_meta_user_rows_are_not_prompts() -> None:
    base = next(r for r in rows("claude_tool_turn_then_prompt.jsonl") if r.get("promptId"))
    t = ClaudeTranscript()
    for text in (
        "<command-name>/clear</command-name>",
        "<local-command-stdout></local-command-stdout>",
    ):
        t.apply(dict(base, promptId="p-injected", message={"role": "user", "content": text}))
    t.apply(dict(base, promptId="p-meta", isMeta=True))
    t.apply(dict(base, promptId=""))
    t.apply(dict(base, promptId="x" * 257))
    t.apply(dict(base, promptId="bad\nid"))
    assert t.observation is None
    t.apply(dict(base, promptId="p-real"))
    assert t.observation == TurnObservation("p-real", TurnPhase.ACTIVE)


# -- Claude: the ESC interrupt ---------------------------------------------------------------


def test_claude_esc_at_the_permission_dialog_is_an_interrupt_of_that_prompt() -> None:
    name = "claude_esc_at_permission_dialog.jsonl"
    (prompt,) = prompt_ids(name)
    note = next(r for r in rows(name) if r.get("rowSource") == "harness")
    t = claude(lines(name))
    assert t.interrupt == ClaudeInterrupt(prompt, note["uuid"])
    assert t.observation == TurnObservation(prompt, TurnPhase.ACTIVE)  # Claude never says so


def test_claude_appended_interrupt_row_with_the_cut_message_id_ends_the_turn() -> None:
    name = "claude_tool_turn_then_prompt.jsonl"
    _, second = prompt_ids(name)
    data = lines(name)
    t = claude(data)
    assert t.interrupt is None
    # The documented shape (real-agents.md §2.4) of Esc while a message streams.
    t.feed(
        encode(
            {
                "parentUuid": "d97c5c72-b06a-4e20-8171-fa2ca8cce8aa",
                "isSidechain": False,
                "promptId": second,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "[Request interrupted by user]"}],
                },
                "rowSource": "harness",
                "interruptedMessageId": "msg_mock_0006_e0298392",
                "uuid": "0c4b8f55-8f7e-4d0e-b3c4-5f1b0c1f2e3d",
                "timestamp": "2026-12-01T12:19:51.708Z",
                "sessionId": "c260d58f-0374-46a1-953d-4469e408a24b",
            }
        )
    )
    interrupt = ClaudeInterrupt(second, "msg_mock_0006_e0298392")
    assert t.interrupt == interrupt
    event = interrupt_event(SURFACE, interrupt, t.session_id, 100.0)
    assert event.kind is AgentEventKind.IDLE and event.provider is AgentProvider.CLAUDE_CODE
    # The hooks' run of that prompt (mytty.hook.identity.hook_run_id) and the §9.6 event id.
    assert event.run_id == stable_uuid("run", "claude-code", second)
    assert event.id == stable_uuid(
        "event", "claude-code", "interrupted", second, "msg_mock_0006_e0298392"
    )
    assert event.hook_name == INTERRUPT_HOOK_NAME and event.synthesized
    assert event.session_id == "c260d58f-0374-46a1-953d-4469e408a24b"


def test_claude_interrupt_counts_only_while_it_is_the_last_prompt_row() -> None:
    name = "claude_esc_at_permission_dialog.jsonl"
    t = claude(lines(name))
    assert t.interrupt is not None
    base = next(r for r in rows(name) if r.get("promptId"))
    t.apply(dict(base, promptId="next-prompt", uuid="u2"))
    assert t.interrupt is None
    assert t.observation == TurnObservation("next-prompt", TurnPhase.ACTIVE)


def test_the_hook_run_id_formula_is_the_same() -> None:
    from mytty.hook.identity import hook_run_id

    event = interrupt_event(SURFACE, ClaudeInterrupt("p1", "m1"), None, 0.0)
    assert event.run_id == hook_run_id("claude-code", "p1")


# -- Claude: usage ---------------------------------------------------------------------------


def test_claude_usage_is_the_sum_over_assistant_messages() -> None:
    name = "claude_tool_turn_then_prompt.jsonl"
    expected = TokenUsage()
    for row in rows(name):
        if row.get("type") == "assistant":
            u = row["message"]["usage"]
            expected = expected + TokenUsage(
                u["input_tokens"],
                u["output_tokens"],
                u["cache_read_input_tokens"],
                u["cache_creation_input_tokens"],
            )
    reading = claude(lines(name)).usage
    assert reading.tokens == expected == TokenUsage(input=20, output=10)
    assert reading.model == "claude-opus-5-5"


def test_claude_streamed_rows_of_one_message_count_once_with_their_latest_usage() -> None:
    name = "claude_tool_turn_then_prompt.jsonl"
    assistant = next(r for r in rows(name) if r.get("type") == "assistant")
    t = ClaudeTranscript()
    usage = dict(assistant["message"]["usage"], input_tokens=7, cache_read_input_tokens=1000)
    for output in (1, 30, 42):  # one row per content block, the usage growing
        message = dict(
            assistant["message"], id="msg_stream", usage=dict(usage, output_tokens=output)
        )
        t.apply(dict(assistant, message=message))
    assert t.usage.tokens == TokenUsage(input=7, output=42, cache_read=1000)
    # Many messages later (beyond the de-duplication window) the sum still holds.
    for n in range(200):
        message = dict(assistant["message"], id=f"m{n}", usage=dict(usage, output_tokens=1))
        t.apply(dict(assistant, message=message))
    assert t.usage.tokens == TokenUsage(input=7 * 201, output=42 + 200, cache_read=1000 * 201)


def test_claude_synthetic_error_message_is_not_a_model() -> None:
    t = ClaudeTranscript()
    t.apply({"type": "assistant", "message": {"id": "a", "model": "claude-x", "usage": {}}})
    t.apply({"type": "assistant", "message": {"id": "b", "model": "<synthetic>", "usage": {}}})
    assert t.usage.model == "claude-x"


# -- Codex -----------------------------------------------------------------------------------


def turn_ids(name: str) -> list[str]:
    return [
        r["payload"]["turn_id"]
        for r in rows(name)
        if r["type"] == "event_msg" and r["payload"]["type"] == "task_started"
    ]


def test_codex_rollout_splits_turns_and_esc_aborts_the_second() -> None:
    name = "codex_turn_then_esc.jsonl"
    first, second = turn_ids(name)
    seen: list[TurnObservation | None] = []
    r = CodexRollout()
    for line in lines(name):
        r.feed(line)
        if not seen or seen[-1] != r.observation:
            seen.append(r.observation)
    assert seen == [
        None,
        TurnObservation(first, TurnPhase.ACTIVE),
        TurnObservation(first, TurnPhase.COMPLETED, answer=last_agent_message(name)),
        TurnObservation(second, TurnPhase.ACTIVE),
        TurnObservation(second, TurnPhase.INTERRUPTED),  # an interrupted turn has no answer
    ]
    assert r.session_id == "01a2318b-7b16-7122-928b-44fbd98f7aa0"


def test_codex_task_started_without_turn_id_keys_by_timestamp() -> None:
    r = CodexRollout()
    r.apply(
        {
            "timestamp": "2026-12-01T12:19:14.500Z",
            "type": "event_msg",
            "payload": {"type": "task_started"},
        }
    )
    assert r.observation == TurnObservation("2026-12-01T12:19:14.500Z", TurnPhase.ACTIVE)


def test_codex_usage_is_the_latest_running_total() -> None:
    name = "codex_turn_then_esc.jsonl"
    totals = [
        row["payload"]["info"]["total_token_usage"]
        for row in rows(name)
        if row["type"] == "event_msg"
        and row["payload"]["type"] == "token_count"
        and row["payload"].get("info")
    ]
    last = totals[-1]
    reading = codex(lines(name)).usage
    assert reading.tokens.total == last["total_tokens"] == 15
    assert reading.tokens == TokenUsage(
        input=last["input_tokens"] - last["cached_input_tokens"],
        output=last["output_tokens"],
        cache_read=last["cached_input_tokens"],
        cache_write=last["cache_write_input_tokens"],
    )
    assert reading.model == "gpt-mock"


def test_codex_running_totals_add_up_across_turns() -> None:
    r = CodexRollout()
    for total in (15, 40, 40, 90):
        usage = {
            "input_tokens": total - 5,
            "cached_input_tokens": 3,
            "output_tokens": 5,
            "total_tokens": total,
        }
        r.apply(
            {
                "type": "event_msg",
                "payload": {"type": "token_count", "info": {"total_token_usage": usage}},
            }
        )
    r.apply({"type": "event_msg", "payload": {"type": "token_count", "info": None}})
    assert r.usage.tokens == TokenUsage(input=82, output=5, cache_read=3)


# -- budgets ---------------------------------------------------------------------------------


def test_budget_stages() -> None:
    assert [budget_stage(t, 100) for t in (0, 79, 80, 99, 100, 150)] == [0, 0, 1, 1, 2, 2]
    assert budget_stage(10**9, None) == 0


# -- robustness ------------------------------------------------------------------------------

_json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
)
_json = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
_keys = st.sampled_from(
    [
        "type",
        "promptId",
        "message",
        "isSidechain",
        "isMeta",
        "interruptedMessageId",
        "subtype",
        "rowSource",
        "uuid",
        "payload",
        "timestamp",
        "sessionId",
    ]
)
_rowish = st.dictionaries(_keys, _json, max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=200) | _rowish.map(encode), max_size=20))
def test_garbage_never_crashes_either_parser(data: list[bytes]) -> None:
    c, x = claude(data), codex(data)
    for reading in (c.usage, x.usage):
        assert reading.tokens.total >= 0
    if c.interrupt is not None:
        interrupt_event(SURFACE, c.interrupt, c.session_id, 0.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=120), max_size=8))
def test_garbage_between_real_lines_changes_nothing(noise: list[bytes]) -> None:
    name = "claude_tool_turn_then_prompt.jsonl"
    clean = claude(lines(name))
    noisy_lines: list[bytes] = []
    for i, line in enumerate(lines(name)):
        noisy_lines.append(line)
        if i < len(noise) and not noise[i].lstrip().startswith((b"{", b"[")):
            noisy_lines.append(noise[i])
    noisy = claude(noisy_lines)
    assert (noisy.observation, noisy.usage, noisy.interrupt) == (
        clean.observation,
        clean.usage,
        clean.interrupt,
    )


# -- Claude: Esc before the model answered (the live registry) ------------------------------


def _asked(prompt_at: str = "2026-12-01T12:19:51.000Z") -> ClaudeTranscript:
    base = next(r for r in rows("claude_tool_turn_then_prompt.jsonl") if r.get("promptId"))
    t = ClaudeTranscript()
    t.apply(dict(base, promptId="p-think", timestamp=prompt_at))
    return t


PROMPT_AT = 1796127591.0  # 2026-12-01T12:19:51Z


def test_registry_idle_after_the_prompt_is_an_interrupt_after_the_grace() -> None:
    t = _asked()
    idle = {"status": "idle", "statusUpdatedAt": int((PROMPT_AT + 0.5) * 1000)}
    assert registry_interrupt(t, idle, PROMPT_AT + 1.0) is None  # within the grace
    found = registry_interrupt(t, idle, PROMPT_AT + 3.0)
    assert found == ClaudeInterrupt("p-think", f"idle@{idle['statusUpdatedAt']}")


def test_registry_checks_that_must_not_fire() -> None:
    t = _asked()
    late = PROMPT_AT + 60
    before = {"status": "idle", "statusUpdatedAt": int((PROMPT_AT - 0.2) * 1000)}
    assert registry_interrupt(t, before, late) is None  # not caught up with the prompt yet
    for status in ("busy", "waiting"):
        assert registry_interrupt(t, {"status": status, "statusUpdatedAt": 1}, late) is None
    after = {"status": "idle", "statusUpdatedAt": int((PROMPT_AT + 1) * 1000)}
    bads: list[object] = [None, [], {"status": "idle"}, {"status": "idle", "statusUpdatedAt": True}]
    for bad in bads:
        assert registry_interrupt(t, bad, late) is None
    done = claude(lines("claude_tool_turn_then_prompt.jsonl")[:-2])  # completed turn
    assert done.observation is not None and done.observation.phase is TurnPhase.COMPLETED
    assert registry_interrupt(done, after, late) is None
    assert registry_interrupt(_asked("not a time"), after, late) is None


def test_claude_api_error_row_fails_the_turn_and_the_idle_registry_is_no_interrupt() -> None:
    # The row 2.1.332 writes for an HTTP 400 (real-agents.md §2.4); no turn_duration follows.
    # Read as still active, the registry's idle made it an Esc 2 s later: the failed run re-opened
    # as idle (a CI failure of test_claude_second_turn_and_exit under load).
    t = _asked()
    error_row: dict[str, Any] = {
        "type": "assistant",
        "isApiErrorMessage": True,
        "apiErrorStatus": 400,
        "apiErrorType": "invalid_request_error",
        "message": {
            "id": "msg_err",
            "model": "<synthetic>",
            "role": "assistant",
            "content": [{"type": "text", "text": "API Error: 400 mock failure 400"}],
            "stop_reason": "stop_sequence",
            "usage": {"input_tokens": 0, "output_tokens": 0},
        },
    }
    t.apply(error_row)
    assert t.observation == TurnObservation(
        "p-think", TurnPhase.FAILED, message="API Error: 400 mock failure 400"
    )
    idle = {"status": "idle", "statusUpdatedAt": int((PROMPT_AT + 0.5) * 1000)}
    assert registry_interrupt(t, idle, PROMPT_AT + 60) is None
    blank = dict(error_row, message=dict(error_row["message"], content=[]))
    t2 = _asked()
    t2.apply(blank)
    assert t2.observation is not None and t2.observation.message
    # The next prompt starts a fresh turn: active, no error carried over.
    base = next(r for r in rows("claude_tool_turn_then_prompt.jsonl") if r.get("promptId"))
    t.apply(dict(base, promptId="p-next"))
    assert t.observation is not None and t.observation.key == "p-next"
    assert t.observation.phase is TurnPhase.ACTIVE and t.observation.message is None
    assert t.message is None


def test_codex_api_error_is_a_failure_of_that_turn_until_the_next_starts() -> None:
    from mytty.core.transcripts.codex import FAILURE_HOOK_NAME, failure_event

    r = CodexRollout()
    r.apply({"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t1"}})
    error = {"message": "unexpected status 400 Bad Request: boom"}
    r.apply(
        {
            "type": "event_msg",
            "payload": {
                "type": "task_complete",
                "turn_id": "t1",
                "last_agent_message": None,
                "error": error,
            },
        }
    )
    assert r.failure == ("t1", error["message"])
    event = failure_event(SURFACE, "t1", error["message"], "s1", 5.0)
    assert event.kind is AgentEventKind.FAILED and event.hook_name == FAILURE_HOOK_NAME
    assert event.run_id == stable_uuid("run", "codex", "t1")
    assert event.id == stable_uuid("event", "codex", "failed", "t1")
    r.apply({"type": "event_msg", "payload": {"type": "task_started", "turn_id": "t2"}})
    assert r.failure is None
    # Both within one look: the next report passes t1 on as failed, with the API's message.
    report = r.report()
    assert report is not None and report.before == (
        TurnObservation("t1", TurnPhase.FAILED, message=error["message"]),
    )
    r.apply({"type": "event_msg", "payload": {"type": "task_complete", "turn_id": "t2"}})
    assert r.failure is None and r.observation == TurnObservation("t2", TurnPhase.COMPLETED)


def _started_times(feed: Any, name: str) -> list[tuple[str, float | None]]:
    """(turn key, started_at) of each new turn while ``feed`` reads the fixture ``name``."""
    seen: list[tuple[str, float | None]] = []
    for line in lines(name):
        feed.feed(line)
        obs = feed.observation
        if obs is not None and (not seen or seen[-1][0] != obs.key):
            seen.append((obs.key, obs.started_at))
    return seen


def test_each_turn_says_when_it_began_by_the_row_that_began_it() -> None:
    """Claude: the prompt row's timestamp; Codex: task_started's. The estimator compares it
    with the agent process's start (a turn over before the first look is still a run)."""
    for name, reader, begins in (
        ("claude_tool_turn_then_prompt.jsonl", ClaudeTranscript(), "user"),
        ("codex_turn_then_esc.jsonl", CodexRollout(), "task_started"),
    ):
        seen = _started_times(reader, name)
        if begins == "user":
            expected = [
                (r["promptId"], parse_timestamp(r["timestamp"]))
                for r in rows(name)
                if r.get("type") == "user"
                and r["promptId"] in prompt_ids(name)[:2]
                and isinstance(r["message"]["content"], str)
            ]
        else:
            expected = [
                (r["payload"]["turn_id"], parse_timestamp(r["timestamp"]))
                for r in rows(name)
                if r["type"] == "event_msg" and r["payload"]["type"] == "task_started"
            ]
        assert seen == expected and len(seen) == 2, (name, seen, expected)
        # The time rides along with the observation, never changing it: ended turns keep it.
        assert reader.observation is not None and reader.observation.started_at == seen[-1][1]


def test_a_turn_without_a_usable_timestamp_has_no_start_time() -> None:
    for stamp in (None, "yesterday", "9" * 80, "+999999-01-01T00:00:00"):
        r = CodexRollout()
        row: dict[str, Any] = {
            "type": "event_msg",
            "payload": {"type": "task_started", "turn_id": "t"},
        }
        if stamp is not None:
            row["timestamp"] = stamp
        r.apply(row)
        assert r.observation is not None and r.observation.started_at is None, stamp


def test_a_report_carries_the_turns_that_ended_since_the_last_one() -> None:
    """Both fixtures hold two turns. Read in one go (one look of the estimator), the report is
    the second turn, and ``before`` is the first one as it ended, answer included; the next
    report passes nothing again."""
    name = "claude_tool_turn_then_prompt.jsonl"
    first, second = prompt_ids(name)[:2]
    t = claude(lines(name))
    report = t.report()
    assert report == TurnObservation(second, TurnPhase.ACTIVE)
    assert report is not None and report.before == (
        TurnObservation(
            first, TurnPhase.COMPLETED, answer=end_turn_text("claude_tool_turn_then_prompt.jsonl")
        ),
    )
    assert report.before[0].started_at is not None
    again = t.report()
    assert again == report and again is not None and again.before == ()

    name = "codex_turn_then_esc.jsonl"
    done, aborted = turn_ids(name)
    r = codex(lines(name))
    report = r.report()
    assert report == TurnObservation(aborted, TurnPhase.INTERRUPTED)
    assert report is not None
    assert report.before == (
        TurnObservation(done, TurnPhase.COMPLETED, answer=last_agent_message(name)),
    )


def test_turns_read_line_by_line_pass_nothing_and_a_turn_not_ended_is_not_passed() -> None:
    name = "codex_turn_then_esc.jsonl"
    r = CodexRollout()
    for line in lines(name):
        r.feed(line)
        report = r.report()
        assert report is None or report.before == ()
    # A turn that never ended, followed by another: the new turn supersedes it (no "before").
    r = CodexRollout()
    for turn in ("t1", "t2"):
        r.apply({"type": "event_msg", "payload": {"type": "task_started", "turn_id": turn}})
    report = r.report()
    assert report is not None and (report.key, report.before) == ("t2", ())
