"""--always: the narrowest rule, its TOML text, and that it allows exactly its request."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.approvals.propose import NoNarrowRule, narrowest_rule, rule_table, rule_toml
from mytty.core.approvals.rules import ALLOW, RuleSet, Verdict, judge, parse_rules

from .builders import request

COMMANDS = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40)


@given(COMMANDS, COMMANDS)
def test_the_rule_allows_its_request_and_no_other_command(command: str, other: str) -> None:
    made = request(command, label="fix-1")
    rule = narrowest_rule(made)
    assert judge(RuleSet((rule,)), made) == Verdict(ALLOW, rule.name)
    if other != command:
        assert judge(RuleSet((rule,)), request(other, label="fix-1")).action is None
    # Its TOML text reads back as the same table, and as the same rule.
    table = tomllib.loads(rule_toml(rule))["approvals"]["rule"][0]
    assert table == rule_table(rule)
    parsed, warnings = parse_rules([table])
    assert warnings == [] and parsed.rules == (rule,)


def test_a_file_request_gets_its_relative_path() -> None:
    made = request(None, tool="Write", paths=("/w/repo/src/[x].py",), base_dir="/w/repo")
    rule = narrowest_rule(made)
    assert rule.path == "src/[[]x].py" and rule.command is None and rule.tool == "Write"
    assert judge(RuleSet((rule,)), made).action == ALLOW
    outside = request(None, tool="Write", paths=("/etc/x",), base_dir="/w/repo")
    assert narrowest_rule(outside).path == "/etc/x"


def test_no_rule_for_what_cannot_be_matched_exactly() -> None:
    with pytest.raises(NoNarrowRule, match="cut short"):
        narrowest_rule(request("git status", truncated=True))
    with pytest.raises(NoNarrowRule, match="neither"):
        narrowest_rule(request(None, tool="WebFetch"))
    with pytest.raises(NoNarrowRule, match="neither"):
        narrowest_rule(request(None, tool="apply_patch", paths=("/a", "/b")))
