"""Text that starts with ``-`` is text (issue 26, item 4): ``mytty-ctl send PANE '-n'`` was
``pane-not-found: tmux error`` (tmux read the text as its own flags). The tmux layer's fix
landed with issue 19 (``send-keys -l -- TEXT``); this is the trial's command end to end."""

from __future__ import annotations

import pytest

from tests.support.harness import Mytty

pytestmark = pytest.mark.tmux


def test_send_text_that_starts_with_a_dash(mytty: Mytty) -> None:
    pane = mytty.first_pane()
    mytty.ctl("send", pane, "-n").ok()
    mytty.ctl("send", pane, "--", "--x -").ok()  # after --, a word that starts with -- too
    mytty.ctl("send", pane, " -l", "--enter").ok()
    mytty.wait_for_text(pane, "-n--x - -l")
