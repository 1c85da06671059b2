"""The request builder of the human CLI (:mod:`mytty.cli.requests`): requests come from the
commands' declarations, filled as mytty-ctl fills them, and nothing undeclared gets through."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from mytty.cli import ctl
from mytty.cli.requests import Refused, RequestError, build, command, request_for
from mytty.control import registry, spec

CLI = Path(__file__).resolve().parents[2] / "mytty" / "cli"

# Every request the mytty commands, the popup and mytty-ctl's completion send.
HUMAN_REQUESTS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # mytty attention, running(), the popup's list
    ("attention", {}, {"type": "attention"}),
    # mytty attention --ack / the popup's jump
    (
        "attention",
        {"acknowledge": ["RUN-A"]},
        {"type": "attention", "acknowledge": ["RUN-A"]},
    ),
    # mytty attention --ack-all
    (
        "attention",
        {"acknowledgeAll": True},
        {"type": "attention", "acknowledgeAll": True},
    ),
    ("ensureSession", {}, {"type": "ensureSession"}),
    # the live view: the cursor, then its long polls
    ("events", {}, {"type": "events", "timeoutSeconds": 30.0}),
    (
        "events",
        {"afterSequence": 7, "timeoutSeconds": 30.0},
        {"type": "events", "afterSequence": 7, "timeoutSeconds": 30.0},
    ),
    ("notifyTest", {}, {"type": "notifyTest"}),
    # mytty resume, with and without jobs (the declaration's client hook sends jobIDs)
    ("resumeJobs", {"JOB": [], "dryRun": True}, {"type": "resumeJobs", "dryRun": True}),
    (
        "resumeJobs",
        {"JOB": ["J1", "J2"], "dryRun": False},
        {"type": "resumeJobs", "jobIDs": [{"rawValue": "J1"}, {"rawValue": "J2"}], "dryRun": False},
    ),
    # mytty doctor, and mytty-ctl's completion of pane and job ids
    ("list", {}, {"type": "list"}),
    ("agent list", {"allLeads": True}, {"type": "listAgents", "states": [], "allLeads": True}),
]


@pytest.mark.parametrize(("name", "values", "expected"), HUMAN_REQUESTS)
def test_the_human_requests(name: str, values: dict[str, Any], expected: dict[str, Any]) -> None:
    built = build(name, values)
    assert built == expected
    assert list(built) == list(expected)  # the declared key order too


def test_a_command_is_found_by_its_mytty_ctl_words_or_its_wire_type() -> None:
    assert command("agent resume") is command("resumeJobs")
    assert command("list").wire == "list"
    with pytest.raises(RequestError, match="no control command is called 'frob'"):
        command("frob")


def test_a_field_is_named_by_its_wire_key_or_its_flag() -> None:
    assert build("agent resume", {"--dry-run": True}) == build("agent resume", {"dryRun": True})
    with pytest.raises(RequestError, match="name one field"):
        build("agent resume", {"--dry-run": True, "dryRun": True})


@pytest.mark.parametrize(
    "values",
    [{"acknowledgeEverything": True}, {"type": "list"}, {"runs": ["A"]}, {"--ack": ["A"]}],
)
def test_an_undeclared_key_is_refused(values: dict[str, Any]) -> None:
    with pytest.raises(RequestError, match="declares no"):
        build("attention", values)


def test_a_flag_takes_only_a_boolean() -> None:
    with pytest.raises(RequestError, match="is a flag"):
        build("attention", {"acknowledgeAll": "yes"})


def test_the_clients_hook_may_refuse() -> None:
    with pytest.raises(Refused) as refused:
        build("agent resume", {"JOB": [f"J{n}" for n in range(1000)]})
    assert refused.value.code == "usage"
    assert "at most" in refused.value.message


FROB = spec.Command(
    name="frob",
    wire="frobnicate",
    summary="s",
    args=(spec.PANE, spec.Arg("LEVEL", "level", "how", choices=("low", "high"), default="low")),
    options=(
        spec.Option("--times", "N", "times", "how often", kind=spec.SECONDS, default=1.0),
        spec.Option("--loud", None, "loud", "shout"),
        spec.Option("--tags", "LIST", "tags", "tags", kind=spec.LIST),
        spec.Option("--a", "A", "a", "one way", group="how"),
        spec.Option("--b", "B", "b", "the other way", group="how"),
        spec.Option("--must", "M", "must", "needed", required=True),
    ),
    wire_order=("must", "paneID"),
    errors=("invalid-request",),
    doc="d",
)


def test_defaults_choices_groups_and_order_come_from_the_declaration() -> None:
    built = request_for(FROB, {"paneID": "P", "a": "x", "must": "m"})
    assert built == {
        "type": "frobnicate",
        "must": "m",
        "paneID": "P",
        "level": "low",
        "times": 1.0,
        "loud": False,
        "tags": [],
        "a": "x",
    }
    assert list(built)[:3] == ["type", "must", "paneID"]
    for bad, why in (
        ({"a": "x", "must": "m"}, "needs PANE"),
        ({"paneID": "P", "a": "x"}, "needs --must"),
        ({"paneID": "P", "must": "m"}, "exactly one of"),
        ({"paneID": "P", "a": "x", "b": "y", "must": "m"}, "exactly one of"),
        ({"paneID": "P", "level": "medium", "a": "x", "must": "m"}, "must be one of"),
    ):
        with pytest.raises(RequestError, match=why):
            request_for(FROB, bad)


def test_a_typed_value_counts_for_its_group_and_the_environment_fills_a_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert request_for(FROB, {"paneID": "P", "b": 2.5, "must": "m"})["b"] == 2.5
    from_env = spec.Command(
        name=None,
        wire="fromEnv",
        summary="s",
        options=(
            spec.Option("--pane", "P", "paneID", "p", env_default="FROB_PANE", group="g"),
            spec.Option("--lead", "L", "lead", "l", env_default="FROB_PANE"),
        ),
        errors=("invalid-request",),
        doc="d",
    )
    monkeypatch.setenv("FROB_PANE", "P-FROM-ENV")
    assert request_for(from_env, {"paneID": "P"}) == {
        "type": "fromEnv",
        "paneID": "P",
        "lead": "P-FROM-ENV",
    }
    # mytty-ctl fills it from the environment too, but it is no option given for the group.
    with pytest.raises(RequestError, match="exactly one of"):
        request_for(from_env, {})


def _without_arguments() -> list[spec.Command]:
    """The declared commands mytty-ctl can build with no arguments at all."""
    found = []
    for declared in registry.declarations():
        try:
            ctl.build_request(declared, [])
        except ctl.CtlError:
            continue
        found.append(declared)
    return found


def test_defaults_are_filled_as_mytty_ctl_fills_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MYTTY_SURFACE_ID", raising=False)
    compared = _without_arguments()
    assert len(compared) >= 8  # list, events, agent list, agent resume, the wire-only ones, …
    for declared in compared:
        assert request_for(declared, {}) == ctl.build_request(declared, [])[0], declared.wire
    # And with values: what the human CLI sends equals mytty-ctl's request for the same words.
    events, resume = command("events"), command("agent resume")
    typed = request_for(events, {"afterSequence": 3, "timeoutSeconds": 30.0})
    assert typed == ctl.build_request(events, ["--after", "3", "--timeout", "30"])[0]
    typed = request_for(resume, {"JOB": ["J1", "J2"], "dryRun": True})
    assert typed == ctl.build_request(resume, ["J1", "J2", "--dry-run"])[0]


def _hand_built_requests(path: Path) -> list[int]:
    """Lines of ``path`` holding a dict literal with a "type" key (a request spelled by hand)."""
    tree = ast.parse(path.read_text(), str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        and any(isinstance(k, ast.Constant) and k.value == "type" for k in node.keys)
    ]


def test_no_cli_module_spells_a_request_by_hand() -> None:
    # The builder itself, and mytty-ctl's parser, which reads the declarations its own way.
    spelled = {
        path.name: lines
        for path in sorted(CLI.glob("*.py"))
        if path.name not in ("requests.py", "ctl.py") and (lines := _hand_built_requests(path))
    }
    assert spelled == {}


def test_the_hand_built_request_check_sees_one(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text('REQUEST = {"type": "attention", "acknowledgeAll": True}\n')
    assert _hand_built_requests(probe) == [1]
