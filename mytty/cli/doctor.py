"""``mytty doctor``: everything that can be wrong with this mytty, each with the command that fixes it.

Checks, in order: tmux (version, the server the controller uses), the controller, the home and
its sockets (paths, kinds, modes), ``config.toml``, admission (its limits against the memory
available now, and whether ``worker_memory_max_mb`` can be enforced: a user systemd or a
delegated cgroup v2), this pane (its mytty identity, shell
integration, ``mytty-ctl`` on PATH), each provider's hook integration (Codex: hook trust too),
whether the installed ``claude``/``codex`` is the version ``mytty integrations verify`` last
proved (a warning when it changed: hooks change between versions), passthrough for OSC notifications, and leftovers (orphaned worktrees, launch files).

Each finding is ``ok``, ``note`` (worth knowing, nothing is wrong), ``warn`` (something will not
work as you expect) or ``fail`` (broken). ``--json`` prints them; the exit status is 1 when
anything failed. Nothing here changes anything: the fixes are printed, not run.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import typer

from mytty.cli import client, controller
from mytty.core.errors import MyttyError

Status = Literal["ok", "note", "warn", "fail"]
_STYLES: dict[str, str] = {"ok": "green", "note": "cyan", "warn": "yellow", "fail": "bold red"}
_MARKS: dict[str, str] = {"ok": "✓", "note": "i", "warn": "!", "fail": "✗"}
#: The programs each provider's CLI installs (a provider not on PATH needs no hooks).
_PROGRAMS: dict[str, tuple[str, ...]] = {
    "codex": ("codex",),
    "claude-code": ("claude",),
    "opencode": ("opencode",),
    "antigravity": ("agy", "antigravity", "gemini"),
    "cursor": ("cursor-agent",),
}
#: A launch file older than this, with no controller to ask, is a leftover.
_STALE_LAUNCH_S = 3600.0


@dataclass(frozen=True, slots=True)
class Finding:
    area: str
    status: Status
    detail: str
    fix: str | None = None


class Doctor:
    """Runs the checks; each appends its findings."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.home = client.home()
        self.findings: list[Finding] = []
        self.running = False
        self.panes: list[dict[str, Any]] | None = None  # the controller's `list`, when it runs
        self.socket: str | None = None

    def add(self, area: str, status: Status, detail: str, fix: str | None = None) -> None:
        self.findings.append(Finding(area, status, detail, fix))

    def run(self) -> list[Finding]:
        checks: list[Callable[[], None]] = [
            self.tmux,
            self.controller,
            self.home_and_sockets,
            self.config,
            self.admission,
            self.this_pane,
            self.shell_rc,
            self.integrations,
            self.verified_versions,
            self.passthrough,
            self.worktrees,
            self.launch_files,
        ]
        for check in checks:
            try:
                check()
            except Exception as exc:  # noqa: BLE001 - one broken check must not hide the rest
                self.add(check.__name__, "fail", f"the check itself failed: {exc!r}")
        return self.findings

    # -- tmux and the controller ------------------------------------------------------------
    def tmux(self) -> None:
        from mytty.cli.tmux_cmd import server_socket
        from mytty.tmux import bootstrap

        try:
            version = bootstrap.check_version()
        except MyttyError as exc:
            self.add(
                "tmux", "fail", exc.message, "install tmux 3.2 or newer: sudo apt-get install tmux"
            )
            return
        self.add("tmux", "ok", version)
        self.socket = server_socket(None)

    def controller(self) -> None:
        self.running = client.running()
        if not self.running:
            self.add(
                "controller",
                "fail",
                f"no controller answers for MYTTY_HOME {self.home.root}",
                "mytty up",
            )
            return
        self.add("controller", "ok", f"running (home {self.home.root}, log {self.home.log_file})")
        try:
            self.panes = list(client.request("list").get("panes", []))
        except MyttyError as exc:
            self.add("controller", "warn", f"it did not list its panes: {exc.message}", "mytty up")

    # -- files ------------------------------------------------------------------------------
    def home_and_sockets(self) -> None:
        from mytty.daemon.home import SUN_PATH_MAX

        root = self.home.root
        try:
            mode = stat.S_IMODE(root.stat().st_mode)
        except FileNotFoundError:
            self.add("home", "note", f"{root} does not exist yet (the first start creates it)")
            return
        if mode & 0o077:
            self.add(
                "home",
                "fail",
                f"{root} is mode {mode:04o}: other users can reach the sockets",
                f"chmod 700 {root}",
            )
        else:
            self.add("home", "ok", f"{root} (mode {mode:04o})")
        for sock in (self.home.control_socket, self.home.event_socket):
            length = len(os.fsencode(str(sock)))
            if length > SUN_PATH_MAX:
                self.add(
                    "sockets",
                    "fail",
                    f"{sock} is {length} bytes; Unix sockets allow {SUN_PATH_MAX}",
                    "export MYTTY_HOME=<a shorter directory>, then mytty up",
                )
                continue
            try:
                st = sock.lstat()
            except FileNotFoundError:
                if self.running:
                    self.add("sockets", "fail", f"{sock} is missing", "mytty stop; mytty up")
                continue
            if not stat.S_ISSOCK(st.st_mode):
                self.add(
                    "sockets", "fail", f"{sock} is not a socket", f"mytty stop; rm {sock}; mytty up"
                )
            elif stat.S_IMODE(st.st_mode) & 0o077:
                self.add(
                    "sockets",
                    "fail",
                    f"{sock} is mode {stat.S_IMODE(st.st_mode):04o}",
                    "mytty stop; mytty up",
                )
            else:
                self.add("sockets", "ok", f"{sock} (mode {stat.S_IMODE(st.st_mode):04o})")

    def config(self) -> None:
        from mytty.daemon.config.load import (
            KEEPING_SETTINGS,
            USING_DEFAULTS,
            config_path,
            read_settings,
        )

        path = config_path(self.home.root)
        # What the file's state means depends on who reads it: the running controller keeps
        # what it has and reads the file again on every save; a start takes the defaults.
        if self.running:
            keep, then = KEEPING_SETTINGS, "the running controller reads it again when you save"
        else:
            keep, then = USING_DEFAULTS + " at the next start", "then mytty up"
        _settings, warnings = read_settings(self.home.root, keep)
        if not path.exists():
            self.add("config", "note", f"{path} does not exist yet (the first start writes it)")
            return
        for warning in warnings:
            broken = warning.startswith(("not valid TOML", "not UTF-8", "cannot read"))
            self.add(
                "config",
                "fail" if broken else "warn",
                warning,
                f"edit {path} (see docs/reference/config.md); {then}",
            )
        if not warnings:
            self.add("config", "ok", str(path))

    # -- admission ----------------------------------------------------------------------------
    def admission(self) -> None:
        """[admission]'s limits against this machine, and whether a memory cap is enforced."""
        from mytty.core.config import DEFAULTS
        from mytty.daemon.config.load import config_path, reread_settings
        from mytty.daemon.resources.memcap import probe
        from mytty.daemon.resources.memory import available_mb

        settings, _warnings = reread_settings(self.home.root)
        if settings is None and config_path(self.home.root).exists():
            # Not the defaults: a running controller keeps the limits it read before.
            who = (
                "the running controller keeps the ones it had"
                if self.running
                else ("the next start uses the defaults")
            )
            self.add(
                "admission",
                "warn",
                f"config.toml can't be read, so its [admission] limits are not known here ({who})",
                "fix config.toml (see the config row)",
            )
            return
        admission = (settings or DEFAULTS).admission
        limits = [
            f"{key} = {value}"
            for key, value in (
                ("max_workers", admission.max_workers),
                ("max_workers_per_lead", admission.max_workers_per_lead),
                ("min_available_memory_mb", admission.min_available_memory_mb),
            )
            if value is not None
        ] + [f"max_workers_per_provider.{p} = {n}" for p, n in admission.max_workers_per_provider]
        free = available_mb()
        detail = ", ".join(limits) if limits else "no limit set: every spawn starts at once"
        self.add("admission", "ok", f"{detail} ({free:,.0f} MB of memory available now)")
        floor = admission.min_available_memory_mb
        if floor is not None and free < floor:
            self.add(
                "admission",
                "note",
                f"only {free:,.0f} MB are available, below min_available_memory_mb = {floor}: "
                "new workers wait queued until memory is freed",
            )
        support = probe()
        cap = admission.worker_memory_max_mb
        if cap is None:
            where = support.detail if support.method else f"it could not be: {support.detail}"
            self.add("memory cap", "note", f"no worker_memory_max_mb set ({where})")
        elif support.method is not None:
            self.add(
                "memory cap", "ok", f"worker_memory_max_mb = {cap} is enforced: {support.detail}"
            )
        else:
            self.add(
                "memory cap",
                "warn",
                f"worker_memory_max_mb = {cap} is NOT enforced: {support.detail}",
                "run mytty in a login session with a user systemd (loginctl enable-linger "
                "$USER), or delegate a cgroup v2 with the memory controller and set "
                "MYTTY_CGROUP to it; else remove worker_memory_max_mb",
            )

    # -- this pane ----------------------------------------------------------------------------
    def this_pane(self) -> None:
        surface = self.env.get("MYTTY_SURFACE_ID")
        if not self.env.get("TMUX"):
            self.add(
                "this pane", "note", "not inside tmux: the pane checks are skipped", "mytty up"
            )
            return
        if not surface:
            self.add(
                "this pane",
                "warn",
                "this tmux pane has no mytty identity (MYTTY_SURFACE_ID): mytty-ctl cannot "
                "say which pane it runs in",
                "mytty shell-integration install (then open a new pane), or work in panes "
                "mytty opens (mytty-ctl new-tab)",
            )
        else:
            entry = next((p for p in self.panes or [] if p.get("paneID") == surface), None)
            if self.panes is not None and entry is None:
                self.add(
                    "this pane",
                    "warn",
                    f"this pane's identity {surface} is not one the running controller knows "
                    "(a different MYTTY_HOME, or a pane from before tmux restarted)",
                    "open a new pane: mytty-ctl new-tab",
                )
            else:
                self.add("this pane", "ok", f"identity {surface}")
                if entry is not None and "shell" not in entry:
                    self.add(
                        "shell integration",
                        "warn",
                        "this pane's shell has not reported to mytty (no prompt or exit status "
                        "is known)",
                        "mytty shell-integration install, then open a new pane",
                    )
                elif entry is not None:
                    self.add("shell integration", "ok", "this pane's shell reports to mytty")
        ctl = shutil.which("mytty-ctl", path=self.env.get("PATH"))
        if ctl is None:
            self.add(
                "mytty-ctl",
                "fail",
                "mytty-ctl is not on this pane's PATH: agents cannot call it",
                f'export PATH="$PATH:{Path(controller.ctl_bin()).parent}" (e.g. in ~/.profile)',
            )
        else:
            self.add("mytty-ctl", "ok", ctl)

    def shell_rc(self) -> None:
        """Where the rc line is, and whether the shells of panes opened by hand read it: tmux
        starts login shells, and a login bash reads ~/.bashrc only through its login file."""
        from mytty.cli.shell_integration import login_file, rc_file
        from mytty.core.shell.rc import MARKER, Shell

        try:
            shell = Shell(os.path.basename(self.env.get("SHELL", "")))
        except ValueError:
            return  # another shell: mytty has no integration line for it
        fix = f"mytty shell-integration install {shell.value}"

        def has_line(path: Path) -> bool:
            try:
                return MARKER in path.read_bytes()
            except OSError:
                return False

        rc = rc_file(shell, self.env)
        login = login_file(self.env) if shell is Shell.BASH else None
        in_rc, in_login = has_line(rc), login is not None and has_line(login)
        if not in_rc and not in_login:
            self.add(
                "shell rc",
                "note",
                f"the integration line is not in {rc}: panes you open with tmux's keys get no "
                "mytty identity (panes mytty opens have one)",
                fix,
            )
        elif login is not None and not in_login:
            self.add(
                "shell rc",
                "warn",
                f"the line is in {rc}, but tmux starts login shells, which read {login} and "
                f"not {rc} ({login} does not run it): panes you open get no identity",
                fix,
            )
        else:
            where = f"{rc} and {login}" if login is not None else str(rc)
            self.add("shell rc", "ok", f"loaded by login and interactive shells ({where})")

    # -- integrations and notifications ---------------------------------------------------------
    def integrations(self) -> None:
        from mytty.integrations import api

        for status in api.list_statuses(self.env):
            name = status.provider.value
            area = "codex (hooks, trust)" if name == "codex" else name
            on_path = any(shutil.which(p, path=self.env.get("PATH")) for p in _PROGRAMS[name])
            if status.status == "installed" and status.upgrade:
                self.add(area, "warn", status.upgrade, f"mytty integrations repair {name}")
            elif status.status == "installed":
                self.add(area, "ok", "hooks installed")
            elif status.status == "needs-repair":
                self.add(
                    area,
                    "fail",
                    status.error or "its hook configuration needs repair",
                    f"mytty integrations repair {name}",
                )
            elif on_path:
                self.add(
                    area,
                    "warn",
                    "the agent is installed but mytty's hooks are not: mytty cannot see its state",
                    f"mytty integrations enable {name}",
                )
            else:
                self.add(area, "note", "not installed (nor the agent)")

    def verified_versions(self) -> None:
        """Warn when the agent on PATH is not the version ``integrations verify`` last proved."""
        from mytty.core.paths import mytty_home
        from mytty.verify.runner import BINARIES, agent_version, last_verified

        verified = last_verified(Path(mytty_home(self.env)))
        for provider, (program, _) in BINARIES.items():
            binary = shutil.which(program, path=self.env.get("PATH"))
            if binary is None:
                continue
            name = provider.value
            fix = f"mytty integrations verify {name}"
            seen = verified.get(name)
            try:
                current = agent_version(binary)
            except Exception as exc:  # noqa: BLE001 - a broken agent binary is its own finding
                self.add(f"{name} version", "warn", f"{binary} --version failed: {exc}")
                continue
            if seen is None:
                self.add(
                    f"{name} version",
                    "note",
                    f"{current}: its hooks were never verified on this machine",
                    fix,
                )
            elif seen != current:
                self.add(
                    f"{name} version",
                    "warn",
                    f"{current} is installed, but the hooks were last verified with {seen}",
                    fix,
                )
            else:
                self.add(f"{name} version", "ok", f"{current}: hooks verified")

    def passthrough(self) -> None:
        from mytty.daemon.config.load import read_settings
        from mytty.tmux.port import PRIVATE_SESSION
        from mytty.tmux.probe import passthrough_fix, server_facts

        if self.socket is None:
            return
        facts = server_facts(self.socket)
        if not facts.alive:
            self.add("tmux server", "warn", f"no tmux server answers at {self.socket}", "mytty up")
            return
        # The controller's own control-mode session is not one of the user's.
        mine = [s for s in facts.sessions if s != PRIVATE_SESSION]
        count = f"{len(mine)} session" + ("" if len(mine) == 1 else "s")
        self.add("tmux server", "ok", f"{self.socket} ({count})")
        if self.running and facts.ctl_bin and not os.access(facts.ctl_bin, os.X_OK):
            self.add(
                "mytty-ctl",
                "fail",
                f"panes get MYTTY_CTL_BIN={facts.ctl_bin}, which is not executable",
                "mytty stop; mytty up (from the mytty you want panes to use)",
            )
        settings, _ = read_settings(self.home.root)
        if "osc" not in settings.notify.channels:
            return
        if facts.allow_passthrough in ("on", "all"):
            self.add("notifications", "ok", f"allow-passthrough is {facts.allow_passthrough}")
        else:
            self.add(
                "notifications",
                "note",
                "allow-passthrough is off: tmux keeps OSC 9/777 desktop notifications from "
                "your terminal (the other channels work)",
                passthrough_fix(self.socket),
            )

    # -- leftovers --------------------------------------------------------------------------------
    def worktrees(self) -> None:
        from mytty.daemon.worktree.gc import orphaned_worktrees
        from mytty.daemon.worktree.record_file import WorktreeRecord

        orphans = orphaned_worktrees(WorktreeRecord(self.home.worktree_record))
        removable = [o for o in orphans if o.verdict.removable]
        if removable:
            self.add(
                "worktrees",
                "warn",
                f"{len(removable)} worktree(s) nobody works in can be removed: "
                + ", ".join(str(o.entry.path) for o in removable[:3]),
                "mytty worktree list, then mytty worktree gc",
            )
        kept = len(orphans) - len(removable)
        if kept:
            self.add(
                "worktrees",
                "note",
                f"{kept} idle worktree(s) hold work that is not merged (kept)",
                "mytty worktree list",
            )
        if not orphans:
            self.add("worktrees", "ok", "no orphaned worktrees")

    def launch_files(self) -> None:
        try:
            files = sorted(self.home.launch_dir.glob("*.sh"))
        except OSError:
            files = []
        live = {p.get("paneID") for p in self.panes or []}
        now = time.time()
        stale = [
            f
            for f in files
            if (f.stem not in live if self.panes is not None else _age(f, now) > _STALE_LAUNCH_S)
        ]
        if stale:
            shown = " ".join(str(f) for f in stale[:5])
            self.add(
                "launch files",
                "warn",
                f"{len(stale)} launch file(s) of panes that are gone",
                f"rm {shown}" + (" …" if len(stale) > 5 else ""),
            )
        else:
            self.add("launch files", "ok", "none left over")


def _age(path: Path, now: float) -> float:
    try:
        return now - path.stat().st_mtime
    except OSError:
        return 0.0


def doctor_command(
    as_json: bool = typer.Option(False, "--json", help="Print the findings as JSON."),
) -> None:
    """Check everything mytty needs; each problem comes with the command that fixes it."""
    findings = Doctor(dict(os.environ)).run()
    broken = any(f.status == "fail" for f in findings)
    if as_json:
        typer.echo(
            json.dumps(
                {"ok": not broken, "findings": [asdict(f) for f in findings]}, ensure_ascii=False
            )
        )
    else:
        _print(findings)
    if broken:
        raise typer.Exit(1)


def _print(findings: list[Finding]) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    console = client.console()
    cells = [(_MARKS[f.status], f.area, f.detail, f.fix or "") for f in findings]
    if client.fits(cells, console.width):
        table = Table(title="mytty doctor", show_lines=False, expand=False)
        for name in ("", "check", "finding", "fix"):
            table.add_column(name, no_wrap=True)
        for f in findings:
            style = _STYLES[f.status]
            # Findings quote config sections ("[notify] ...") that rich would read as markup.
            table.add_row(
                f"[{style}]{_MARKS[f.status]}[/]",
                escape(f.area),
                escape(f.detail),
                escape(f.fix or ""),
            )
        console.print(table)
    else:
        # Too narrow for the table: one block per finding, each line whole (the terminal
        # wraps it), so a path or a command in it can be copied as it is.
        console.print(Text("mytty doctor", style="bold"))
        for f in findings:
            line = Text(_MARKS[f.status], style=_STYLES[f.status])
            line.append(f" {f.area}: {f.detail}")
            console.print(line, soft_wrap=True)
            if f.fix:
                console.print(Text(f"    fix: {f.fix}"), soft_wrap=True)
    counts = {s: sum(1 for f in findings if f.status == s) for s in ("fail", "warn")}
    if counts["fail"]:
        console.print(f"[bold red]{counts['fail']} broken[/], {counts['warn']} warning(s)")
    elif counts["warn"]:
        console.print(f"[yellow]{counts['warn']} warning(s)[/], nothing broken")
    else:
        console.print("[green]All good.[/]")
