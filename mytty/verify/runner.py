"""``mytty integrations verify``: which lifecycle transitions an installed agent's hooks deliver.

Agents change their hooks between versions, and a state detector that trusted last month's
hooks goes quietly wrong. This runs the user's own agent binary, offline, against the bundled
loopback mock model (never the real API, no tokens spent), in a throw-away world: a temporary
HOME with mytty's hooks installed by the same installer ``enable`` uses, a private tmux server,
a private controller. It drives a few scripted turns through mytty's own commands and reads the
controller's event ledger to see, for each transition, whether a hook delivered it, native
estimation covered it, or nothing did.

Nothing of the user's is touched: the agents' HOME, CODEX_HOME and MYTTY_HOME all point into the
throw-away directory, which is removed afterwards. Every connection the agents attempt that is
not to 127.0.0.1 goes to a refusing proxy and is reported.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mytty.core.events import AgentProvider
from mytty.integrations import api
from mytty.tmux import throwaway
from mytty.verify.mock_api import DenyProxy, MockAPI, Turn
from mytty.verify.sandbox import NO_SWITCH, agent_env, write_claude_state, write_codex_config

#: The provider's executable and the worker provider name ``agent spawn`` takes.
BINARIES: Mapping[AgentProvider, tuple[str, str]] = {
    AgentProvider.CLAUDE_CODE: ("claude", "claude"),
    AgentProvider.CODEX: ("codex", "codex"),
}
#: The rows of the coverage table, in order.
TRANSITIONS = ("started", "approval", "input", "succeeded", "failed", "interrupt", "subagent")
ANSWER = "Verified: the mock model's answer."
RECORD_FILE = "verified.json"
TURN_TIMEOUT_S = 90.0
#: An API error ends a turn at once where the hooks report it; waiting longer proves nothing.
FAILURE_TIMEOUT_S = 40.0


@dataclass(frozen=True, slots=True)
class Coverage:
    """How one transition reached mytty in this run."""

    transition: str
    outcome: str  # "hook", "native", "missing" or "not-driven"
    detail: str = ""


@dataclass(slots=True)
class VerifyReport:
    provider: AgentProvider
    binary: str
    version: str
    rows: list[Coverage] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.leaks and not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider.value,
            "binary": self.binary,
            "version": self.version,
            "coverage": {
                r.transition: {"outcome": r.outcome, "detail": r.detail} for r in self.rows
            },
            "nonLoopbackAttempts": self.leaks,
            "problems": self.problems,
            "ok": self.ok,
        }


class VerifyError(Exception):
    """Verification could not run at all (no binary, no tmux, the controller failed)."""


def agent_version(binary: str) -> str:
    try:
        out = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise VerifyError(f"{binary} --version failed: {exc}") from None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else "unknown"


# -- the throw-away world ------------------------------------------------------------------------


class Sandbox:
    """A temporary HOME, a private tmux server and controller, and the loopback mocks."""

    def __init__(self, *, binary: str, mytty_bin: str, ctl_bin: str, tmux: str) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="mtv", dir="/tmp"))
        self.home = self.root / "home"
        self.bin = self.root / "bin"
        self.work = self.root / "work"
        for path in (self.home, self.bin, self.work):
            path.mkdir()
        self.socket = str(self.root / "tmux.sock")
        self.mytty_bin, self.ctl_bin, self.tmux_bin = mytty_bin, ctl_bin, tmux
        (self.bin / Path(binary).name).symlink_to(binary)
        self.anthropic, self.openai, self.proxy = (
            MockAPI("anthropic"),
            MockAPI("openai"),
            DenyProxy(),
        )
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("MYTTY_", "TMUX", "CODEX_", "CLAUDE", "ANTHROPIC", "OPENAI"))
        }
        self.env = {
            **base,
            "HOME": str(self.home),
            "MYTTY_HOME": str(self.root / "m"),
            "CODEX_HOME": str(self.home / ".codex"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "PATH": f"{self.bin}:{Path(mytty_bin).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "SHELL": "/bin/bash",
            "TERM": "xterm-256color",
            **agent_env(self.anthropic, self.openai, self.proxy),
        }
        # Debian's /etc/profile resets PATH for the login shells tmux starts.
        (self.home / ".profile").write_text(f'export PATH="{self.bin}:$PATH"\n')
        self._git("init", "-q", "-b", "main")
        (self.work / "README").write_text("mytty verify\n")
        self._git("add", "README")
        self._git(
            "-c", "user.email=v@example.invalid", "-c", "user.name=v", "commit", "-qm", "init"
        )
        self.controller: subprocess.Popen[bytes] | None = None

    def _git(self, *args: str) -> None:
        subprocess.run(["git", *args], cwd=self.work, env=self.env, check=True, capture_output=True)

    def prepare_agent(self, provider: AgentProvider, version: str) -> None:
        write_claude_state(self.home, self.work, version.split()[0])
        write_codex_config(self.home / ".codex", self.work, self.openai)
        try:
            api.enable(provider, self.env, warnings=[])
        except Exception as exc:  # noqa: BLE001 - any installer failure is one line of the report
            raise VerifyError(f"could not install the hooks in the sandbox: {exc}") from None

    def start(self) -> None:
        try:
            throwaway.start_server(
                self.tmux_bin, self.socket, self.env, session="verify", width=200, height=50
            )
        except (OSError, subprocess.SubprocessError, throwaway.ThrowawayServerError) as exc:
            raise VerifyError(f"could not start a private tmux server: {exc}") from None
        read_fd, write_fd = os.pipe()
        log = open(self.root / "controller.log", "ab")  # noqa: SIM115 - closed right after
        self.controller = subprocess.Popen(
            [self.mytty_bin, "serve", "--tmux-socket", self.socket, "--ready-fd", str(write_fd)],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            pass_fds=(write_fd,),
            cwd=str(self.home),
        )
        log.close()
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as pipe:
            ready, _, _ = select.select([pipe], [], [], 30)
            line = pipe.readline().decode().strip() if ready else ""
        if line != "ready":
            raise VerifyError(f"the sandbox controller did not start: {self.log_tail()}")

    def log_tail(self) -> str:
        try:
            lines = (self.root / "controller.log").read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(lines[-3:]) or "(empty log)"

    def ctl(self, *args: str, timeout: float = 30.0) -> dict[str, Any]:
        out = subprocess.run(
            [self.ctl_bin, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if out.returncode != 0:
            raise VerifyError(f"mytty-ctl {args[0]}: {out.stderr.strip()}")
        reply: dict[str, Any] = json.loads(out.stdout)
        return reply

    def leaks(self, provider: str) -> list[str]:
        allowed = NO_SWITCH.get(provider, set())
        return sorted({r.target for r in self.proxy.refused if r.target not in allowed})

    def close(self) -> None:
        if self.controller is not None and self.controller.poll() is None:
            self.controller.terminate()
            try:
                self.controller.wait(10)
            except subprocess.TimeoutExpired:
                self.controller.kill()
                self.controller.wait()
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            throwaway.kill_server(self.tmux_bin, self.socket, self.env)
        for server in (self.anthropic, self.openai, self.proxy):
            server.close()
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def sandbox(**kwargs: str) -> Iterator[Sandbox]:
    box = Sandbox(**kwargs)
    try:
        yield box
    finally:
        box.close()


# -- driving turns ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Observed:
    """What the ledger showed for one job's pane: (kind, synthesized) in order."""

    records: list[tuple[str, bool]] = field(default_factory=list)
    max_subagents: int = 0

    def first(self, kinds: set[str]) -> tuple[str, bool] | None:
        return next((r for r in self.records if r[0] in kinds), None)


def _deadline_loop(timeout: float) -> Iterator[float]:
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        yield left


class Driver:
    """One turn at a time through ``mytty-ctl``, following the ledger as it grows."""

    def __init__(self, box: Sandbox, provider: AgentProvider, worker: str) -> None:
        self.box, self.provider, self.worker = box, provider, worker
        self.after = int(box.ctl("events")["latestSequence"])
        anchor = box.ctl("new-tab", "--cwd", str(box.work))["paneID"]
        self.anchor = str(anchor)

    def spawn(self, task: str, *, inherit_from: str | None = None) -> tuple[str, str]:
        """Start a worker (inheriting the mode of the lead in ``inherit_from``, when given);
        returns (job id, pane id)."""
        access = ["--access", "inherit"] if inherit_from is not None else []
        job = self.box.ctl(
            "agent",
            "spawn",
            "--provider",
            self.worker,
            "--task",
            task,
            "--anchor",
            inherit_from or self.anchor,
            "--cwd",
            str(self.box.work),
            *access,
        )["job"]
        return str(job["jobID"]["rawValue"]), str(job["paneID"]["rawValue"]).upper()

    def follow(
        self,
        pane: str,
        observed: Observed,
        until: Callable[[Observed], bool],
        timeout: float,
        *,
        poll: int = 10,
    ) -> bool:
        """Read the ledger (long-polling, no sleeps) until ``until`` holds or time runs out.

        ``poll``: the longest a long poll waits; each return also samples the pane's live
        subagents (a subagent's start changes no run state, so no record says it)."""
        for left in _deadline_loop(timeout):
            page = self.box.ctl(
                "events",
                "--after",
                str(self.after),
                "--timeout",
                str(max(1, min(poll, int(left)))),
                timeout=left + 15,
            )
            self.after = int(page["latestSequence"])
            for record in page["records"]:
                if str(record.get("paneID", "")).upper() == pane:
                    observed.records.append((str(record["kind"]), bool(record["synthesized"])))
            observed.max_subagents = max(observed.max_subagents, self._live_subagents(pane))
            if until(observed):
                return True
        return until(observed)

    def _live_subagents(self, pane: str) -> int:
        for entry in self.box.ctl("list")["panes"]:
            if str(entry.get("paneID", "")).upper() == pane:
                return int(entry.get("liveSubagents") or 0)
        return 0

    def close(self, job: str) -> None:
        with contextlib.suppress(VerifyError):
            self.box.ctl("agent", "close", job)


def _screen(box: Sandbox, pane: str) -> str:
    try:
        return str(box.ctl("read", pane)["content"]["text"])
    except VerifyError:
        return ""


def _wait_for(condition: Callable[[], bool], timeout: float) -> bool:
    for _ in _deadline_loop(timeout):
        if condition():
            return True
        time.sleep(0.1)  # the mock's request log has no change signal
    return condition()


TERMINAL = {"succeeded", "failed", "disconnected"}
ENDED = TERMINAL | {"idle"}


def _outcome(record: tuple[str, bool] | None) -> str:
    if record is None:
        return "missing"
    return "native" if record[1] else "hook"


def drive(box: Sandbox, provider: AgentProvider) -> list[Coverage]:
    """Drive each scripted turn in order; the coverage rows in :data:`TRANSITIONS` order."""
    d = Driver(box, provider, BINARIES[provider][1])
    mock = box.anthropic if provider is AgentProvider.CLAUDE_CODE else box.openai
    rows: dict[str, Coverage] = {}
    for step in (_plain_turn, _approval, _input, _failed_turn, _interrupt, _subagent):
        rows.update((row.transition, row) for row in step(d, mock))
    return [rows[name] for name in TRANSITIONS]


def _plain_turn(d: Driver, mock: MockAPI) -> list[Coverage]:
    """A plain turn: started, succeeded."""
    mock.script(Turn.answer(ANSWER))
    job, pane = d.spawn("Say hello.")
    seen = Observed()
    d.follow(pane, seen, lambda o: o.first(TERMINAL) is not None, TURN_TIMEOUT_S)
    end = seen.first(TERMINAL)
    rows = [
        Coverage("started", _outcome(seen.first({"started"}))),
        Coverage(
            "succeeded",
            _outcome(end) if end and end[0] == "succeeded" else "missing",
            "" if end else "the plain turn never ended",
        ),
    ]
    d.close(job)
    return rows


def _approval(d: Driver, mock: MockAPI) -> list[Coverage]:
    """An approval: a writing command the default access does not allow by itself."""
    box, codex = d.box, d.provider is AgentProvider.CODEX
    target = box.work / "verify_approval"
    mock.script(Turn.shell(f"python3 -c \"open('{target}', 'w').write('ok')\"", escalate=codex))
    lead = None
    if codex:
        # mytty starts Codex workers with -a never unless they inherit a lead's policy: a
        # lead started with -a on-request makes its worker ask before an escalated command.
        lead = str(
            box.ctl("new-tab", "--cwd", str(box.work), "--command", "codex -a on-request")["paneID"]
        )
        _wait_for(lambda: "OpenAI Codex" in _screen(box, lead), 60)
    job, pane = d.spawn("Write the file.", inherit_from=lead)
    seen = Observed()
    d.follow(pane, seen, lambda o: o.first({"approval-requested"} | TERMINAL) is not None, 60)
    asked = seen.first({"approval-requested"})
    detail = "a worker inheriting its lead's -a on-request" if lead is not None else ""
    row = Coverage("approval", _outcome(asked), detail if asked else "no approval event arrived")
    d.close(job)
    if lead is not None:
        with contextlib.suppress(VerifyError):
            box.ctl("close-pane", lead)
    return [row]


def _input(d: Driver, mock: MockAPI) -> list[Coverage]:
    """Input: the model asks the user a question (Claude's AskUserQuestion tool)."""
    if d.provider is not AgentProvider.CLAUDE_CODE:
        return [Coverage("input", "not-driven", "the bundled mock does not script Codex questions")]
    mock.script(Turn.ask("Which option should I take?"))
    job, pane = d.spawn("Ask me which option to take.")
    seen = Observed()
    d.follow(pane, seen, lambda o: o.first({"input-requested"} | TERMINAL) is not None, 60)
    asked = seen.first({"input-requested"})
    row = Coverage("input", _outcome(asked), "" if asked else "no input event arrived")
    d.close(job)
    return [row]


def _failed_turn(d: Driver, mock: MockAPI) -> list[Coverage]:
    """A failed turn: the API answers an error."""
    mock.script(Turn.error(400, "verify: scripted API error"))
    job, pane = d.spawn("Say hello.")
    seen = Observed()
    d.follow(pane, seen, lambda o: o.first(TERMINAL) is not None, FAILURE_TIMEOUT_S)
    end = seen.first(TERMINAL)
    row = Coverage(
        "failed",
        _outcome(end) if end and end[0] == "failed" else "missing",
        f"the run ended {end[0]}" if end and end[0] != "failed" else "",
    )
    d.close(job)
    return [row]


def _interrupt(d: Driver, mock: MockAPI) -> list[Coverage]:
    """An interrupt: Esc while the model is still thinking."""
    mock.script(Turn.answer(ANSWER, delay=20))
    asked_before = len(mock.requests)
    job, pane = d.spawn("Say hello slowly.")
    seen = Observed()
    d.follow(pane, seen, lambda o: o.first({"started", "running"}) is not None, 60)
    before = len(seen.records)
    # Esc must land while the model is thinking: wait for the turn's request to reach the mock.
    _wait_for(
        lambda: any(
            r.body and isinstance(r.body, dict) and r.body.get("tools")
            for r in mock.requests[asked_before:]
        ),
        30,
    )
    d.box.ctl("send-key", pane, "escape")
    d.follow(pane, seen, lambda o: any(k in ENDED for k, _ in o.records[before:]), 20)
    after = next(((k, s) for k, s in seen.records[before:] if k in ENDED), None)
    row = Coverage("interrupt", _outcome(after), f"ended {after[0]}" if after else "")
    d.close(job)
    return [row]


def _subagent(d: Driver, mock: MockAPI) -> list[Coverage]:
    """A subagent (Claude's Agent tool, Codex's spawn_agent): the job stays running while it
    works."""
    mock.script(Turn.subagent(ANSWER, delay=4))
    job, pane = d.spawn("Use a subagent.")
    seen = Observed()
    d.follow(pane, seen, lambda o: o.first(TERMINAL) is not None, TURN_TIMEOUT_S, poll=1)
    row = Coverage(
        "subagent",
        "hook" if seen.max_subagents >= 1 else "missing",
        f"live subagents seen: {seen.max_subagents}"
        + (
            "" if seen.max_subagents else f"; the run went {' → '.join(k for k, _ in seen.records)}"
        ),
    )
    d.close(job)
    return [row]


def verify(
    provider: AgentProvider, *, mytty_bin: str, ctl_bin: str, path: str | None = None
) -> VerifyReport:
    """Run the whole verification for one provider. Raises VerifyError when it cannot run."""
    if provider not in BINARIES:
        raise VerifyError(f"verify supports {', '.join(p.value for p in BINARIES)}")
    name, worker = BINARIES[provider]
    binary = shutil.which(name, path=path)
    if binary is None:
        raise VerifyError(f"no {name} executable on PATH: install the agent first")
    tmux = shutil.which("tmux", path=path)
    if tmux is None:
        raise VerifyError("tmux is not installed")
    version = agent_version(binary)
    report = VerifyReport(provider, binary, version)
    with sandbox(binary=binary, mytty_bin=mytty_bin, ctl_bin=ctl_bin, tmux=tmux) as box:
        box.prepare_agent(provider, version)
        box.start()
        report.rows = drive(box, provider)
        report.leaks = box.leaks(worker)
    if report.leaks:
        report.problems.append("the agent tried to reach hosts other than 127.0.0.1")
    return report


def record(mytty_home: Path, report: VerifyReport, at: str) -> None:
    """Keep the last verified version per provider (``integrations list`` and doctor read it)."""
    path = mytty_home / RECORD_FILE
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[report.provider.value] = {"version": report.version, "verifiedAt": at, **report.to_json()}
    mytty_home.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def last_verified(mytty_home: Path) -> dict[str, str]:
    """provider → the agent version last verified (empty when never)."""
    try:
        data = json.loads((mytty_home / RECORD_FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(k): str(v.get("version"))
        for k, v in data.items()
        if isinstance(v, dict) and isinstance(v.get("version"), str)
    }
