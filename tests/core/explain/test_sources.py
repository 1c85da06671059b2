"""Every event's source: the provider's hook unless its name is one of mytty's, each of which
the table must know."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from mytty.core.estimation import epochs
from mytty.core.events import AgentEventKind
from mytty.core.explain import sources
from mytty.core.explain.sources import SYNTHESIZED, Source, origin
from mytty.daemon.estimation import cursor_approval
from mytty.daemon.jobs import resume
from tests.core.builders import ev

K = AgentEventKind
PKG = Path(__file__).resolve().parents[3] / "mytty"
#: A string that may be a mytty event name: ``mytty.`` (``mytty.native.``) and one word.
_NAME = re.compile(r"mytty\.(?:native\.)?[a-z][A-Za-z]*")


def test_hook_events_are_the_providers_own() -> None:
    found = origin(ev(K.SUCCEEDED, hook="Stop"))
    assert found.source is Source.HOOK
    assert found.describe(K.SUCCEEDED) == "claude-code hook Stop"
    unnamed = origin(ev(K.RUNNING, hook=None))  # Antigravity's invocations have no name
    assert unnamed.source is Source.HOOK and unnamed.what == "claude-code hook"


@pytest.mark.parametrize(
    ("name", "source"),
    [
        (epochs.LAUNCH_OBSERVED, Source.NATIVE),
        (epochs.TURN_COMPLETED, Source.NATIVE),
        ("mytty.startupSweep", Source.STARTUP_SWEEP),
        ("mytty.runSuperseded", Source.SUPERSEDED),
        ("mytty.resume", Source.RESUME),
        ("mytty.cursorApprovalPending", Source.ESTIMATE),
        ("mytty.claudeInterrupted", Source.TRANSCRIPT),
        ("mytty.codexTurnFailed", Source.TRANSCRIPT),
        ("mytty.somethingNewer", Source.MYTTY),
    ],
)
def test_each_mytty_name_has_its_source(name: str, source: Source) -> None:
    assert origin(ev(K.IDLE, hook=name)).source is source


def test_the_shell_report_says_which_exit_it_saw() -> None:
    finished = SYNTHESIZED[epochs.COMMAND_FINISHED]
    assert "exit 0" in finished.describe(K.SUCCEEDED)
    assert "non-zero" in finished.describe(K.FAILED)
    assert "without a status" in finished.describe(K.DISCONNECTED)


def test_the_controllers_names_are_the_ones_spelled_here() -> None:
    assert sources.RESUME_HOOK_NAME == resume.RESUME_HOOK
    assert sources.CURSOR_APPROVAL_HOOK_NAME == cursor_approval.HOOK_NAME


def _names_in_code() -> set[str]:
    found: set[str] = set()
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and _NAME.fullmatch(text) and not _is_module(text):
                found.add(text)
    return found


#: ``mytty.log``, ``mytty.js``: file names, not event names.
_FILE_SUFFIXES = frozenset({"js", "log", "json", "toml", "sock", "sqlite", "bash", "zsh", "fish"})


def _is_module(name: str) -> bool:
    """``mytty.cli`` and friends (a logger's or a module's name) or a file's name."""
    word = name.split(".")[1]
    top = PKG / word
    return top.is_dir() or top.with_suffix(".py").exists() or word in _FILE_SUFFIXES


def test_every_mytty_event_name_in_the_code_has_an_entry() -> None:
    """A new synthesized event (approvals, limits…) must say where it comes from."""
    names = _names_in_code()
    assert epochs.TURN_FAILED in names and "mytty.resume" in names  # the scan sees them
    assert names - set(SYNTHESIZED) == set(), "add them to mytty/core/explain/sources.py"
