"""The reader turns a limited turn into one ``limit-reached`` event and keeps its facts."""

from __future__ import annotations

from mytty.core.estimation.turn_observation import TurnPhase
from mytty.core.events import AgentEventKind, AgentProvider
from mytty.core.ids import RunId, stable_uuid
from mytty.core.transcripts.limits import CLAUDE_LIMIT_HOOK, CODEX_LIMIT_HOOK
from tests.daemon.transcripts.test_transcripts_reader import (
    PID,
    SURFACE,
    World,
    append,
    fixture_lines,
    world,
)

__all__ = ["world"]  # the fixture


def test_claude_limit_is_one_event_on_the_prompt_run_and_its_facts_are_kept(world: World) -> None:
    name = "claude_usage_limit.jsonl"
    session = "2f8f75bc-bef6-4400-b40a-734f8c496be4"
    path = world.claude_file(session)
    data = fixture_lines(name)
    append(path, b"".join(data))
    obs = world.observe(session=session)
    assert obs is not None and obs.phase is TurnPhase.LIMITED
    run = RunId(stable_uuid("run", "claude-code", obs.key))
    [event] = [e for e in world.events if e.kind is AgentEventKind.LIMIT_REACHED]
    assert event.run_id == run and event.hook_name == CLAUDE_LIMIT_HOOK
    assert event.session_id == session
    facts = world.reader.limit_facts(SURFACE, run)
    assert facts is not None and facts.window == "seven_day" and facts.resets_at == 1796423163
    world.observe(session=session)
    append(path, data[-1])  # more rows of the same session: the limit is not told twice
    world.observe(session=session)
    assert sum(e.kind is AgentEventKind.LIMIT_REACHED for e in world.events) == 1


def test_codex_limit_from_the_rollout(world: World) -> None:
    codex_home = world.home / ".codex"
    folder = codex_home / "sessions" / "2026" / "12" / "01"
    folder.mkdir(parents=True)
    rollout = folder / "rollout-2026-12-01T22-01-46-01a233a0-d09f-7e50-9bdf-38093fe38d43.jsonl"
    rollout.write_bytes(b"".join(fixture_lines("codex_usage_limit.jsonl")))
    (world.proc / str(PID) / "fd" / "7").symlink_to(rollout)
    world.environ(HOME=str(world.home), CODEX_HOME=str(codex_home))
    obs = world.observe(provider=AgentProvider.CODEX)
    assert obs is not None and obs.phase is TurnPhase.LIMITED
    [event] = world.events
    assert event.kind is AgentEventKind.LIMIT_REACHED and event.hook_name == CODEX_LIMIT_HOOK
    assert event.session_id == "01a233a0-d09f-7e50-9bdf-38093fe38d43"
    facts = world.reader.limit_facts(SURFACE, event.run_id)
    assert facts is not None and facts.resets_at == 1796169600 and facts.window == "five_hour"
    world.reader.forget(SURFACE)
    assert world.reader.limit_facts(SURFACE, event.run_id) is None
