"""The agents' own dialogs read off a screen (as research/approvals.md §1.7 and §2.7 show
them), and the keys that answer each."""

from __future__ import annotations

import pytest

from mytty.core.approvals.dialog import (
    CLAUDE_AMEND_LABEL,
    MessageUndeliverable,
    Step,
    find_dialog,
    key_plan,
    shows,
)
from mytty.core.approvals.model import Action, Decision

COMMAND = "touch /tmp/ra/ch/work/tui1"

CLAUDE = f"""
 Bash command
 Tip: auto mode handles these prompts for you — choose "switch to auto mode" below
 Run the scripted command
 ╌╌╌╌
 {COMMAND}
 ╌╌╌╌
 Do you want to proceed?
 \u276f 1. Yes
   2. Yes, and always allow access to /tmp/ra/ch/work from this project
   3. Yes, and switch to auto mode · auto mode handles these prompts for you
   4. No

 Esc to cancel · Tab to amend
""".splitlines()

CODEX = f"""
  Would you like to run the following command?

  Environment: local

  Reason: The scripted command writes outside the sandbox.

  $ {COMMAND}


\u203a 1. Yes, proceed (y)
  2. Yes, and don't ask again for commands that start with `{COMMAND}` (p)
  3. No, and tell Codex what to do differently (esc)

  Press enter to confirm or esc to cancel
""".splitlines()


def bash(command: str = COMMAND, **kw: object) -> Action:
    return Action("Bash", command=command, **kw)  # type: ignore[arg-type]


def test_claudes_bash_dialog_is_found_with_its_options() -> None:
    view = find_dialog("claude-code", CLAUDE, bash())
    assert view is not None and view.question == "Do you want to proceed?"
    assert [o.number for o in view.options] == [1, 2, 3, 4]
    assert view.yes is not None and view.yes.number == 1
    assert view.no is not None and view.no.number == 4
    assert view.highlighted is not None and view.highlighted.number == 1


def test_codexs_command_dialog_is_found_with_its_options() -> None:
    view = find_dialog("codex", CODEX, bash())
    assert view is not None and view.no is not None and view.no.number == 3


def test_another_requests_dialog_is_not_this_one() -> None:
    assert find_dialog("claude-code", CLAUDE, bash("touch /tmp/other")) is None
    assert find_dialog("codex", CODEX, bash("touch /tmp/ra/ch/work/tui2")) is None
    assert find_dialog("codex", CLAUDE, bash()) is None  # the other provider's dialog
    assert find_dialog("cursor", CLAUDE, bash()) is None


def test_a_dialog_left_above_newer_output_is_not_on_screen() -> None:
    later = [*CLAUDE, *(f"output line {n}" for n in range(20))]
    assert find_dialog("claude-code", later, bash()) is None


def test_a_request_without_command_or_path_cannot_be_checked() -> None:
    assert find_dialog("claude-code", CLAUDE, Action("Bash")) is None
    assert find_dialog("claude-code", CLAUDE, bash("\x1b\x07")) is None  # nothing printable


def test_a_wrapped_command_still_matches() -> None:
    command = "python3 -c \"open('/a/very/long/path/name', 'w').write('ok')\" " + "x" * 150
    wrapped = [
        *CLAUDE[:5],
        " " + command[:70],
        "   " + command[70:140],
        "   " + command[140:],
        *CLAUDE[6:],
    ]
    assert find_dialog("claude-code", wrapped, bash(command)) is not None


def test_control_characters_may_be_drawn_any_way() -> None:
    command = "printf 'a\x1bb'"
    for drawn in ("printf 'a^[b'", "printf 'a\\x1bb'", "printf 'ab'", "printf 'a\ufffdb'"):
        screen = [line.replace(COMMAND, drawn) for line in CLAUDE]
        assert find_dialog("claude-code", screen, bash(command)) is not None, drawn
    screen = [line.replace(COMMAND, "printf 'a" + "?" * 12 + "b'") for line in CLAUDE]
    assert find_dialog("claude-code", screen, bash(command)) is None


def test_a_long_command_is_compared_at_both_ends() -> None:
    command = "echo " + "a" * 300 + " middle " + "b" * 300
    screen = [line.replace(COMMAND, command) for line in CLAUDE]
    assert find_dialog("claude-code", screen, bash(command)) is not None
    other_end = command[:-1] + "c"
    assert find_dialog("claude-code", screen, bash(other_end)) is None
    # A command cut by the hook is compared by its start only.
    assert find_dialog("claude-code", screen, bash(command[:250], truncated=True)) is not None


def test_a_file_dialog_is_found_by_the_files_name() -> None:
    screen = """ Create file
 written.txt
 ╌╌╌╌
  1 hello
 ╌╌╌╌
 Do you want to create written.txt?
 \u276f 1. Yes
   2. Yes, and switch to accept edits (auto-approve file edits) for this session (shift+tab)
   3. No

 Esc to cancel · Tab to amend""".splitlines()
    view = find_dialog("claude-code", screen, Action("Write", paths=("/w/written.txt",)))
    assert view is not None and view.no is not None and view.no.number == 3
    assert find_dialog("claude-code", screen, Action("Write", paths=("/w/other.txt",))) is None


# -- keys -------------------------------------------------------------------------------------


def _view(provider: str, screen: list[str]):
    view = find_dialog(provider, screen, bash())
    assert view is not None
    return view


def test_claude_keys() -> None:
    view = _view("claude-code", CLAUDE)
    assert key_plan(view, Decision.ALLOW, None) == [Step(key="1")]
    assert key_plan(view, Decision.DENY, None) == [Step(key="4")]
    assert key_plan(view, Decision.DENY, "use the fixture") == [
        Step(key="Down"),
        Step(key="Down"),
        Step(key="Down"),
        Step(key="Tab"),
        Step(expect=CLAUDE_AMEND_LABEL),
        Step(text="use the fixture"),
        Step(expect="No, use the fixture"),
        Step(key="Enter"),
    ]
    moved = [line.replace("\u276f 1.", "  1.").replace("  3.", "\u276f 3.") for line in CLAUDE]
    plan = key_plan(_view("claude-code", moved), Decision.DENY, "x")
    assert plan[:2] == [Step(key="Down"), Step(key="Tab")]


def test_codex_keys_and_no_message() -> None:
    view = _view("codex", CODEX)
    assert key_plan(view, Decision.ALLOW, None) == [Step(key="y")]
    assert key_plan(view, Decision.DENY, None) == [Step(key="n")]
    with pytest.raises(MessageUndeliverable, match="cannot hand the model a message"):
        key_plan(view, Decision.DENY, "use the fixture")


def test_shows_ignores_blanks_and_breaks() -> None:
    assert shows(["No, use", "   the fixture"], "No, use the fixture")
    assert not shows(["No, use"], "No, use the fixture")
