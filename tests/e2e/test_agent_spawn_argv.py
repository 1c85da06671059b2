"""What a spawned worker really gets: its argv per access mode, inherited flags, the task verbatim.

The stand-in agents record the argv they were started with, so these tests compare the real
process's argv with the launch commands of semantics §5.2 (Claude workers also get
``--teammate-mode in-process`` and ``--session-id <the job's sessionID>``), check inherit against a real lead process (§5.3), and check that
a hostile task arrives byte for byte and never reaches shell history (§4.6).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mytty.core.jobs.launch import worker_contract
from tests.e2e.jobs_support import (
    BINARY,
    PROVIDERS,
    completed,
    configure_shell,
    expected_argv,
    listed,
    new_anchor,
    pane_of,
    shared_team,  # noqa: F401 - fixture
    spawn,
    spawn_code,
    standin_in,
    team,
    wait_pane_gone,
)
from tests.support.harness import Mytty, wait_until

pytestmark = pytest.mark.tmux

#: The fixed mode flags of semantics §5.2, written out here rather than imported.
ACCESS_FLAGS = {
    ("codex", "review"): ["-s", "read-only", "-a", "never"],
    ("codex", "workspace-write"): ["-s", "workspace-write", "-a", "never"],
    ("claude", "review"): ["--permission-mode", "plan"],
    ("claude", "workspace-write"): ["--permission-mode", "acceptEdits"],
    ("cursor", "review"): ["--mode", "plan"],
    ("cursor", "workspace-write"): ["--force", "--sandbox", "enabled"],
}
#: Ends each stand-in after its first turn, so no worker lingers in the shared controller.
QUIT = "\n@standin: exit"


def _task(label: str) -> str:
    return f"argv check {label} {uuid.uuid4().hex}{QUIT}"


def _argv_of(m: Mytty, job: dict, provider: str) -> list[str]:
    """The worker's argv; a Claude worker's ``--session-id`` (the job's sessionID, a UUID mytty
    chose, right before ``--``) is checked here and left out, for :func:`expected_argv`."""
    argv = standin_in(m, pane_of(job), BINARY[provider]).argv
    if provider != "claude":
        assert "--session-id" not in argv and job["sessionID"] is None
        return argv
    sep = argv.index("--")
    assert argv[sep - 2 : sep] == ["--session-id", job["sessionID"]], argv
    assert str(uuid.UUID(job["sessionID"])) == job["sessionID"]
    return argv[: sep - 2] + argv[sep:]


def _start_lead(m: Mytty, command: str, provider: str) -> str:
    """Run a stand-in as the lead agent in a fresh pane (the way a human starts one)."""
    anchor = new_anchor(m)
    lead = m.ctl("split", anchor, "right", "--command", command).json["paneID"]
    standin_in(m, lead, BINARY[provider])
    display = {"claude": "Claude Code", "codex": "Codex", "cursor": "Cursor"}[provider]
    wait_until(
        lambda: (listed(m, lead) or {}).get("command") == display,
        15,
        message=f"{display} in the foreground of the lead pane",
    )
    return lead


# -- fixed access modes ----------------------------------------------------------------------------


@pytest.mark.parametrize("access", ["review", "workspace-write"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_access_mode_argv(shared_team: Mytty, provider: str, access: str) -> None:
    m = shared_team
    task = _task(f"{provider}-{access}")
    job = spawn(
        m, "--provider", provider, "--access", access, "--task", task, "--anchor", new_anchor(m)
    )
    assert _argv_of(m, job, provider) == expected_argv(
        provider, ACCESS_FLAGS[provider, access], task
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_omitted_access_without_a_same_provider_lead_is_workspace_write(
    shared_team: Mytty, provider: str
) -> None:
    m = shared_team
    task = _task(f"default-{provider}")
    job = spawn(m, "--provider", provider, "--task", task, "--anchor", new_anchor(m))
    assert _argv_of(m, job, provider) == expected_argv(
        provider, ACCESS_FLAGS[provider, "workspace-write"], task
    )


@pytest.mark.parametrize(
    ("provider", "model"), [("claude", "sonnet"), ("codex", "gpt-5-codex"), ("cursor", "gpt-5")]
)
def test_model_flag_comes_before_the_mode_flags(
    shared_team: Mytty, provider: str, model: str
) -> None:
    m = shared_team
    task = _task(f"model-{provider}")
    job = spawn(
        m,
        "--provider",
        provider,
        "--access",
        "review",
        "--model",
        model,
        "--task",
        task,
        "--anchor",
        new_anchor(m),
    )
    assert _argv_of(m, job, provider) == expected_argv(
        provider, ACCESS_FLAGS[provider, "review"], task, model=model
    )


def test_worker_contract_closes_every_task(shared_team: Mytty) -> None:
    """§4.5: task + newline + a heading + six bullet lines, no trailing newline."""
    m = shared_team
    task = _task("contract")
    job = spawn(m, "--provider", "claude", "--task", task, "--anchor", new_anchor(m))
    prompt = standin_in(m, pane_of(job), "claude").task
    assert prompt.startswith(task + "\n")
    contract = prompt[len(task) + 1 :]
    assert contract == worker_contract()
    lines = contract.split("\n")
    assert len(lines) == 7 and not lines[0].startswith("- "), lines
    assert all(line.startswith("- ") for line in lines[1:]), lines
    assert not contract.endswith("\n")
    assert 'mytty-ctl status "' in contract  # the phase self-report (§8)


# -- inherit ---------------------------------------------------------------------------------------


def test_claude_worker_inherits_the_leads_permission_mode(shared_team: Mytty) -> None:
    m = shared_team
    lead = _start_lead(m, "claude --permission-mode bypassPermissions", "claude")
    task = _task("inherit-implicit")
    job = spawn(m, "--provider", "claude", "--anchor", lead, "--task", task)  # no --access
    assert _argv_of(m, job, "claude") == expected_argv(
        "claude", ["--permission-mode", "bypassPermissions"], task
    )
    task = _task("inherit-explicit")
    job = spawn(m, "--provider", "claude", "--anchor", lead, "--access", "inherit", "--task", task)
    assert _argv_of(m, job, "claude") == expected_argv(
        "claude", ["--permission-mode", "bypassPermissions"], task
    )


def test_claude_inherits_skip_permissions_and_the_equals_spelling(shared_team: Mytty) -> None:
    m = shared_team
    lead = _start_lead(
        m, "claude --permission-mode=acceptEdits --dangerously-skip-permissions", "claude"
    )
    task = _task("inherit-equals")
    job = spawn(m, "--provider", "claude", "--anchor", lead, "--task", task)
    assert _argv_of(m, job, "claude") == expected_argv(
        "claude", ["--permission-mode", "acceptEdits", "--dangerously-skip-permissions"], task
    )


@pytest.mark.parametrize(
    ("lead_flags", "worker_flags"),
    [
        ("-s danger-full-access", ["-s", "danger-full-access", "-a", "never"]),
        ("--sandbox=read-only -a on-request", ["--sandbox", "read-only", "-a", "on-request"]),
        ("--full-auto", ["--full-auto"]),
        ("", ["-s", "workspace-write", "-a", "never"]),  # nothing to inherit → workspace-write
    ],
)
def test_codex_worker_inherits_the_leads_flags(
    shared_team: Mytty, lead_flags: str, worker_flags: list[str]
) -> None:
    m = shared_team
    lead = _start_lead(m, f"codex {lead_flags}".strip(), "codex")
    task = _task("inherit-codex")
    job = spawn(m, "--provider", "codex", "--anchor", lead, "--task", task)
    assert _argv_of(m, job, "codex") == expected_argv("codex", worker_flags, task)


def test_cursor_worker_inherits_the_leads_flags(shared_team: Mytty) -> None:
    m = shared_team
    lead = _start_lead(m, "cursor-agent --force --sandbox disabled", "cursor")
    task = _task("inherit-cursor")
    job = spawn(m, "--provider", "cursor", "--anchor", lead, "--access", "inherit", "--task", task)
    assert _argv_of(m, job, "cursor") == expected_argv(
        "cursor", ["--force", "--sandbox", "disabled"], task
    )


def test_inherit_from_another_provider(shared_team: Mytty) -> None:
    m = shared_team
    lead = _start_lead(m, "claude --permission-mode bypassPermissions", "claude")
    # Explicit inherit from a claude lead into a codex worker: no silent fallback.
    assert (
        spawn_code(
            m,
            "--provider",
            "codex",
            "--anchor",
            lead,
            "--access",
            "inherit",
            "--task",
            _task("cross"),
        )
        == "inherit-unavailable"
    )
    # Omitted access with a different lead provider resolves to workspace-write.
    task = _task("cross-implicit")
    job = spawn(m, "--provider", "codex", "--anchor", lead, "--task", task)
    assert _argv_of(m, job, "codex") == expected_argv(
        "codex", ACCESS_FLAGS["codex", "workspace-write"], task
    )


def test_explicit_inherit_from_a_plain_shell_is_unavailable(shared_team: Mytty) -> None:
    m = shared_team
    anchor = new_anchor(m)
    before = len(m.panes())
    assert (
        spawn_code(
            m,
            "--provider",
            "claude",
            "--anchor",
            anchor,
            "--access",
            "inherit",
            "--task",
            _task("shell"),
        )
        == "inherit-unavailable"
    )
    assert len(m.panes()) == before  # refused before any pane was made


# -- the task, byte for byte, and never in history -------------------------------------------------


@pytest.fixture
def history_mytty() -> Iterator[Mytty]:
    """A controller whose panes' bash would save every typed line to ~/.bash_history at once."""
    m = Mytty()
    try:
        configure_shell(
            m,
            "export MYTTY_TEST_RC=history\nHISTFILE=~/.bash_history\nPROMPT_COMMAND='history -a'\n",
        )
        m.start()
        team(m, providers=("claude",))
        yield m
    finally:
        m.close()


def test_hostile_task_arrives_verbatim_and_stays_out_of_history(history_mytty: Mytty) -> None:
    m = history_mytty
    marker = "HOSTILE" + uuid.uuid4().hex[:12]
    trap = m.root / "pwned"
    hostile = (
        f"{marker} it's \"quoted\" and 'single' and \\backslash\\ $HOME ${{HOME}}\n"
        f"subst $(touch {trap}1) and `touch {trap}2` and !! !-1 !$ ^x^y\n"
        "ops ; | & && || < > >> 2>&1 * ? [a] {a,b} ~ # % =x\ttab\there\n"
        "\n"
        "unicode: Grüße, 日本語, emoji 🚀👩‍💻, RTL \u202eevil\u202c end"
    )
    job = spawn(m, "--provider", "claude", "--task", hostile, "--anchor", new_anchor(m))
    pane = pane_of(job)
    record = standin_in(m, pane, "claude")
    assert record.env.get("MYTTY_TEST_RC") == "history"  # the history settings are in effect
    assert record.argv[-2:] == ["--", hostile + "\n" + worker_contract()]
    assert completed(m, job)["state"] == "succeeded"
    assert not Path(f"{trap}1").exists() and not Path(f"{trap}2").exists()

    # End the agent, which leaves the pane at its shell. Prove that typed lines reach history…
    m.wait_for_text(pane, "STANDIN ready")
    m.ctl("send", pane, "/exit", "--enter").ok()
    wait_until(
        lambda: (listed(m, pane) or {}).get("command") == "bash",
        15,
        message="the worker pane back at its shell",
    )
    history = m.home / ".bash_history"
    canary = "echo canary-" + uuid.uuid4().hex
    m.ctl("send", pane, canary, "--enter").ok()
    wait_until(
        lambda: history.exists() and canary in history.read_text(errors="replace"),
        15,
        message="the typed canary in ~/.bash_history",
    )
    # …then let the shell exit (it writes its history on the way out).
    m.ctl("send", pane, "exit", "--enter").ok()
    wait_pane_gone(m, pane)
    for name in (".bash_history", ".zsh_history"):
        path = m.home / name
        if path.exists():
            text = path.read_text(errors="replace")
            for fragment in (marker, "touch", "--teammate-mode"):
                assert fragment not in text, text
