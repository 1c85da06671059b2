"""Shared helpers for the agent-job end-to-end tests (real controller, real tmux, stand-in agents).

The stand-ins (``tests/standins/{claude,codex,cursor-agent}``) behave like the real CLIs as far as
mytty can tell: they record their argv, cwd and ``MYTTY_*`` environment in
``$MYTTY_STANDIN_DIR/<name>.<pid>.json`` and fire the hooks the installer wrote, with payloads in
the providers' own formats. ``@standin: <directive>`` lines in a prompt steer them (``sleep <s>``,
``fail``, ``approve``, ``ask``, ``exit``).

Semantics: reference/semantics.md §3.2 (snapshot shape), §4.3 (client checks), §4.5 (worker
contract), §5 (spawn, launch commands, access, worktrees, job tracker), §7 (agent wait).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mytty.core.jobs.launch import worker_contract
from tests.support.harness import MYTTY, TESTS_DIR, CtlResult, Mytty, wait_until

#: Stand-in executables, by the worker-provider name ``agent spawn --provider`` takes.
BINARY = {"claude": "claude", "codex": "codex", "cursor": "cursor-agent"}
#: The integration (AgentProvider) name of each worker provider.
INTEGRATION = {"claude": "claude-code", "codex": "codex", "cursor": "cursor"}
PROVIDERS = ("claude", "codex", "cursor")

UUID_RE = re.compile(r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")
TERMINAL_STATES = {"succeeded", "failed", "disconnected", "launch-failed", "lost"}


# -- the test user's environment -------------------------------------------------------------------


def configure_shell(m: Mytty, bashrc: str) -> None:
    """Give the test HOME a ``~/.bashrc`` that the panes' login shells really load.

    The panes' bash reads ``~/.profile`` (as a login shell would); like Debian's default profile,
    ours then sources ``~/.bashrc``.
    """
    (m.home / ".bashrc").write_text(bashrc)
    profile = m.home / ".profile"
    text = profile.read_text() if profile.exists() else ""
    if ".bashrc" not in text:
        text += '[ -n "$BASH_VERSION" ] && [ -r "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n'
        profile.write_text(text)


def trust_step_env(m: Mytty) -> dict[str, str]:
    """The test user's environment with the stand-in ``codex`` first on PATH.

    Enabling Codex asks ``codex app-server`` for each hook's trust hash; the stand-in answers
    as codex 0.171 does, so the suite needs no real codex (that one is exercised by the
    ``realagent`` tests). Only the enable command sees it: the panes' PATH is left alone.
    """
    trust_bin = m.root / "trust-bin"
    if not trust_bin.exists():
        trust_bin.mkdir()
        (trust_bin / "codex").symlink_to(TESTS_DIR / "standins" / "codex")
    return {**m.env, "PATH": f"{trust_bin}:{m.env['PATH']}"}


def enable_integrations(m: Mytty, *providers: str) -> None:
    """``mytty integrations enable`` (the human's command) for worker providers."""
    env = trust_step_env(m)
    for provider in providers:
        proc = subprocess.run(
            [MYTTY, "integrations", "enable", INTEGRATION[provider]],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, f"enable {provider}: {proc.stdout}{proc.stderr}"
    listing = m.ctl("integration", "list").json["integrations"]
    statuses = {i["provider"]: i["status"] for i in listing}
    for provider in providers:
        assert statuses[INTEGRATION[provider]] == "installed", statuses


def team(m: Mytty, *, providers: tuple[str, ...] = PROVIDERS) -> Mytty:
    """Stand-ins on PATH and hooks enabled: job states move."""
    m.install_standins(*(BINARY[p] for p in providers))
    enable_integrations(m, *providers)
    return m


def running_team(
    *, providers: tuple[str, ...] = PROVIDERS, config: str | None = None
) -> Iterator[Mytty]:
    """A started controller with these stand-ins and integrations, closed when the generator
    is (a fixture's body: ``yield from running_team(...)``); ``config``: the text of the
    config.toml it starts with."""
    m = Mytty()
    try:
        if config is not None:
            m.mytty_home.mkdir(mode=0o700, parents=True)
            (m.mytty_home / "config.toml").write_text(config)
        m.start()
        team(m, providers=providers)
        yield m
    finally:
        m.close()


@pytest.fixture(scope="module")
def shared_team() -> Iterator[Mytty]:
    """One controller with all stand-ins and integrations, for tests that only need fresh panes."""
    yield from running_team()


# -- anchors and panes -----------------------------------------------------------------------------


def new_anchor(
    m: Mytty, cwd: str | Path | None = None, *, width: int = 200, height: int = 60
) -> str:
    """A fresh tab (its own tmux window, made roomy) to split workers from."""
    args = ["new-tab"] + (["--cwd", str(cwd)] if cwd is not None else [])
    pane_id = m.ctl(*args).json["paneID"]
    window = tmux_format(m, pane_id, "#{window_id}")
    m.tmux("resize-window", "-t", window, "-x", str(width), "-y", str(height))
    return pane_id


def tmux_format(m: Mytty, pane_id: str, fmt: str) -> str:
    return m.tmux("display-message", "-p", "-t", m.tmux_id(pane_id), fmt).strip()


def listed(m: Mytty, pane_id: str) -> dict[str, Any] | None:
    for entry in m.panes():
        if entry["paneID"] == pane_id:
            return entry
    return None


def wait_pane_gone(m: Mytty, pane_id: str, timeout: float = 15.0) -> None:
    wait_until(lambda: listed(m, pane_id) is None, timeout, message=f"pane {pane_id} to disappear")


# -- agent commands --------------------------------------------------------------------------------


def job_id(job: dict[str, Any]) -> str:
    return str(job["jobID"]["rawValue"])


def pane_of(job: dict[str, Any]) -> str:
    return str(job["paneID"]["rawValue"])


def run_id(job: dict[str, Any]) -> str | None:
    run = job.get("runID")
    return None if run is None else str(run["rawValue"])


def spawn_reply(
    m: Mytty, *args: str, env: dict[str, str] | None = None, cwd: str | None = None
) -> dict[str, Any]:
    reply = m.ctl("agent", "spawn", *args, env=env, cwd=cwd).json
    assert reply["type"] == "agentJob", reply
    return reply


def spawn(
    m: Mytty, *args: str, env: dict[str, str] | None = None, cwd: str | None = None
) -> dict[str, Any]:
    """``agent spawn`` (run from ``cwd``, default the test HOME); returns the job snapshot."""
    job: dict[str, Any] = spawn_reply(m, *args, env=env, cwd=cwd)["job"]
    assert job["state"] == "launching", job
    return job


def spawn_code(m: Mytty, *args: str, env: dict[str, str] | None = None) -> str:
    """``agent spawn`` that must fail; returns the error code."""
    return m.ctl("agent", "spawn", *args, env=env).code


def agent_wait(
    m: Mytty, job: dict[str, Any] | str, until: str, timeout: float = 60
) -> dict[str, Any]:
    """``agent wait``; returns the whole agentWaitResult."""
    jid = job if isinstance(job, str) else job_id(job)
    reply = m.ctl(
        "agent",
        "wait",
        jid,
        "--until",
        until,
        "--timeout-seconds",
        f"{timeout:g}",
        timeout=timeout + 30,
    ).json
    assert reply["type"] == "agentWaitResult", reply
    assert set(reply) == {"type", "job", "timedOut"}, reply
    return reply


def completed(m: Mytty, job: dict[str, Any] | str, timeout: float = 60) -> dict[str, Any]:
    """Wait until the job is completed (not timed out); return its snapshot."""
    reply = agent_wait(m, job, "completed", timeout)
    assert reply["timedOut"] is False, reply
    assert reply["job"]["state"] in TERMINAL_STATES, reply
    snapshot: dict[str, Any] = reply["job"]
    return snapshot


def escape_held_turn(m: Mytty, provider: str, task: str, after: str) -> tuple[dict[str, Any], str]:
    """Spawn a stand-in worker whose turn holds (``task`` has ``@standin: hold`` or
    ``thinking``), check that only an Esc can end it, press Esc and wait for the stand-in to
    print ``after``; returns (the spawn reply, its pane)."""
    job = spawn(m, "--provider", provider, "--task", task)
    pane = pane_of(job)
    running = agent_wait(m, job, "running", 30)
    assert running["timedOut"] is False and running["job"]["state"] == "running", running
    m.wait_for_text(pane, "STANDIN holding", 30)
    assert agent_wait(m, job, "completed", 1)["timedOut"] is True  # only the Esc ends it
    m.ctl("send-key", pane, "Escape").ok()
    m.wait_for_text(pane, after, 15)
    return job, pane


def agent_result(m: Mytty, job: dict[str, Any] | str) -> dict[str, Any]:
    jid = job if isinstance(job, str) else job_id(job)
    reply = m.ctl("agent", "result", jid).json
    assert reply["type"] == "agentResult", reply
    assert set(reply) == {"type", "job", "content", "lastAssistantMessage"}, reply
    return reply


def agent_code(m: Mytty, *args: str) -> str:
    """An ``agent …`` command that must fail; returns the error code."""
    result: CtlResult = m.ctl("agent", *args)
    return result.code


# -- what the stand-ins recorded -------------------------------------------------------------------


@dataclass(frozen=True)
class StandinRun:
    """One stand-in process as it recorded itself."""

    name: str
    pid: int
    argv: list[str]
    cwd: str
    env: dict[str, str]

    @property
    def pane_id(self) -> str | None:
        return self.env.get("MYTTY_SURFACE_ID")

    @property
    def task(self) -> str:
        """The prompt: the argv element after ``--``."""
        assert "--" in self.argv, self.argv
        return self.argv[self.argv.index("--") + 1]


def standin_runs(m: Mytty) -> list[StandinRun]:
    out = []
    for path in sorted(m.standin_dir.glob("*.json")):
        match = re.fullmatch(r"(.+)\.(\d+)\.json", path.name)
        if match is None:
            continue
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue  # still being written
        out.append(
            StandinRun(
                match.group(1),
                int(match.group(2)),
                list(data["argv"]),
                data["cwd"],
                dict(data.get("env") or {}),
            )
        )
    return out


def standins_in(m: Mytty, pane_id: str, name: str | None = None) -> list[StandinRun]:
    return [r for r in standin_runs(m) if r.pane_id == pane_id and (name is None or r.name == name)]


def standin_in(
    m: Mytty, pane_id: str, name: str | None = None, timeout: float = 30.0
) -> StandinRun:
    """The (single) stand-in that started in ``pane_id``, waiting for it to record itself."""
    runs = wait_until(
        lambda: standins_in(m, pane_id, name),
        timeout,
        message=f"a stand-in {name or ''} to start in pane {pane_id}",
    )
    assert len(runs) == 1, runs
    return runs[0]


def expected_argv(
    provider: str, mode_flags: list[str], task: str, model: str | None = None
) -> list[str]:
    """A worker's argv after the binary, per semantics §5.2 (the task ends with the contract)."""
    argv: list[str] = ["--no-daemon"] if provider == "codex" else []  # no shared server
    if model is not None:
        argv += ["-m" if provider == "codex" else "--model", model]
    argv += mode_flags
    if provider == "claude":
        argv += ["--teammate-mode", "in-process"]
    return [*argv, "--", task + "\n" + worker_contract()]


# -- git -------------------------------------------------------------------------------------------


def git(cwd: str | Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=False, timeout=30
    )
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def new_repo(path: Path) -> Path:
    """A git repository with one commit on ``main``."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "t@example.invalid")
    git(path, "config", "user.name", "t")
    (path / "README").write_text("hello\n")
    git(path, "add", "README")
    git(path, "commit", "-q", "-m", "init")
    return path
