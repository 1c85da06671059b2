"""``[[approvals.rule]]``: the rules that decide a permission request at once, before any hold.

A rule is a table of ``config.toml``::

    [[approvals.rule]]
    name = "status is harmless"   # optional; "#<n>" (its position, from 1) otherwise
    action = "allow"              # "allow" | "deny" | "ask" (required)
    provider = "claude-code"      # "claude-code" | "codex"
    tool = "Bash"                 # the tool's name, exactly
    command = "git status*"       # a glob on the shell command (mytty.core.approvals.glob)
    path = "src/**"               # a glob on the file path, relative to the job's directory
    label = "review-*"            # a glob on the label of the worker's job

A rule matches a request when every field it gives matches (one with no field at all matches
every request). Then, whatever the order of the rules:

1. a matching ``deny`` rule denies;
2. else a ``deny`` rule that *might* match (it reads a part of the request that cannot be read,
   such as a command the hook had to cut short) or a matching ``ask`` rule makes it ask: the
   request waits for a person (the hold), as with no rule at all;
3. else a matching ``allow`` rule allows (one that might match asks, with its name).

So deny beats ask beats allow, and a request the matcher cannot read is never allowed by a
rule. Two more guards keep an allow rule from allowing more than it says:

- a ``command`` pattern with a wildcard never allows a *compound* command (one that chains,
  pipes, backgrounds or substitutes: ``;`` ``&`` ``|`` a backtick ``$(`` ``<(`` ``>(`` or a
  newline), since ``git status*`` would otherwise allow ``git status; curl … | sh``; an exact
  pattern (no wildcard) still matches exactly its command;
- with ``path``, every path the request touches must match (for ``deny`` and ``ask``, any one).

A path glob that starts with ``/`` is matched against the absolute path; any other is matched
against the path relative to the job's directory (its worktree, else the directory it was
spawned in, else the agent's cwd), and never matches a path outside that directory. Paths are
normalised (``.``/``..``); symbolic links are not resolved.

If any rule cannot be read (an unknown key, a wrong type, an unknown action), it is warned
about and **no rule allows anything** until the file is fixed: a broken ``deny`` rule must not
silently turn into an allow by another rule. Deny and ask rules that can be read still apply.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass

from mytty.core import vocab
from mytty.core.approvals import glob
from mytty.core.approvals.model import ApprovalRequest

ALLOW = "allow"
DENY = "deny"
ASK = "ask"
ACTIONS: tuple[str, ...] = (ALLOW, DENY, ASK)
#: The providers whose hooks can bring a request (the event vocabulary's names).
PROVIDERS: tuple[str, ...] = (vocab.CLAUDE_CODE, vocab.CODEX)
_TEXT_KEYS = ("name", "provider", "tool", "command", "path", "label")
_KEYS = frozenset({"action", *_TEXT_KEYS})

_COMPOUND = re.compile(r"[;|`\n\r]|\$\(|<\(|>\(|(?<![<>])&(?!>)")

_NO, _UNKNOWN, _MATCH = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    action: str
    provider: str | None = None
    tool: str | None = None
    command: str | None = None
    path: str | None = None
    label: str | None = None


@dataclass(frozen=True, slots=True)
class RuleSet:
    rules: tuple[Rule, ...] = ()
    #: Some rule could not be read: no rule allows anything (see the module docstring).
    broken: bool = False


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the rules say: ``action`` allow/deny/ask, or None when no rule spoke."""

    action: str | None
    rule: str | None = None


NO_RULE = Verdict(None)


def parse_rules(raw: object) -> tuple[RuleSet, list[str]]:
    """The rules of ``approvals.rule`` (the parsed TOML value) and a warning per problem."""
    if raw is None:
        return RuleSet(), []
    if isinstance(raw, Mapping):
        return RuleSet(broken=True), [
            "[approvals] rule must be an array of tables ([[approvals.rule]]); "
            "no rule allows anything until it is fixed"
        ]
    if not isinstance(raw, list):
        return RuleSet(broken=True), [
            "[approvals] rule must be an array of tables; no rule allows anything until it is fixed"
        ]
    rules: list[Rule] = []
    warnings: list[str] = []
    for index, entry in enumerate(raw, start=1):
        rule, problem = _parse_one(index, entry)
        if problem is not None:
            warnings.append(
                f"[[approvals.rule]] #{index}: {problem}; it is ignored and no rule allows "
                "anything until it is fixed"
            )
        if rule is not None:
            rules.append(rule)
    return RuleSet(tuple(rules), broken=bool(warnings)), warnings


def _parse_one(index: int, entry: object) -> tuple[Rule | None, str | None]:
    if not isinstance(entry, Mapping):
        return None, "is not a table"
    unknown = sorted(str(k) for k in entry if k not in _KEYS)
    if unknown:
        return None, f"unknown key {', '.join(map(repr, unknown))}"
    action = entry.get("action")
    if action not in ACTIONS:
        return None, f"action must be one of {', '.join(ACTIONS)}"
    texts: dict[str, str | None] = {}
    for key in _TEXT_KEYS:
        value = entry.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            return None, f"{key} must be a non-empty string"
        texts[key] = value
    if texts["provider"] is not None and texts["provider"] not in PROVIDERS:
        return None, f"provider must be one of {', '.join(PROVIDERS)}"
    return (
        Rule(
            name=texts["name"] or f"#{index}",
            action=str(action),
            provider=texts["provider"],
            tool=texts["tool"],
            command=texts["command"],
            path=texts["path"],
            label=texts["label"],
        ),
        None,
    )


def is_compound(command: str) -> bool:
    """Whether a shell command chains, pipes, backgrounds or substitutes (see the docstring)."""
    return _COMPOUND.search(command) is not None


def absolute_path(path: str, cwd: str | None) -> str | None:
    """``path`` made absolute against ``cwd`` and normalised; None when that cannot be done."""
    if not path or "\x00" in path:
        return None
    if not path.startswith("/"):
        if not cwd or not cwd.startswith("/"):
            return None
        path = f"{cwd.rstrip('/')}/{path}"
    normal = posixpath.normpath(path)
    return "/" + normal.lstrip("/")


def relative_path(path: str, base: str) -> str | None:
    """``path`` (absolute, normalised) relative to ``base``; None when it lies outside."""
    root = absolute_path(base, None)
    if root is None:
        return None
    if path == root:
        return "."
    prefix = root.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else None


def _command(rule: Rule, request: ApprovalRequest) -> int:
    assert rule.command is not None
    command = request.action.command
    if command is None:
        return _NO
    if request.action.truncated:
        return _UNKNOWN
    if rule.action == ALLOW and glob.has_wildcard(rule.command) and is_compound(command):
        return _NO
    return _MATCH if glob.match_command(rule.command, command) else _NO


def _path(rule: Rule, request: ApprovalRequest) -> int:
    assert rule.path is not None
    paths = request.action.paths
    if not paths:
        return _NO
    pattern = rule.path
    base = request.base_dir or request.cwd
    matches: list[bool] = []
    for raw in paths:
        absolute = absolute_path(raw, request.cwd)
        if absolute is None:
            return _UNKNOWN
        if pattern.startswith("/"):
            matches.append(glob.match_path(pattern, absolute))
            continue
        if base is None:
            return _UNKNOWN
        relative = relative_path(absolute, base)
        matches.append(relative is not None and glob.match_path(pattern, relative))
    hit = all(matches) if rule.action == ALLOW else any(matches)
    return _MATCH if hit else _NO


def rule_matches(rule: Rule, request: ApprovalRequest) -> int:
    """``_MATCH``, ``_NO`` or ``_UNKNOWN`` (it reads a part of the request that can't be read)."""
    results = []
    if rule.provider is not None:
        results.append(_MATCH if request.provider == rule.provider else _NO)
    if rule.tool is not None:
        results.append(_MATCH if request.action.tool == rule.tool else _NO)
    if rule.label is not None:
        label = request.label
        results.append(
            _MATCH if label is not None and glob.match_command(rule.label, label) else _NO
        )
    if _NO in results:
        return _NO
    if rule.command is not None:
        results.append(_command(rule, request))
    if rule.path is not None:
        results.append(_path(rule, request))
    if _NO in results:
        return _NO
    return _UNKNOWN if _UNKNOWN in results else _MATCH


def judge(rules: RuleSet, request: ApprovalRequest) -> Verdict:
    """What the rules say about ``request`` (see the module docstring for the order)."""
    if not request.action.tool or request.provider not in PROVIDERS:
        return Verdict(ASK)
    outcomes = [(rule, rule_matches(rule, request)) for rule in rules.rules]
    for rule, outcome in outcomes:
        if rule.action == DENY and outcome == _MATCH:
            return Verdict(DENY, rule.name)
    for rule, outcome in outcomes:
        if (rule.action == DENY and outcome == _UNKNOWN) or (rule.action == ASK and outcome != _NO):
            return Verdict(ASK, rule.name)
    for rule, outcome in outcomes:
        if rule.action == ALLOW and outcome == _MATCH:
            return Verdict(ASK if rules.broken else ALLOW, rule.name)
    for rule, outcome in outcomes:
        if rule.action == ALLOW and outcome == _UNKNOWN:
            return Verdict(ASK, rule.name)  # it might allow it, if the request could be read
    return Verdict(ASK) if request.action.truncated else NO_RULE
