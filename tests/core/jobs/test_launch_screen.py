"""The pane's own words for a worker that cannot start, and the rules that use them (issue 26,
item 2). The screens are what the pinned real CLIs printed on a machine with no network and
no sign-in (Claude Code 2.1.332, Codex 0.171)."""

from __future__ import annotations

from dataclasses import replace

from mytty.core.events import WorkerProvider
from mytty.core.ids import JobId, SurfaceId
from mytty.core.jobs.launch_screen import last_words, sign_in_line
from mytty.core.jobs.tracker import AgentJob, AgentJobState, LaunchClues, new_job, reconcile

OFFLINE_CLAUDE = """\
root@vm:~/demo#
Welcome to Claude Code v2.1.332
.......█ █   █ █..........................................
 Unable to connect to Anthropic services
 Failed to connect to api.anthropic.com: ENOTFOUND
 Check your internet connection and network settings.
 Claude Code might not be available in your country. Check supported countries at
 https://anthropic.com/supported-countries
root@vm:~/demo# """

CODEX_SIGN_IN = """\
  Welcome to Codex, OpenAI's command-line coding agent
  Choose how you want to use Codex.
> 1. Sign in with ChatGPT
     Usage included with Plus, Pro, Business, and Enterprise plans
  2. Sign in with Device Code
  Press enter to continue"""

CLAUDE_LOGIN = """\
\u276f hello
  ⎿  Not logged in · Please run /login
\u276f Once fixed, resend your message"""


def test_last_words_are_the_agents_error_lines_above_the_prompt() -> None:
    cursor = len(OFFLINE_CLAUDE.splitlines()) - 1
    assert last_words(OFFLINE_CLAUDE, cursor) == (
        "Unable to connect to Anthropic services Failed to connect to api.anthropic.com: ENOTFOUND"
    )
    assert last_words("usage: codex [options]\n$ ", 1) == "usage: codex [options]"
    assert last_words("\n\n$ ", 2) is None
    assert len(last_words("error " * 200, None) or "") == 300


def test_sign_in_screens() -> None:
    assert sign_in_line(WorkerProvider.CODEX, CODEX_SIGN_IN) == "> 1. Sign in with ChatGPT"
    assert sign_in_line(WorkerProvider.CLAUDE, CLAUDE_LOGIN) == (
        "⎿ Not logged in · Please run /login"
    )
    assert sign_in_line(WorkerProvider.CLAUDE, CODEX_SIGN_IN) is None
    # Only the screen counts: a sign-in long scrolled away is over.
    assert sign_in_line(WorkerProvider.CODEX, CODEX_SIGN_IN + "\n" * 40 + "$ ") is None


def _job(provider: WorkerProvider) -> AgentJob:
    return new_job(JobId("J"), SurfaceId("S"), provider, None, (), now=100.0, window=30.0)


def test_an_exit_before_the_first_run_is_launch_failed_at_once() -> None:
    job = _job(WorkerProvider.CLAUDE)
    clues = LaunchClues(exited="Failed to connect: ENOTFOUND", exit_status=1)
    done = reconcile(job, [], True, 101.5, clues)
    assert done.state is AgentJobState.LAUNCH_FAILED
    assert (
        done.message
        == "claude exited with status 1 before its first run: Failed to connect: ENOTFOUND"
    )
    quiet = reconcile(job, [], True, 101.5, LaunchClues(exited="", exit_status=2))
    assert quiet.message == "claude exited with status 2 before its first run (it printed nothing)"


def test_a_sign_in_screen_needs_a_human_or_ends_the_job_by_provider() -> None:
    codex = reconcile(_job(WorkerProvider.CODEX), [], True, 102.0, LaunchClues(sign_in="Sign in"))
    assert (codex.state, codex.message) == (AgentJobState.WAITING_INPUT, "not signed in: Sign in")
    # It stays so past the deadline while the agent is there ...
    later = reconcile(codex, [], True, 500.0, LaunchClues(agent_running=True))
    assert later.state is AgentJobState.WAITING_INPUT
    # ... and ends once it left the pane.
    gone = reconcile(codex, [], True, 500.0, LaunchClues(agent_running=False))
    assert gone.state is AgentJobState.LAUNCH_FAILED
    assert gone.message == "codex left the pane before its first run (not signed in: Sign in)"
    claude = reconcile(_job(WorkerProvider.CLAUDE), [], True, 102.0, LaunchClues(sign_in="/login"))
    assert (claude.state, claude.message) == (AgentJobState.LAUNCH_FAILED, "not signed in: /login")


def test_without_clues_the_launch_window_rules_as_before() -> None:
    job = _job(WorkerProvider.CODEX)
    assert reconcile(job, [], True, 110.0, LaunchClues()).state is AgentJobState.LAUNCHING
    assert reconcile(job, [], True, 131.0, LaunchClues()).state is AgentJobState.LAUNCH_FAILED
    assert replace(job, state=AgentJobState.LAUNCHING) == job
