"""The escapes of mytty/tmux/literal.py, read back by a real tmux 3.3a.

Each property sends hostile text (tests/tmux/hostile_text.py) through one stage of tmux and
checks what comes out: the command parser (``word``), the format expander (``format_text``),
the status line's drawing of a message (``message_text``) and of a user option in a pane
border (``shown_option``), a popup's title (``drawn_text``), and the listing of free text
(``one_line``). Nothing may run: a ``#(cd;touch PWNED)`` fragment would leave a file in the
tmux server's $HOME.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest
from hypothesis import example, given

from mytty.tmux import user_formats
from mytty.tmux.literal import (
    MAX_MESSAGE_CHARS,
    drawn_text,
    format_text,
    from_one_line,
    message_text,
    one_line,
    shown_option,
    word,
)
from tests.support.harness import TMUX, Mytty, wait_until
from tests.support.screen import Screen
from tests.tmux.hostile_text import PWNED, any_text, drawable_text, settings_for
from tests.tmux.live import LiveTmux

# -- without tmux -----------------------------------------------------------------------------


def test_examples() -> None:
    assert word("it's") == "'it'\\''s'"
    assert word("a\nb") == "'a'\\012'b'"
    assert word("") == "''"
    assert word("~/$HOME") == "'~/$HOME'"
    assert format_text("w#(touch x)") == "w##(touch x)"
    assert format_text("a##b #[x] ##[y] e#") == "a####b #[x] ##[y] e##"
    assert drawn_text("a##b ##[y]") == "a########b ####[y]"
    assert message_text("100% #\n") == "100%% #### "
    assert len(message_text("x" * 5000)) == MAX_MESSAGE_CHARS
    assert shown_option("@mytty_label") == "#{q/h:@mytty_label}"
    assert from_one_line("a\\\\012\\012b\\037") == "a\\012\nb\x1f"
    with pytest.raises(ValueError):
        shown_option("@x}#(id)")


# -- with tmux --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def live() -> Iterator[LiveTmux]:
    m = Mytty(start_tmux=False)
    live = LiveTmux(m)
    try:
        yield live
    finally:
        live.close()
        m.close()


def read_option(live: LiveTmux, name: str) -> str:
    return from_one_line("\n".join(live.command(f"display-message -p {word(one_line(name))}")))


def nothing_ran(live: LiveTmux) -> bool:
    return not (live.m.home / PWNED).exists()


@pytest.mark.tmux
@settings_for(200)
@given(text=any_text(40))
@example(text="a\nb\x1fc\\012d")
@example(text="x" * 4096)
def test_a_word_reads_back_exactly_and_lists_on_one_line(live: LiveTmux, text: str) -> None:
    live.command(f"set-option -g @mytty_t {word(text)}")
    assert read_option(live, "@mytty_t") == text


@pytest.mark.tmux
@settings_for(200)
@given(text=any_text(40))
@example(text=f"w#(cd;touch {PWNED})")
@example(text="k##[x] ##[ #[ a##b e#")
def test_formatted_text_expands_to_itself(live: LiveTmux, text: str) -> None:
    # set-option -F expands its value like -c, -n and -s do (format_single).
    live.command(f"set-option -F -g @mytty_t {word(format_text(text))}")
    assert read_option(live, "@mytty_t") == text
    assert nothing_ran(live)


@pytest.fixture(scope="module")
def screen(live: LiveTmux) -> Iterator[Screen]:
    s = Screen(live.m, "base")
    try:
        yield s
    finally:
        s.close()


def bottom_row(screen: Screen) -> str:
    return screen.text().rstrip("\n").split("\n")[-1].rstrip()


@pytest.mark.tmux
@settings_for(25)
@given(text=drawable_text())
@example(text="notes##2026 a##b ## e#")
@example(text="100% %d %H:%M %%")
@example(text="#[fg=red]x k##[y] j###[z] #[")
def test_a_message_shows_on_the_status_line_as_typed(
    live: LiveTmux, screen: Screen, text: str
) -> None:
    client = screen.client_name()
    assert client is not None
    live.run(live.port.display_message(client, text))
    wait_until(lambda: bottom_row(screen) == text, 5, message=f"{text!r} on the status line")
    assert nothing_ran(live)


@pytest.fixture(scope="module")
def border(live: LiveTmux, screen: Screen) -> str:
    """The base window split in two with mytty's border segment installed; its first pane."""
    live.m.tmux("split-window", "-d", "-t", "=base:", "exec sleep 100000")
    live.m.tmux("set-option", "-g", "pane-border-status", "top")
    cli = user_formats.TmuxCli(live.m.socket, TMUX)
    user_formats.install(cli, border=True, status=False, key=None, python="python3", home="/x")
    pane = live.m.tmux("display-message", "-p", "-t", "=base:0.0", "#{pane_id}").strip()
    live.m.tmux("set-option", "-p", "-t", pane, "@mytty_state", "running")
    live.m.tmux("set-option", "-p", "-t", pane, "@mytty_provider", "codex")
    return pane


@pytest.mark.tmux
@settings_for(25)
@given(label=drawable_text(8), need=drawable_text(3))
@example(label="h#[fg=red]z a##b", need="k##[x]")
@example(label="0", need="#(;")
def test_option_values_show_on_pane_borders_as_typed(
    live: LiveTmux, screen: Screen, border: str, label: str, need: str
) -> None:
    live.command(f"set-option -p -t {border} @mytty_label {word(label)}")
    live.command(f"set-option -p -t {border} @mytty_attention {word(need)}")
    shown = f"[codex running {label}] {need}"
    wait_until(lambda: shown in screen.text().split("\n")[0], 5, message=f"{shown!r} on a border")
    # ... and `mytty ls` reads them back as they are.
    row = next(
        r
        for r in user_formats.published_panes(user_formats.TmuxCli(live.m.socket, TMUX))
        if r["pane_id"] == border
    )
    assert (row["@mytty_label"], row["@mytty_attention"]) == (label, need)
    assert nothing_ran(live)


@pytest.mark.tmux
@pytest.mark.parametrize("title", ["a##b m#S d#{pane_id}", "h#[fg=red]z k##[x] e#", "100% %d"])
def test_a_popup_title_shows_as_typed(live: LiveTmux, screen: Screen, title: str) -> None:
    client = screen.client_name()
    assert client is not None
    argv = [TMUX, "-S", live.m.socket, "display-popup", "-c", client, "-w", "60", "-h", "5"]
    argv += ["-T", f"<{drawn_text(title)}>", "-E", "sleep 30"]
    popup = subprocess.Popen(argv, env=live.m.env, stdout=subprocess.DEVNULL)
    try:
        wait_until(lambda: f"<{title}>" in screen.text(), 5, message=f"{title!r} as a title")
    finally:
        subprocess.run(
            [TMUX, "-S", live.m.socket, "display-popup", "-C", "-c", client],
            env=live.m.env,
            check=False,
        )
        popup.wait(10)
    assert nothing_ran(live)
