"""The rc line: added once, found again after the checkout moved, removed byte for byte."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.shell.rc import MARKER, Shell, rc_line, with_line, without_line

SCRIPT = "/opt/my tty/shell-integration/mytty.bash"
# Files that don't mention the marker: any bytes, weighted towards lines and shell text.
texts = st.one_of(
    st.binary(max_size=200),
    st.lists(st.text(max_size=30), max_size=8).map(lambda ls: "\n".join(ls).encode()),
).filter(lambda b: MARKER not in b)


@pytest.mark.parametrize("shell", list(Shell))
@given(text=texts)
def test_install_then_uninstall_gives_the_file_back_byte_for_byte(
    shell: Shell, text: bytes
) -> None:
    installed = with_line(shell, text, SCRIPT)
    assert installed.count(MARKER) == 1
    assert with_line(shell, installed, SCRIPT) == installed  # idempotent
    assert without_line(shell, installed) == text
    assert without_line(shell, text) == text  # nothing to remove: untouched


def test_the_line_lands_on_its_own_line_and_keeps_the_rest() -> None:
    line = rc_line(Shell.BASH, SCRIPT)
    assert with_line(Shell.BASH, b"", SCRIPT) == line + b"\n"
    assert with_line(Shell.BASH, b"a\n", SCRIPT) == b"a\n" + line + b"\n"
    assert with_line(Shell.BASH, b"a", SCRIPT) == b"a\n" + line


def test_a_moved_checkout_is_replaced_in_place() -> None:
    old = b"x\n" + rc_line(Shell.ZSH, "/old/mytty.zsh") + b"\ny\n"
    new = with_line(Shell.ZSH, old, "/new/mytty.zsh")
    assert new == b"x\n" + rc_line(Shell.ZSH, "/new/mytty.zsh") + b"\ny\n"
    assert without_line(Shell.ZSH, new) == b"x\ny\n"


@pytest.mark.parametrize(
    "text",
    [
        b"# source mytty.bash  " + MARKER + b"\n",  # edited by hand
        rc_line(Shell.BASH, "/a/mytty.bash") + b"\n" + rc_line(Shell.BASH, "/b/mytty.bash"),
        rc_line(Shell.ZSH, "/a/mytty.zsh") + b"\n",  # another shell's line in .bashrc
    ],
)
def test_a_marker_we_cannot_explain_is_refused(text: bytes) -> None:
    for action in (
        lambda: with_line(Shell.BASH, text, SCRIPT),
        lambda: without_line(Shell.BASH, text),
    ):
        with pytest.raises(MyttyError) as err:
            action()
        assert err.value.code is ErrorCode.SHELL_RC_UNRECOGNIZED
