"""The truth soak's driver (scripts/bench/truth): many stand-in agents on a real controller and a
private tmux server, a scripted human, chaos, and mytty's view sampled against what the
stand-ins logged. The comparison itself is :mod:`tests.bench.truth_model` (pure).

One process, three threads: the director (main thread: lifecycles, the human, chaos), the
sampler (every ``--sample-ms``: ``listAgents`` with ``allLeads`` over the control socket, the
request ``mytty-ctl agent list --all`` sends, and ``@mytty_state`` of every pane from one
``tmux list-panes``) and the resource sampler (the controller's CPU and RSS from /proc, once a
second). Every time is CLOCK_MONOTONIC.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.bench import truth_model as tm
from tests.e2e.jobs_support import enable_integrations
from tests.standins.test_standins_limits import GATEWAY_JWT
from tests.support.harness import MYTTY, MYTTY_CTL, TMUX, Mytty

BINARY = {"claude": "claude", "codex": "codex", "cursor": "cursor-agent"}
#: The rule the scripted human wrote: every request of a job labelled ``ruled-*`` is allowed.
CONFIG = """[approvals]
hold_seconds = 15

[limits]
resume_margin_seconds = 1
stagger_seconds = 1

[[approvals.rule]]
name = "truth soak"
action = "allow"
label = "ruled-*"
"""


@dataclass
class Options:
    agents: int = 200
    minutes: float = 30.0
    seed: int = 1
    sample_ms: int = 250
    unhooked: tuple[str, ...] = ("codex",)
    out: Path = Path("scripts/bench/results")
    name: str = "truth"
    controller_kills: int = 3
    pane_kills: int = 5
    server_kill: bool = True


@dataclass
class Agent:
    slot: int
    provider: str
    hooked: bool
    label: str
    job: str = ""
    born: float = 0.0
    retired: float | None = None
    harness: list[tm.Change] = field(default_factory=list)  # the human's and the chaos's acts
    files: list[Path] = field(default_factory=list)
    state: str | None = None  # the latest truth of its newest process
    line: str = ""  # its newest process's last screen line
    kind: str = ""  # what the current turn was asked to do
    next_at: float = 0.0
    pending: str | None = None  # an action under way
    answer_at: float | None = None
    queued_at: float | None = None
    resuming: bool = False
    #: A usage-limit turn: when mytty should have continued it (the reset plus the margin).
    park_due: float | None = None
    #: Its waits whose ``agent result`` is not read yet: like a lead blocked in ``agent wait``,
    #: the director sends the next prompt only once it has the answer.
    results_due: int = 0

    @property
    def live(self) -> bool:
        return self.retired is None


@dataclass
class WaitRun:
    agent: Agent
    started: float
    proc: subprocess.Popen[str]
    timeout: float
    woke: float | None = None  # when the process exited (the reaper thread's reading)
    due: bool = False  # counted in its agent's results_due until it is finished


class Sampler(threading.Thread):
    """mytty's view every interval: per job (state, pane) and per pane ``@mytty_state``,
    kept as changes only (a 200-agent, 30-minute run is 1.4 M readings)."""

    def __init__(self, m: Mytty, interval: float) -> None:
        super().__init__(daemon=True)
        self.m, self.interval = m, interval
        self.stop = threading.Event()
        self.times: list[float] = []
        self.jobs_up: list[bool] = []
        self.tmux_up: list[bool] = []
        self.jobs: dict[str, list[tuple[int, str]]] = {}  # job → (sample index, state)
        self.tmux: dict[str, list[tuple[int, str]]] = {}  # job → (sample index, @mytty_state)
        self.pane_of: dict[str, str] = {}  # job → its pane now
        self.job_of_pane: dict[str, str] = {}  # every pane ever seen → its job
        self.snapshots: dict[str, dict[str, Any]] = {}
        self.cost_s = 0.0

    def run(self) -> None:
        next_at = time.monotonic()
        while not self.stop.is_set():
            started = time.monotonic()
            self.sample()
            self.cost_s += time.monotonic() - started
            next_at += self.interval
            self.stop.wait(max(0.0, next_at - time.monotonic()))
            next_at = max(next_at, time.monotonic() - self.interval)

    def sample(self) -> None:
        t0 = time.monotonic()
        try:
            reply = self.m.request({"type": "listAgents", "allLeads": True}, timeout=5)
            jobs = reply.get("jobs") if reply.get("type") == "agentJobs" else None
        except (OSError, ValueError):
            jobs = None
        t1 = time.monotonic()
        out = subprocess.run(
            [
                TMUX,
                "-S",
                self.m.socket,
                "list-panes",
                "-a",
                "-F",
                "#{@mytty_surface} #{@mytty_state}",
            ],
            capture_output=True,
            text=True,
            check=False,
            env=self.m.env,
        )
        t2 = time.monotonic()
        index = len(self.times)
        self.times.append((t0 + t2) / 2)
        self.jobs_up.append(jobs is not None)
        self.tmux_up.append(out.returncode == 0)
        if jobs is not None:
            for job in jobs:
                jid = _raw(job.get("jobID"))
                pane = _raw(job.get("paneID"))
                if not jid:
                    continue
                self.snapshots[jid] = job
                if pane:
                    self.pane_of[jid] = pane
                    self.job_of_pane.setdefault(pane, jid)
                _note(self.jobs.setdefault(jid, []), index, str(job.get("state")))
        del t1
        if out.returncode == 0:
            states = dict(
                line.split(" ", 1) for line in out.stdout.splitlines() if " " in line.strip()
            )
            for jid, pane in self.pane_of.items():
                _note(self.tmux.setdefault(jid, []), index, states.get(pane, "absent") or "absent")

    def samples(self, job: str, view: str, start: float, end: float) -> list[tm.Sample]:
        """The job's readings in [start, end] (None where that view could not be read)."""
        changes = (self.jobs if view == "jobs" else self.tmux).get(job, [])
        up = self.jobs_up if view == "jobs" else self.tmux_up
        out: list[tm.Sample] = []
        ci, shown = 0, "absent"
        for i, t in enumerate(self.times):
            while ci < len(changes) and changes[ci][0] <= i:
                shown = changes[ci][1]
                ci += 1
            if start <= t <= end:
                out.append(tm.Sample(t, shown if up[i] else tm.UNAVAILABLE))
        return out


def _note(changes: list[tuple[int, str]], index: int, state: str) -> None:
    if not changes or changes[-1][1] != state:
        changes.append((index, state))


def _raw(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("rawValue")
    return value if isinstance(value, str) else None


class Resources(threading.Thread):
    """The controller's CPU (percent of one core) and RSS, once a second, from /proc."""

    def __init__(self, socket: str) -> None:
        super().__init__(daemon=True)
        self.socket = socket
        self.stop = threading.Event()
        self.cpu: list[float] = []
        self.rss_mb: list[float] = []
        self.load: list[float] = []

    def run(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        last: tuple[int, float, float] | None = None
        while not self.stop.wait(1.0):
            self.load.append(os.getloadavg()[0])
            pid = controller_pid(self.socket)
            if pid is None:
                last = None
                continue
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                last = None
                continue
            used = (int(fields[11]) + int(fields[12])) / tick
            now = time.monotonic()
            if last is not None and last[0] == pid:
                self.cpu.append(100 * (used - last[1]) / max(1e-6, now - last[2]))
            last = (pid, used, now)
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    self.rss_mb.append(int(line.split()[1]) / 1024)


def controller_pid(socket: str) -> int | None:
    """The ``mytty serve`` process on this tmux socket (the harness's, or one ``mytty resume``
    started)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in cmdline and socket.encode() in cmdline:
            return int(entry)
    return None


class Soak:
    """One run: set up, drive for ``minutes``, tear down, and the raw material for the report."""

    def __init__(self, options: Options) -> None:
        self.o = options
        self.rng = random.Random(options.seed)
        # The gateway login: a Claude stand-in meets a usage limit as a subscriber does (with a
        # reset time that mytty parks until; tests/e2e/test_usage_limits_e2e.py).
        self.m = Mytty(extra_env={"MYTTY_STANDIN_TRUTH": "1", **CLAUDE_GATEWAY})
        self.agents: list[Agent] = []
        self.by_job: dict[str, Agent] = {}
        self.offsets: dict[Path, int] = {}
        self.file_agent: dict[Path, Agent] = {}
        self.file_rows: dict[Path, list[dict[str, Any]]] = {}
        self.waits: list[WaitRun] = []
        self.wait_records: list[tuple[tm.Wait, bool]] = []  # (wait, hooked)
        #: job, wait start, when it woke, the result's message
        self.results: list[tuple[str, float, float, str | None]] = []
        self.events: list[dict[str, Any]] = []  # chaos and notable acts, for the report
        self.counts: dict[str, int] = {}
        self.pool = ThreadPoolExecutor(max_workers=6 if options.agents <= 50 else 12)
        self.sampler = Sampler(self.m, options.sample_ms / 1000)
        self.resources = Resources(self.m.socket)
        self.started = 0.0
        self.ended = 0.0
        self.paused_until = 0.0  # no new actions while the tmux server is being replaced
        self.lock = threading.Lock()

    # -- setup ----------------------------------------------------------------------------------
    def setup(self) -> None:
        self.m.mytty_home.mkdir(mode=0o700, parents=True)
        (self.m.mytty_home / "config.toml").write_text(CONFIG)
        self.m.start(timeout=60)
        self.m.install_standins(*BINARY.values())
        hooked = [p for p in BINARY if p not in self.o.unhooked]
        enable_integrations(self.m, *hooked)

    def act(self, agent: Agent, go: Callable[[], None]) -> None:
        """Run one of the director's actions for ``agent`` in the pool. Whatever happens in it,
        the agent is free again afterwards (an exception once left it ``pending`` for good, and
        the director never acted on it again: seen in the 200-agent run)."""

        def run() -> None:
            try:
                go()
            except Exception as exc:  # noqa: BLE001 - counted; the soak goes on
                self.count(f"actionFailed:{type(exc).__name__}")
            finally:
                agent.pending = None

        self.pool.submit(run)

    def count(self, name: str) -> None:
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + 1

    def ctl(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """``mytty-ctl`` with a timeout; one that runs out reads as a failure (exit 124), so an
        action in the pool always ends and frees its agent (a raised TimeoutExpired left the
        agent ``pending`` for good: the director never acted on it again)."""
        try:
            return subprocess.run(
                [MYTTY_CTL, *args],
                env=self.m.env,
                cwd=str(self.m.home),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            self.count("ctlTimedOut")
            return subprocess.CompletedProcess([MYTTY_CTL, *args], 124, "", "timed out")

    def new_agent(self, slot: int) -> Agent:
        providers = list(BINARY)
        provider = providers[self.rng.randrange(len(providers))]
        hooked = provider not in self.o.unhooked
        ruled = hooked and provider != "cursor" and self.rng.random() < 0.15
        label = f"{'ruled-' if ruled else ''}s{slot:03d}-{len(self.agents)}"
        agent = Agent(slot, provider, hooked, label)
        self.agents.append(agent)
        return agent

    def spawn(self, agent: Agent) -> None:
        kind, task = self.choose_turn(agent, first=True)
        agent.kind = kind
        agent.pending = "spawn"
        work = self.m.root / "work" / agent.label
        work.mkdir(parents=True, exist_ok=True)

        def go() -> None:
            out = self.ctl(
                "agent", "spawn", "--provider", agent.provider, "--label", agent.label,
                "--cwd", str(work), "--access", "workspace-write", "--task", task,
            )  # fmt: skip
            try:
                job = json.loads(out.stdout)["job"]
            except (ValueError, KeyError):
                self.count("spawnFailed")
                agent.retired = time.monotonic()
                agent.pending = None
                return
            agent.job = _raw(job.get("jobID")) or ""
            agent.born = time.monotonic()
            with self.lock:
                self.by_job[agent.job] = agent
                pane = _raw(job.get("paneID"))
                if pane:
                    self.sampler.job_of_pane[pane] = agent.job
            agent.pending = None
            agent.next_at = time.monotonic() + 1.0
            self.count("spawned")

        self.act(agent, go)

    # -- the lifecycle ----------------------------------------------------------------------------
    def choose_turn(self, agent: Agent, first: bool = False) -> tuple[str, str]:
        """A turn kind and its prompt, at random by weight (seeded)."""
        r = self.rng
        kinds: list[tuple[str, float]] = [
            ("short", 30), ("long", 14), ("approve", 12), ("ask", 8), ("fail", 6),
            ("queued", 6),
        ]  # fmt: skip
        if agent.provider in ("claude", "codex"):
            kinds.append(("hold", 5))
        if agent.provider == "claude":
            kinds.append(("background", 4))
        if not first:
            kinds += [("exit", 1.5), ("crash", 1.0)]
        kinds += [(k, w) for k, w in plugin_turns(agent) if not first]
        kind = r.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        sleep = {
            "short": r.uniform(0.2, 2.0),
            "long": r.uniform(8, 45),
            "queued": r.uniform(3, 8),
            "fail": r.uniform(0.3, 3),
            "crash": r.uniform(0.5, 3),
        }.get(kind, r.uniform(0.2, 1.5))
        body = {
            "approve": f"sleep {sleep:.2f}; approve",
            "ask": f"sleep {sleep:.2f}; ask",
            "fail": f"sleep {sleep:.2f}; fail",
            "hold": "hold",
            "background": f"background {r.uniform(2, 10):.1f}",
            "exit": f"sleep {sleep:.2f}; exit",
            "crash": f"sleep {sleep:.2f}; crash",
        }.get(kind, f"sleep {sleep:.2f}")
        return kind, f"@standin: {body}"

    def tick(self, now: float) -> None:
        """One pass of the director over every live agent."""
        self.read_truth()
        for agent in list(self.agents):
            if not agent.live or agent.pending or not agent.job or agent.resuming:
                continue
            self.step(agent, now)
        self.reap_waits(now)

    def step(self, agent: Agent, now: float) -> None:
        state = agent.state
        if agent.park_due is not None and state not in (tm.PARKED, tm.PROMPTED):
            if state == tm.RUNNING:  # mytty's continuation (or Claude's own) began the turn
                self.count("parkContinued")
            agent.park_due = None
        if state == tm.PARKED:  # mytty continues it after the reset; nobody else acts
            if agent.park_due is not None and now > agent.park_due + PARK_GRACE_S:
                self.count("parkNotContinued")
                agent.park_due = None
            return
        if state in (tm.EXITED, tm.CRASHED, tm.KILLED):
            if now >= agent.next_at:
                self.retire(agent, now, "ended")
            return
        if state == tm.WAITING_APPROVAL:
            if agent.answer_at is None:
                agent.answer_at = now + self.rng.uniform(0.5, 6)
            elif now >= agent.answer_at and not agent.label.startswith("ruled-"):
                self.answer_approval(agent)
            return
        if state == tm.WAITING_INPUT:
            if agent.answer_at is None:
                agent.answer_at = now + self.rng.uniform(0.5, 6)
            elif now >= agent.answer_at:
                agent.answer_at = None
                # The truth is the moment the human answers: before the keys reach the agent.
                agent.harness.append(tm.Change(time.monotonic(), tm.RUNNING))
                self.keys(agent, "blue", "Enter")
                self.count("answeredQuestion")
            return
        if state == tm.RUNNING:
            if agent.kind != "hold":
                agent.answer_at = None
            self.while_running(agent, now)
            return
        agent.answer_at = None
        if state in (tm.SUCCEEDED, tm.FAILED, tm.INTERRUPTED, tm.IDLE) and now >= agent.next_at:
            if agent.queued_at is not None:
                return  # the queued prompt is on its way
            if agent.results_due:
                return  # its lead reads the answer first
            self.next_turn(agent, now)

    def while_running(self, agent: Agent, now: float) -> None:
        holding = agent.kind == "hold" and agent.line.startswith("STANDIN holding")
        if holding and agent.answer_at is None:
            agent.answer_at = now + self.rng.uniform(1, 8)
        if agent.kind == "hold" and agent.answer_at is not None and now >= agent.answer_at:
            agent.answer_at = None
            agent.kind = "held"
            self.keys(agent, "Escape")
            self.count("esc")
        if agent.kind == "queued" and agent.queued_at is not None and now >= agent.queued_at:
            agent.queued_at = None
            agent.kind = "short"
            self.send(agent, f"@standin: sleep {self.rng.uniform(0.2, 2):.2f}", wait=False)
            self.count("queuedPrompt")

    def next_turn(self, agent: Agent, now: float) -> None:
        r = self.rng
        if r.random() < 0.015:
            self.close(agent)
            return
        kind, prompt = self.choose_turn(agent)
        agent.kind = kind
        agent.next_at = now + r.uniform(0.5, 6)
        if kind == "queued":
            agent.queued_at = now + r.uniform(1.0, 2.5)
        plugin = PLUGINS.get(kind)
        if plugin is not None:
            plugin(self, agent)
            return
        wait = kind not in ("exit", "crash") and r.random() < 0.3
        self.send(agent, prompt, wait=wait, prompted=True)
        self.count(f"turn:{kind}")

    def send(self, agent: Agent, text: str, *, wait: bool, prompted: bool = False) -> None:
        """``agent send`` in the pool; ``prompted``: the worker is between turns, so from the
        moment the send starts its job is right to read ``launching`` (tm.PROMPTED)."""
        agent.pending = "send"

        def go() -> None:
            t = time.monotonic()
            out = self.ctl("agent", "send", agent.job, text, "--enter")
            if out.returncode != 0:
                self.count("sendFailed")
                agent.pending = None
                return
            if prompted:
                agent.harness.append(tm.Change(t, tm.PROMPTED))
            if wait:
                self.start_wait(agent)
            agent.pending = None

        self.act(agent, go)

    def keys(self, agent: Agent, *keys: str) -> None:
        pane = self.sampler.pane_of.get(agent.job)
        if pane is None:
            return
        target = self.tmux_target(pane)
        if target:
            self.m.tmux("send-keys", "-t", target, *keys, check=False)

    def tmux_target(self, surface: str) -> str | None:
        out = self.m.tmux("list-panes", "-a", "-F", "#{pane_id} #{@mytty_surface}", check=False)
        for line in out.splitlines():
            tid, _, s = line.partition(" ")
            if s == surface:
                return tid
        return None

    def answer_approval(self, agent: Agent) -> None:
        """The scripted human: keys on the dialog, or ``mytty approve``/``deny``."""
        agent.answer_at = None
        agent.pending = "answer"
        method = "keys"
        if agent.hooked and agent.provider in ("claude", "codex"):
            method = self.rng.choices(["keys", "approve", "deny"], [1, 3, 1])[0]
            if agent.provider == "codex" and method == "keys":
                method = "approve"  # Codex shows no dialog while its hook holds
        key = {"claude": "1", "codex": "y"}.get(agent.provider)

        def go() -> None:
            done = False
            if method != "keys":
                done = self.answer_by_cli(agent, method)
            if not done:
                agent.harness.append(tm.Change(time.monotonic(), tm.RUNNING))
                if key is None:
                    self.keys(agent, "y", "Enter")
                else:
                    self.keys(agent, key)
            self.count(f"approval:{method if done else 'keys'}")
            agent.pending = None
            agent.next_at = time.monotonic() + 1.0

        self.act(agent, go)

    def answer_by_cli(self, agent: Agent, method: str) -> bool:
        try:
            reply = self.m.request({"type": "listApprovals"}, timeout=10)
        except (OSError, ValueError):
            return False
        mine = [
            a
            for a in reply.get("approvals", [])
            if _raw(a.get("jobID")) == agent.job and a.get("state") in ("holding", "dialog")
        ]
        if not mine:
            return False
        request_id = str(mine[-1]["id"])
        out = subprocess.run(
            [MYTTY, method, request_id],
            env=self.m.env,
            cwd=str(self.m.home),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return out.returncode == 0

    def close(self, agent: Agent) -> None:
        agent.pending = "close"

        def go() -> None:
            self.ctl("agent", "close", agent.job)
            self.retire(agent, time.monotonic(), "closed")
            agent.pending = None
            self.count("closed")

        self.act(agent, go)

    def retire(self, agent: Agent, now: float, why: str) -> None:
        """Stop scoring the agent and start another in its slot."""
        if agent.retired is not None:
            return
        agent.retired = now
        if now < self.ended:
            self.spawn(self.new_agent(agent.slot))
        del why

    # -- truth ------------------------------------------------------------------------------------
    def read_truth(self) -> None:
        """Read what the stand-ins logged since the last pass."""
        for path in self.m.standin_dir.glob("*.truth.jsonl"):
            offset = self.offsets.get(path, 0)
            try:
                with open(path, "rb") as f:
                    f.seek(offset)
                    data = f.read()
            except OSError:
                continue
            end = data.rfind(b"\n") + 1
            if not end:
                continue
            self.offsets[path] = offset + end
            rows = self.file_rows.setdefault(path, [])
            for raw in data[:end].splitlines():
                try:
                    rows.append(json.loads(raw))
                except ValueError:
                    continue
            self.attach(path, rows)

    def attach(self, path: Path, rows: list[dict[str, Any]]) -> None:
        agent = self.file_agent.get(path)
        if agent is None:
            pane = rows[0].get("pane") if rows else None
            job = self.sampler.job_of_pane.get(pane) if isinstance(pane, str) else None
            agent = self.by_job.get(job) if job else None
            if agent is None:
                return
            self.file_agent[path] = agent
            agent.files.append(path)
            agent.resuming = False
        if agent.files and agent.files[-1] == path:
            changes = tm.changes_from_log(rows)
            if changes:
                agent.state = changes[-1].state
            last = next((r["line"] for r in reversed(rows) if "line" in r), "")
            agent.line = str(last)
            if agent.state in (tm.EXITED, tm.CRASHED) and agent.next_at < time.monotonic():
                agent.next_at = time.monotonic() + 3.0

    # -- waits ------------------------------------------------------------------------------------
    def start_wait(self, agent: Agent) -> None:
        timeout = 120.0
        proc = subprocess.Popen(
            [MYTTY_CTL, "agent", "wait", agent.job, "--until", "completed",
             "--timeout-seconds", f"{timeout:g}"],
            env=self.m.env, cwd=str(self.m.home), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        with self.lock:
            self.waits.append(WaitRun(agent, time.monotonic(), proc, timeout, due=True))
            agent.results_due += 1
        self.count("waits")

    def watch_waits(self) -> None:
        """The reaper thread: when each wait's process exits, to 50 ms (the director may be
        busy replacing the tmux server)."""
        while not self.sampler.stop.wait(0.05):
            with self.lock:
                running = [w for w in self.waits if w.woke is None]
            for w in running:
                if w.proc.poll() is not None:
                    w.woke = time.monotonic()

    def reap_waits(self, now: float, *, inline: bool = False) -> None:
        with self.lock:
            running = list(self.waits)
        for w in running:
            if w.woke is None and now < w.started + w.timeout + 60:
                continue
            woke = w.woke if w.woke is not None else time.monotonic()
            with self.lock:
                self.waits.remove(w)
            if inline:
                self.finish_wait(w, woke)
            else:
                self.pool.submit(self.finish_wait, w, woke)

    def finish_wait(self, w: WaitRun, woke: float) -> None:
        try:
            self._finish_wait(w, woke)
        finally:
            with self.lock:
                if w.due:
                    w.due = False
                    w.agent.results_due -= 1

    def _finish_wait(self, w: WaitRun, woke: float) -> None:
        if w.proc.poll() is None:
            w.proc.kill()
        out, _err = w.proc.communicate()
        if w.proc.returncode != 0:
            self.count("waitsBrokenByRestart")  # the controller was killed under it
            return
        try:
            reply = json.loads(out)
        except ValueError:
            self.count("waitsUnreadable")
            return
        timed_out = bool(reply.get("timedOut"))
        with self.lock:
            self.wait_records.append(
                (tm.Wait(w.agent.job, w.started, woke, timed_out, w.timeout), w.agent.hooked)
            )
        if timed_out:
            return
        result = self.ctl("agent", "result", w.agent.job)
        try:
            message = json.loads(result.stdout).get("lastAssistantMessage")
        except ValueError:
            message = None
        with self.lock:
            self.results.append((w.agent.job, w.started, woke, message))

    # -- chaos ------------------------------------------------------------------------------------
    def kill_controller(self) -> None:
        pid = controller_pid(self.m.socket)
        if pid is None:
            return
        os.kill(pid, 9)
        t = time.monotonic()
        if self.m.proc is not None and self.m.proc.pid == pid:
            self.m.proc.wait()
        self.m.proc = None
        self.m.start(timeout=120)
        self.events.append({"at": t - self.started, "what": "controller kill -9",
                            "downSeconds": round(time.monotonic() - t, 2)})  # fmt: skip

    def kill_pane(self) -> None:
        live = [a for a in self.agents if a.live and a.job and not a.pending and a.files]
        if not live:
            return
        agent = self.rng.choice(live)
        pane = self.sampler.pane_of.get(agent.job)
        target = self.tmux_target(pane) if pane else None
        if target is None:
            return
        self.m.tmux("kill-pane", "-t", target, check=False)
        t = time.monotonic()
        agent.harness.append(tm.Change(t, tm.KILLED))
        agent.state = tm.KILLED
        agent.next_at = t + 3.0
        self.events.append({"at": t - self.started, "what": "tmux kill-pane", "job": agent.job})

    def kill_server(self) -> None:
        """``tmux kill-server`` under every agent, then ``mytty resume``."""
        self.paused_until = time.monotonic() + 3600
        t = time.monotonic()
        self.m.tmux("kill-server", check=False)
        live = [a for a in self.agents if a.live and a.job]
        for agent in live:
            agent.harness.append(tm.Change(t, tm.KILLED))
            agent.state = tm.KILLED
            agent.resuming = True
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            states = {(self.sampler.snapshots.get(a.job) or {}).get("state") for a in live}
            if states <= {"lost", "disconnected", "failed", "succeeded"}:
                break
            time.sleep(0.5)
        asked = time.monotonic()
        out = subprocess.run(
            [MYTTY, "resume", "--json", *(a.job for a in live)],
            env=self.m.env, cwd=str(self.m.home), capture_output=True, text=True,
            timeout=900, check=False,
        )  # fmt: skip
        resumed = 0
        back: set[str] = set()
        try:
            for entry in json.loads(out.stdout).get("jobs", []):
                if entry.get("resumed"):
                    resumed += 1
                    back.add(str(_raw(entry.get("jobID")) or entry.get("job")))
                    pane = _raw(entry.get("paneID"))
                    jid = _raw(entry.get("jobID")) or entry.get("job")
                    if pane and isinstance(jid, str):
                        self.sampler.job_of_pane[pane] = jid
                    if isinstance(jid, str) and jid in self.by_job:
                        # Resumed: from here it is starting again (its new process logs next).
                        self.by_job[jid].harness.append(tm.Change(asked, tm.STARTING))
        except ValueError:
            pass
        if self.m.proc is not None and self.m.proc.poll() is not None:
            self.m.proc = None
        for agent in live:
            agent.next_at = time.monotonic() + 2.0
            if agent.job not in back:  # a finished job is not resumed: its slot starts anew
                agent.resuming = False
                self.retire(agent, time.monotonic(), "not resumed")
        self.events.append({
            "at": t - self.started, "what": "tmux kill-server + mytty resume",
            "jobs": len(live), "resumed": resumed, "rc": out.returncode,
            "seconds": round(time.monotonic() - t, 1), "stderr": out.stderr[-300:],
        })  # fmt: skip
        self.paused_until = 0.0

    def chaos_plan(self) -> list[tuple[float, Callable[[], None]]]:
        span = self.o.minutes * 60
        kills = self.o.controller_kills
        plan: list[tuple[float, Callable[[], None]]] = [
            (span * (0.2 + 0.6 * k / max(1, kills - 1)), self.kill_controller) for k in range(kills)
        ]
        panes = self.o.pane_kills
        plan += [(span * (0.1 + 0.8 * (k + 0.5) / panes), self.kill_pane) for k in range(panes)]
        if self.o.server_kill:
            plan.append((span * 0.6, self.kill_server))
        return sorted(plan, key=lambda p: p[0])

    # -- the run ----------------------------------------------------------------------------------
    def run(self) -> None:
        self.setup()
        self.sampler.start()
        self.resources.start()
        threading.Thread(target=self.watch_waits, daemon=True).start()
        self.started = time.monotonic()
        self.ended = self.started + self.o.minutes * 60
        # Stagger the first spawns over the first tenth of the run (at most 60 s).
        stagger = min(60.0, self.o.minutes * 6)
        births = sorted(self.rng.uniform(0, stagger) for _ in range(self.o.agents))
        plan = self.chaos_plan()
        slot = 0
        while (now := time.monotonic()) < self.ended:
            while slot < len(births) and now - self.started >= births[slot]:
                self.spawn(self.new_agent(slot))
                slot += 1
            while plan and now - self.started >= plan[0][0]:
                _, act = plan.pop(0)
                act()
            if now >= self.paused_until:
                self.tick(now)
            time.sleep(0.1 if self.o.agents <= 50 else 0.25)
        self.finish()

    def finish(self) -> None:
        self.ended = time.monotonic()
        self.pool.shutdown(wait=True)
        self.read_truth()
        self.reap_waits(float("inf"), inline=True)
        self.sampler.stop.set()
        self.resources.stop.set()
        self.sampler.join(10)
        self.resources.join(5)
        self.load_end = os.getloadavg()

    def close_down(self, log_to: Path | None = None) -> None:
        """Tear everything down; ``log_to``: keep the controller log's lines above DEBUG."""
        if log_to is not None:
            lines = [line for line in self.m.log().splitlines() if " DEBUG " not in line]
            log_to.parent.mkdir(parents=True, exist_ok=True)
            log_to.write_text("\n".join(lines) + "\n")
        self.m.close()


# -- pluggable lifecycle steps ------------------------------------------------------------------

#: Extra turn kinds: name → what the director does for it, its weight, and the agents it is
#: drawn for (hooked providers). A step whose feature is missing from this checkout is not
#: registered, so it is never drawn (see :func:`plugin_turns`).
PLUGINS: dict[str, Callable[[Soak, Agent], None]] = {}
PLUGIN_WEIGHTS: dict[str, float] = {}
PLUGIN_PROVIDERS: dict[str, frozenset[str]] = {}

#: How far ahead a usage-limit turn's reset is (seconds, drawn per turn).
LIMIT_RESET_S = (6.0, 20.0)
#: A park not continued this long after its reset plus margin counts as not continued.
PARK_GRACE_S = 15.0
CLAUDE_GATEWAY = {"ANTHROPIC_AUTH_TOKEN": GATEWAY_JWT, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}


def usage_limit_step(soak: Soak, agent: Agent) -> None:
    """The next prompt meets the account's usage limit (the stand-in's ``limit`` directive):
    mytty parks the job and, after the reset plus ``[limits] resume_margin_seconds``, types its
    continuation; the turn that continues it ends the job. Nobody acts meanwhile."""
    reset = soak.rng.uniform(*LIMIT_RESET_S)
    agent.park_due = time.monotonic() + reset + 1.0
    wait = soak.rng.random() < 0.3
    soak.send(agent, f"@standin: limit {reset:.0f}", wait=wait, prompted=True)
    soak.count("turn:usage-limit")


PLUGINS["usage-limit"] = usage_limit_step
PLUGIN_WEIGHTS["usage-limit"] = 2.0
PLUGIN_PROVIDERS["usage-limit"] = frozenset({"claude"})


def usage_limit_available() -> bool:
    """Whether a usage-limit park step is wired into the soak."""
    return "usage-limit" in PLUGINS


def plugin_turns(agent: Agent) -> list[tuple[str, float]]:
    """The extra turn kinds ``agent`` may draw (its provider, hooked)."""
    return [
        (kind, weight)
        for kind, weight in PLUGIN_WEIGHTS.items()
        if agent.hooked and agent.provider in PLUGIN_PROVIDERS.get(kind, frozenset())
    ]


def features() -> dict[str, str]:
    return {
        "usage-limit": "on: hooked Claude workers meet their account's usage limit now and "
        "then (tests/bench/truth_soak.py usage_limit_step)"
        if usage_limit_available()
        else "off: no usage-limit park step is registered in PLUGINS (tests/bench/truth_soak.py)",
    }
