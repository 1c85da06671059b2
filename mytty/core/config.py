"""The schema of ``config.toml``: every setting, its default, and how a parsed file is checked.

Pure: :func:`settings_from` takes the file already parsed into plain Python values (the daemon
parses it with tomlkit, see :mod:`mytty.daemon.config.load`) and returns a :class:`Settings` plus one
warning per thing it ignored. Nothing here is fatal: an unknown key, a wrong type or an
out-of-range value is warned about and that one setting keeps its default, so a typo never
stops the controller and never silently changes another setting.

:data:`DEFAULT_TEXT` is the commented file written on first start; a test checks that it parses
to exactly :data:`DEFAULTS`, so the two cannot drift. docs/reference/config.md documents each key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Final

from mytty.core.admission.defaults import Machine, machine_defaults
from mytty.core.admission.pacing import Pacing
from mytty.core.admission.rules import Limits
from mytty.core.approvals.rules import RuleSet, parse_rules
from mytty.core.approvals.timing import MAX_APPROVAL_HOLD_S
from mytty.core.cost.prices import PRICES_DATE, ModelPrice
from mytty.core.hosts.config import HostsSettings, hosts_from
from mytty.core.limits.park import DEFAULT_CONTINUATION, DEFAULT_MARGIN_S, DEFAULT_STAGGER_S
from mytty.core.vocab import ACCESS_MODES, WORKER_PROVIDERS

#: The notification channels, in the order a notification goes through them.
MESSAGE: Final = "message"
BELL: Final = "bell"
OSC: Final = "osc"
NOTIFY_SEND: Final = "notify-send"
COMMAND: Final = "command"
CHANNELS: tuple[str, ...] = (MESSAGE, BELL, OSC, NOTIFY_SEND, COMMAND)

#: The transitions that can notify (``[notify] on``).
APPROVAL: Final = "approval"
INPUT: Final = "input"
FAILURE: Final = "failure"
DISCONNECT: Final = "disconnect"
LONG_SUCCESS: Final = "long-success"
#: A worker stopped at its provider account's usage limit (parked).
LIMIT: Final = "limit"
NOTIFY_KINDS: tuple[str, ...] = (APPROVAL, INPUT, FAILURE, DISCONNECT, LONG_SUCCESS, LIMIT)

#: The desktop-notification escape sequences ``osc`` can send: OSC 9 (iTerm2, WezTerm, kitty,
#: Windows Terminal, foot, Ghostty) or OSC 777 (urxvt, VTE terminals such as GNOME Terminal).
OSC_CODES: tuple[int, ...] = (9, 777)

#: ``[spawn] access``: ``auto`` is the built-in rule (inherit from a same-provider lead, else
#: workspace-write); the others are what ``agent spawn`` uses when ``--access`` is left out.
AUTO_ACCESS: Final = "auto"
SPAWN_ACCESS: tuple[str, ...] = (AUTO_ACCESS, *ACCESS_MODES)

#: ``[resume] mode``: what happens to agents that were running before a restart.
RESUME_MODES: tuple[str, ...] = ("ask", "auto", "off")


@dataclass(frozen=True, slots=True)
class NotifySettings:
    channels: tuple[str, ...] = (MESSAGE, BELL, OSC, NOTIFY_SEND, COMMAND)
    on: tuple[str, ...] = NOTIFY_KINDS
    osc: int = 9
    #: Run with ``/bin/sh -c`` (a string) or exec'd as is (a list); empty = no command channel.
    command: tuple[str, ...] | str = ""
    timeout: float = 10.0
    cooldown: float = 30.0
    long_success: float = 300.0


@dataclass(frozen=True, slots=True)
class TmuxSettings:
    #: The key (in the prefix table) that opens the attention popup; empty = no binding.
    popup_key: str = "A"
    pane_border_segment: bool = True
    status_segment: bool = True


@dataclass(frozen=True, slots=True)
class SpawnSettings:
    access: str = AUTO_ACCESS
    #: Deny spawned workers' tool calls that would kill mytty's tmux server (core.kill_guard).
    guard_tmux_server: bool = True


@dataclass(frozen=True, slots=True)
class ResumeSettings:
    mode: str = "ask"


@dataclass(frozen=True, slots=True)
class ApprovalSettings:
    #: How long a PermissionRequest hook waits for a decision (0: never; the rules still
    #: decide at once).
    hold_seconds: float = 15.0
    #: ``[[approvals.rule]]`` (mytty.core.approvals.rules).
    rule: RuleSet = field(default_factory=RuleSet)


@dataclass(frozen=True, slots=True)
class AdmissionSettings:
    """``[admission]``: None (the key left out) means no limit of that kind."""

    max_workers: int | None = None
    #: (provider, most live workers of it) for the providers given.
    max_workers_per_provider: tuple[tuple[str, int], ...] = ()
    min_available_memory_mb: int | None = None
    max_workers_per_lead: int | None = None
    #: A hard cap per worker (cgroup v2 MemoryMax), None: none.
    worker_memory_max_mb: int | None = None
    start_burst: int = 2
    start_interval_seconds: float = 10.0

    def limits(self) -> Limits:
        return Limits(
            max_workers=self.max_workers,
            per_provider=self.max_workers_per_provider,
            per_lead=self.max_workers_per_lead,
            min_available_mb=self.min_available_memory_mb,
        )

    def pacing(self) -> Pacing:
        return Pacing(burst=self.start_burst, interval=self.start_interval_seconds)


@dataclass(frozen=True, slots=True)
class LimitSettings:
    """``[limits]``: what mytty does with workers that hit their usage limit."""

    #: Continue parked workers by themselves at their reset (off: only ``mytty limits resume``).
    auto_resume: bool = True
    #: Seconds after the provider's reset before mytty continues a parked worker.
    resume_margin_seconds: float = DEFAULT_MARGIN_S
    #: Seconds between two workers of one account going on.
    stagger_seconds: float = DEFAULT_STAGGER_S
    #: What mytty types (or passes to ``--resume``) to continue a parked worker.
    continuation_prompt: str = DEFAULT_CONTINUATION


@dataclass(frozen=True, slots=True)
class Settings:
    notify: NotifySettings = field(default_factory=NotifySettings)
    tmux: TmuxSettings = field(default_factory=TmuxSettings)
    spawn: SpawnSettings = field(default_factory=SpawnSettings)
    resume: ResumeSettings = field(default_factory=ResumeSettings)
    approvals: ApprovalSettings = field(default_factory=ApprovalSettings)
    admission: AdmissionSettings = field(default_factory=AdmissionSettings)
    #: ``[prices]``: (model, price) entries that add to or replace the shipped price table.
    prices: tuple[tuple[str, ModelPrice], ...] = ()
    #: ``[hosts]``: the other machines (mytty.core.hosts.config).
    hosts: HostsSettings = field(default_factory=HostsSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)


DEFAULTS = Settings()


def defaults_for(machine: Machine) -> Settings:
    """What the file written on first start on ``machine`` says (see
    :mod:`mytty.core.admission.defaults` for how the values are derived)."""
    derived = machine_defaults(machine)
    return replace(
        DEFAULTS,
        admission=replace(
            DEFAULTS.admission,
            max_workers=derived.max_workers,
            min_available_memory_mb=derived.min_available_memory_mb,
            start_burst=derived.start_burst,
            start_interval_seconds=derived.start_interval_seconds,
        ),
    )


# ---------------------------------------------------------------------------------------------
# checking one value: each checker returns the value to store or raises ValueError(reason)
# ---------------------------------------------------------------------------------------------

Checker = Callable[[object], object]


def _words(allowed: tuple[str, ...]) -> Checker:
    def check(value: object) -> object:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError("expected a list of strings")
        unknown = [v for v in value if v not in allowed]
        if unknown:
            raise ValueError(
                f"unknown {', '.join(map(repr, unknown))}; known: {', '.join(allowed)}"
            )
        return tuple(dict.fromkeys(value))

    return check


def _choice(allowed: tuple[Any, ...]) -> Checker:
    def check(value: object) -> object:
        if isinstance(value, bool) or value not in allowed:
            raise ValueError(f"expected one of {', '.join(map(str, allowed))}")
        return value

    return check


def _seconds(minimum: float, maximum: float = float("inf")) -> Checker:
    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("expected a number of seconds")
        if not minimum <= value <= maximum:
            raise ValueError(f"must be between {minimum:g} and {maximum:g}")
        return float(value)

    return check


def _command(value: object) -> object:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return tuple(value)
    if value == []:
        return ""
    raise ValueError("expected a shell command string or a non-empty list of strings")


def _boolean(value: object) -> object:
    if not isinstance(value, bool):
        raise ValueError("expected true or false")
    return value


class _Partly(ValueError):
    """A value that is kept although parts of it were not: ``warnings`` say which."""

    def __init__(self, value: object, warnings: list[str]) -> None:
        super().__init__("; ".join(warnings))
        self.value = value
        self.warnings = warnings


def _rules(value: object) -> object:
    rules, warnings = parse_rules(value)
    if warnings:
        raise _Partly(rules, warnings)
    return rules


def _count(minimum: int, maximum: int = 10**6) -> Checker:
    def check(value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("expected a whole number")
        if not minimum <= value <= maximum:
            raise ValueError(f"must be between {minimum} and {maximum}")
        return value

    return check


def _per_provider(value: object) -> object:
    if not isinstance(value, Mapping):
        raise ValueError("expected a table such as { claude = 4, codex = 2 }")
    unknown = [k for k in value if k not in WORKER_PROVIDERS]
    if unknown:
        raise ValueError(
            f"unknown provider {', '.join(map(repr, unknown))}; known: {', '.join(WORKER_PROVIDERS)}"
        )
    check = _count(0)
    return tuple((k, check(v)) for k, v in value.items() if isinstance(k, str))


#: A continuation prompt longer than this is refused (it is typed into the agent).
MAX_PROMPT_CHARS = 4000


def _prompt(value: object) -> object:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("expected a non-empty string")
    if len(value) > MAX_PROMPT_CHARS:
        raise ValueError(f"at most {MAX_PROMPT_CHARS} characters")
    # Typed into the agent: a newline would be an Enter, sending half of it.
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        raise ValueError("one line, without control characters")
    return value.strip()


def _key(value: object) -> object:
    # The tmux layer validates the key name itself when it binds it; here only its shape.
    if not isinstance(value, str) or any(c.isspace() for c in value):
        raise ValueError("expected a tmux key name such as A or M-a (or an empty string)")
    return value


SCHEMA: Mapping[str, Mapping[str, Checker]] = {
    "notify": {
        "channels": _words(CHANNELS),
        "on": _words(NOTIFY_KINDS),
        "osc": _choice(OSC_CODES),
        "command": _command,
        "timeout": _seconds(0.1, 60.0),
        "cooldown": _seconds(0.0),
        "long_success": _seconds(0.0),
    },
    "tmux": {
        "popup_key": _key,
        "pane_border_segment": _boolean,
        "status_segment": _boolean,
    },
    "spawn": {"access": _choice(SPAWN_ACCESS), "guard_tmux_server": _boolean},
    "resume": {"mode": _choice(RESUME_MODES)},
    "approvals": {"hold_seconds": _seconds(0.0, MAX_APPROVAL_HOLD_S), "rule": _rules},
    "admission": {
        "max_workers": _count(0),
        "max_workers_per_provider": _per_provider,
        "min_available_memory_mb": _count(0, 10**9),
        "max_workers_per_lead": _count(0),
        "worker_memory_max_mb": _count(16, 10**9),
        "start_burst": _count(1, 1000),
        "start_interval_seconds": _seconds(0.0, 3600.0),
    },
    # The table's own settings; settings_from hands the whole table, whose other keys are the
    # hosts, to mytty.core.hosts.config.hosts_from, which checks these two the same way.
    "hosts": {"connect_timeout_seconds": _seconds(1.0, 300.0), "ssh_command": _command},
    "limits": {
        "auto_resume": _boolean,
        "resume_margin_seconds": _seconds(0.0, 86400.0),
        "stagger_seconds": _seconds(0.0, 3600.0),
        "continuation_prompt": _prompt,
    },
}

#: The keys of one ``[prices."<model>"]`` entry: dollars per million tokens of each kind.
PRICE_KEYS: tuple[str, ...] = ("input", "output", "cache_read", "cache_write")


def _price(value: object) -> ModelPrice:
    if not isinstance(value, Mapping):
        raise ValueError("expected a table with " + ", ".join(PRICE_KEYS))
    missing = [k for k in PRICE_KEYS if k not in value]
    extra = [k for k in value if k not in PRICE_KEYS]
    if missing or extra:
        raise ValueError(
            f"needs exactly {', '.join(PRICE_KEYS)}"
            + (f" (missing {', '.join(missing)})" if missing else "")
            + (f" (unknown {', '.join(map(repr, extra))})" if extra else "")
        )
    dollars = []
    for key in PRICE_KEYS:
        number = value[key]
        if isinstance(number, bool) or not isinstance(number, int | float) or not 0 <= number < 1e6:
            raise ValueError(f"{key}: expected dollars per million tokens (0 or more)")
        dollars.append(Decimal(str(number)))
    return ModelPrice(*dollars)


def _prices(value: Mapping[str, object], warnings: list[str]) -> tuple[tuple[str, ModelPrice], ...]:
    """``[prices]``: one table per model; a bad entry is warned about and left out."""
    entries = []
    for model, raw in value.items():
        try:
            entries.append((model, _price(raw)))
        except ValueError as exc:
            warnings.append(f"[prices] {model!r}: {exc}; the entry is ignored")
    return tuple(entries)


def settings_from(data: Mapping[str, object]) -> tuple[Settings, list[str]]:
    """The settings a parsed ``config.toml`` asks for, and a warning for everything ignored."""
    warnings: list[str] = []
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name == "hosts" and isinstance(value, Mapping):
            # Its keys are hosts (tables) besides two settings: its own reader checks it.
            sections[name], more = hosts_from(value)
            warnings.extend(more)
            continue
        if name == "prices":
            if isinstance(value, Mapping):
                sections["prices"] = _prices(value, warnings)
            else:
                warnings.append("[prices] must be a table; using the shipped prices")
            continue
        checkers = SCHEMA.get(name)
        if checkers is None:
            warnings.append(f"unknown section or key {name!r} ignored")
            continue
        if not isinstance(value, Mapping):
            warnings.append(f"[{name}] must be a table; using its defaults")
            continue
        current = getattr(DEFAULTS, name)
        changes: dict[str, object] = {}
        for key, raw in value.items():
            check = checkers.get(key)
            if check is None:
                warnings.append(f"[{name}] unknown key {key!r} ignored")
                continue
            try:
                changes[key] = check(raw)
            except _Partly as partly:
                changes[key] = partly.value
                warnings.extend(partly.warnings)
            except ValueError as exc:
                default = getattr(current, key)
                warnings.append(f"[{name}] {key}: {exc}; using the default {_show(default)}")
        sections[name] = replace(current, **changes)
    return replace(DEFAULTS, **sections), warnings


def _show(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def spawn_access(requested: str | None, spawn: SpawnSettings) -> str | None:
    """The access ``agent spawn`` asks for: ``--access`` when given, else ``[spawn] access``.

    None leaves the choice to the built-in rule (``auto``). A configured mode counts as if it
    had been given with ``--access``: ``inherit`` then fails where there is no lead to inherit
    from, as an explicit one does.
    """
    if requested is not None or spawn.access == AUTO_ACCESS:
        return requested
    return spawn.access


_HEAD = """\
# mytty configuration. mytty wrote this file with its defaults on first start and never
# rewrites it: edit freely. Unknown keys and bad values are warned about (in the controller
# log and by `mytty doctor`) and fall back to the default; a file that is not valid TOML is
# reported with its line and column and the controller keeps every default.
# A running controller reads the file again when it is saved: [notify] applies to the next
# notification, [spawn] to the next spawn, [admission] and [prices] at once; a save that is
# not valid TOML keeps the settings in use. [tmux] and [resume] are read by the commands that
# use them; [approvals] applies to the next permission request, [limits] to the next resume
# it plans.
# Reference: docs/reference/config.md

[notify]
# Where a notification goes, in this order:
#   message          a message on every attached tmux client's status line
#   bell             the tmux bell in the agent's pane (shows with monitor-bell / bell-action)
#   osc              a desktop notification via OSC 9 / OSC 777, also over SSH
#                    (needs `set -g allow-passthrough on` in tmux)
#   notify-send      a desktop notification, when a local D-Bus session exists
#   command          the command below, with the item as JSON on stdin
channels = ["message", "bell", "osc", "notify-send", "command"]
# Which transitions notify: an agent needs approval or input, failed, disconnected,
# finished a turn that took at least `long_success` seconds, or stopped at its usage limit.
on = ["approval", "input", "failure", "disconnect", "long-success", "limit"]
# The escape sequence of the osc channel: 9 (iTerm2, WezTerm, kitty, foot, Ghostty, Windows
# Terminal) or 777 (urxvt, GNOME Terminal and other VTE terminals).
osc = 9
# A shell command (run with /bin/sh -c) or a list [program, arg, ...]; it gets the
# notification as one JSON object on stdin. Example: "curl -s -d @- ntfy.sh/my-topic"
command = ""
# Seconds the command (and notify-send) may run before it is killed (0.1 to 60).
timeout = 10
# Seconds after a notification during which the same pane does not notify the same kind again.
cooldown = 30
# A finished turn notifies when it ran at least this many seconds.
long_success = 300

[tmux]
# The key, after the tmux prefix, that opens the attention popup ("" = no binding).
popup_key = "A"
# Which segments `mytty tmux install` appends to your formats.
pane_border_segment = true
status_segment = true

[spawn]
# The access of `mytty-ctl agent spawn` when --access is left out: "auto" (inherit from a
# lead of the same provider, else workspace-write), or "inherit", "review", "workspace-write"
# as if given with --access (so "inherit" fails where there is no lead to inherit from).
access = "auto"
# Refuse a spawned Claude Code or Codex worker's shell command that would kill the tmux server
# mytty runs on (tmux kill-server, kill-session, …); it is told to use its own `tmux -L NAME`.
# Applies to workers spawned after the change.
guard_tmux_server = true

[resume]
# Agents that were running when the controller or tmux went away: "ask" (list them and
# offer to resume), "auto" (resume them on start) or "off".
mode = "ask"

[limits]
# Workers that stop at their provider account's usage limit are parked, not failed. With
# auto_resume, mytty continues each on its own conversation once the limit has reset:
# resume_margin_seconds after the reset time the provider gave, one worker of an account at a
# time, stagger_seconds apart. A worker that parks again right after waits twice as long each
# time; after three in a row it stays parked. `mytty limits` shows them, `mytty limits resume`
# continues them now, `mytty limits hold` keeps one parked.
auto_resume = true
resume_margin_seconds = 120
stagger_seconds = 5
# What mytty types into the parked worker (or passes to `claude --resume` / `codex resume`
# when its process is gone).
continuation_prompt = "Your usage limit has reset (mytty paused you while it was reached). Continue the task you were working on when the limit was reached; do not repeat work that is already done."

[approvals]
# How long an agent's permission request (Claude Code's and Codex's PermissionRequest hook)
# waits for an answer from `mytty approve`, the attention popup or a lead before the agent's
# own dialog takes over (0 to 600; 0 = never wait). Claude Code shows its dialog meanwhile;
# Codex shows it only once the wait is over. Rules below decide at once, whatever this says.
hold_seconds = 15
# Rules decide a request at once, before any wait: deny beats ask beats allow, whatever
# their order. Each [[approvals.rule]] matches on any of provider, tool, command (a glob on
# the shell command), path (a glob, relative to the job's directory) and label (the job's
# label); `mytty approve ID --always` appends the narrowest allow rule here. Examples:
#
# [[approvals.rule]]
# name = "read-only git"
# action = "allow"
# tool = "Bash"
# command = "git status*"
#
# [[approvals.rule]]
# action = "deny"
# command = "*rm -rf /*"
[hosts]
# Other machines whose agents this one shows and starts, each a [hosts.NAME] table that
# `mytty hosts add NAME USER@HOST` writes (ssh = "USER@HOST", ssh_options = ["Port=2222"]).
# Your own ssh and ~/.ssh/config connect: mytty never stores a password or a key.
# Seconds within which an unreachable host fails (1 to 300).
connect_timeout_seconds = 10
# The OpenSSH client and any options of your own, e.g. "ssh -F ~/.ssh/mytty_config".
ssh_command = "ssh"
"""


def _admission_text(machine: Machine | None) -> str:
    """``[admission]`` as first start writes it: limits derived from ``machine`` (None: every
    limit left out, as the schema's defaults say)."""
    if machine is None:
        derived = None
        origin = "# No limit is set here: a key left out (or commented out) means no limit."
    else:
        derived = machine_defaults(machine)
        origin = (
            f"# Written on first start for this machine ({machine.total_memory_mb:,} MB of "
            f"memory, {machine.cpus} CPUs):\n"
            "# max_workers = the memory left after max(2 GB, a quarter) for everything else,\n"
            "# at 1 GB per worker, at most 4 per CPU and at least 2; min_available_memory_mb =\n"
            "# a tenth of the memory (at least 1 GB), rounded down to 256 MB."
        )

    def line(key: str, value: object | None, example: str) -> str:
        return f"{key} = {value}" if value is not None else f"# {key} = {example}"

    return f"""
[admission]
# Which workers may start. A spawn that can't start now is accepted as a `queued` job (its
# pane shows why) and starts by itself, in order, when admitted; `agent spawn --no-queue`
# fails instead (admission-refused). A key left out means no limit of that kind.
{origin}
# Live workers (started, not yet finished) in total, per provider, per lead agent.
{line("max_workers", derived.max_workers if derived else None, "8")}
# max_workers_per_provider = {{ claude = 4, codex = 4, cursor = 4 }}
# max_workers_per_lead = 4
# A worker starts only while this much memory stays available (MB), less what workers that
# are still starting are expected to take.
{line("min_available_memory_mb", derived.min_available_memory_mb if derived else None, "2048")}
# A hard cap per worker (MB), enforced with cgroup v2 (systemd-run --user --scope, or a
# delegated cgroup); where neither exists, spawn says the cap is not enforced
# (`mytty doctor` checks). A worker killed by it ends failed, reason "memory-limit".
# worker_memory_max_mb = 4096
# `mytty resume` restarts lost workers at most start_burst at a time, start_interval_seconds
# apart (simultaneous starts of one account can invalidate a login token the fleet shares),
# and stops with an attention item after three failed starts in a row.
start_burst = {derived.start_burst if derived else 2}
start_interval_seconds = {int(derived.start_interval_seconds) if derived else 10}

# [prices."model-id"] adds a model to the price table shipped with mytty (list prices of
# {PRICES_DATE}) or replaces its entry: US dollars per million tokens. Costs of models in
# neither are null, never a guess.
# [prices."my-model"]
# input = 3.0
# output = 15.0
# cache_read = 0.3
# cache_write = 3.75
"""


def default_text(machine: Machine | None = None) -> str:
    """The commented file first start writes: its ``[admission]`` derived from ``machine``
    (parses to :func:`defaults_for` of it; None: to :data:`DEFAULTS`)."""
    return _HEAD + _admission_text(machine)


#: The default file with no machine-derived limits (what :data:`DEFAULTS` says).
DEFAULT_TEXT = default_text(None)
