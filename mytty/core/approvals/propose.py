"""``mytty approve ID --always``: the narrowest rule that would have allowed this request.

Narrowest means every field the request can be told by: its provider, its tool, its exact
command (escaped, so it is a pattern without a wildcard, which matches that command only) or
its exact paths, and the label of its job when it has one. A request the rules cannot read
(a command cut short by the hook), or one with neither a command nor a path, gets no rule:
any rule that allowed it would allow more than was asked.
"""

from __future__ import annotations

import json

from mytty.core.approvals import glob
from mytty.core.approvals.model import ApprovalRequest
from mytty.core.approvals.rules import ALLOW, Rule, absolute_path, relative_path


class NoNarrowRule(ValueError):
    """No rule can allow exactly this request; the text says why."""


def narrowest_rule(request: ApprovalRequest) -> Rule:
    """The rule (see the module docstring); raises :class:`NoNarrowRule`."""
    action = request.action
    if action.truncated:
        raise NoNarrowRule("its command was cut short by the hook, so no rule can match it exactly")
    command: str | None = None
    path: str | None = None
    if action.command is not None:
        command = glob.escape(action.command)
    elif len(action.paths) == 1:
        absolute = absolute_path(action.paths[0], request.cwd)
        if absolute is None:
            raise NoNarrowRule("its file path cannot be read")
        base = request.base_dir or request.cwd
        relative = relative_path(absolute, base) if base else None
        path = glob.escape(relative if relative not in (None, ".") else absolute)
    else:
        raise NoNarrowRule("it names neither one command nor one file")
    return Rule(
        name=f"always {request.id[:8]}",
        action=ALLOW,
        provider=request.provider,
        tool=action.tool,
        command=command,
        path=path,
        label=glob.escape(request.label) if request.label else None,
    )


def rule_table(rule: Rule) -> dict[str, str]:
    """The rule as the keys of its ``[[approvals.rule]]`` table, in the documented order."""
    fields = (
        ("name", rule.name),
        ("action", rule.action),
        ("provider", rule.provider),
        ("tool", rule.tool),
        ("command", rule.command),
        ("path", rule.path),
        ("label", rule.label),
    )
    return {key: value for key, value in fields if value is not None}


def rule_toml(rule: Rule) -> str:
    """The rule as the TOML text ``--always`` shows before writing it (basic strings, which
    TOML reads back exactly: JSON's escapes are TOML's)."""
    lines = ["[[approvals.rule]]"]
    for key, value in rule_table(rule).items():
        lines.append(f"{key} = {_basic_string(value)}")
    return "\n".join(lines) + "\n"


def _basic_string(value: str) -> str:
    # json.dumps escapes quotes, backslashes and control characters as TOML basic strings do;
    # \u escapes of non-BMP text (surrogate pairs) are avoided by ensure_ascii=False.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
