"""``mytty approve ID --always``: append a rule to config.toml, keeping every comment and byte.

The file is parsed with tomlkit and the new ``[[approvals.rule]]`` table appended, so the
user's comments, layout and other tables stay as they were; the result must parse (tomllib)
and hold exactly the rules it held plus the new one, or nothing is written. The write is
atomic (a temporary file renamed into place, mode 0600) and the controller's watcher reloads
the settings from it like any other save. A file that is not valid TOML is never touched
(``invalid-configuration``).
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path

import tomlkit
from tomlkit.container import OutOfOrderTableProxy
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Array, Table

from mytty.core.approvals.propose import rule_table
from mytty.core.approvals.rules import Rule
from mytty.core.errors import ErrorCode, MyttyError


def _invalid(path: Path, why: str) -> MyttyError:
    return MyttyError(ErrorCode.INVALID_CONFIGURATION, f"{path}: {why}; the rule was not written")


def _rules_of(text: str) -> list[object]:
    approvals = tomllib.loads(text).get("approvals")
    rules = approvals.get("rule", []) if isinstance(approvals, dict) else []
    return list(rules) if isinstance(rules, list) else [rules]


def with_rule(text: str, rule: Rule, path: Path) -> str:
    """``text`` (a config.toml) with ``rule`` appended as an ``[[approvals.rule]]`` table."""
    try:
        doc = tomlkit.parse(text)
        before = _rules_of(text)
    except (TOMLKitError, tomllib.TOMLDecodeError) as exc:
        raise _invalid(path, f"is not valid TOML ({exc})") from None
    approvals = doc.get("approvals")
    if approvals is None:
        approvals = tomlkit.table()
        doc.append("approvals", approvals)
    if not isinstance(approvals, Table | OutOfOrderTableProxy):
        raise _invalid(path, "approvals is not a table")
    table = tomlkit.table()
    for key, value in rule_table(rule).items():
        table.add(key, value)
    table.add(tomlkit.nl())  # a blank line before whatever follows (a table the user wrote)
    existing = approvals.get("rule")
    if existing is None or (isinstance(existing, Array) and len(existing) == 0):
        aot = tomlkit.aot()  # a `rule = []` becomes the first [[approvals.rule]]
        aot.append(table)
        approvals["rule"] = aot
    elif isinstance(existing, AoT):
        existing.append(table)
    else:
        raise _invalid(path, "approvals.rule is not an array of tables")
    new = tomlkit.dumps(doc)
    if not new.endswith("\n"):
        new += "\n"
    try:
        after = _rules_of(new)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - tomlkit wrote what it parsed
        raise _invalid(path, f"the edit would not parse ({exc})") from None
    if after != [*before, rule_table(rule)]:
        raise _invalid(path, "the edit would change other rules")
    return new


def append_rule(path: Path, rule: Rule) -> None:
    """Append ``rule`` to the config file at ``path`` (created when missing). Raises MyttyError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise _invalid(path, f"cannot be read ({exc})") from None
    new = with_rule(text, rule, path)
    fd, tmp = tempfile.mkstemp(prefix=".config.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(new)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise _invalid(path, f"cannot be written ({exc})") from None
