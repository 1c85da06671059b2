"""The kill-server guard over many command shapes (tables), and over generated ones (hypothesis)."""

from __future__ import annotations

import os.path
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.core.kill_guard import GuardInput, Refusal, check_argv, check_shell, lex

MYTTY = "/tmp/mytty-guard-test/tmux.sock"
INSIDE = {"TMUX": f"{MYTTY},4242,0", "PATH": "/usr/bin:/bin"}


def guard(env: dict[str, str] | None = None, protected: str = MYTTY) -> GuardInput:
    return GuardInput(
        INSIDE if env is None else env,
        1000,
        "/work",
        lambda path: os.path.normpath(path) == protected,
    )


def refused(command: str, g: GuardInput | None = None) -> Refusal | None:
    return check_shell(command, g or guard())


REFUSED = [
    "tmux kill-server",
    "tmux kill-ser",
    "tmux kill-session -a",
    "tmux kill-session",
    "tmux kill-ses -t mytty",
    "tmux kill-window",
    "tmux killw -a",
    "tmux kill-pane -a",
    "tmux kill-pane -a -t %1",
    "/usr/bin/tmux kill-server",
    "tmux -u kill-server",
    "tmux -2u kill-server",
    "tmux -f /dev/null kill-server",
    f"tmux -S {MYTTY} kill-server",
    f"tmux -S{MYTTY} kill-server",
    "TMUX_TMPDIR=/elsewhere tmux kill-server",  # $TMUX still names mytty's server
    "cd /tmp && tmux kill-server",
    "echo hi; tmux kill-server",
    "false || tmux kill-server",
    "ls | tmux kill-server",
    "echo a\ntmux kill-server",
    "(tmux kill-server)",
    "{ tmux kill-server; }",
    "if true; then tmux kill-server; fi",
    "tmux kill-server 2>/dev/null",
    "tmux kill-server >/dev/null 2>&1 &",
    "tmux kill-server &>/dev/null",
    "sh -c 'tmux kill-server'",
    'bash -lc "tmux kill-server"',
    "bash -e -c 'echo x; tmux kill-session -a'",
    "env FOO=1 tmux kill-server",
    "env -u FOO tmux kill-server",
    "env -S 'tmux kill-server'",
    "FOO=1 BAR=2 tmux kill-server",
    "command tmux kill-server",
    "exec tmux kill-server",
    "nohup tmux kill-server &",
    "timeout 5 tmux kill-server",
    "timeout -s KILL 5 tmux kill-server",
    "nice -n 10 tmux kill-server",
    "xargs tmux kill-server",
    "setsid tmux kill-server",
    "eval 'tmux kill-server'",
    "eval tmux kill-server",
    "echo $(tmux kill-server)",
    'echo "$(tmux kill-server)"',
    "echo `tmux kill-server`",
    "t'm'ux kill-server",
    "tmux 'kill-server'",
    "tmux kill\\-server",
    'tmux "kill-session" "-a"',
    "tmux new -d \\; kill-server",
    "tmux new -d ';' kill-server",
    "tmux list-sessions; tmux kill-server",
    "tmux run-shell 'tmux kill-server'",
    "tmux run -b 'sleep 1; tmux kill-server'",
    "tmux confirm-before 'kill-session -a'",
    "tmux bind-key X kill-server",
    "tmux new-window 'tmux kill-server'",
    "tmux -c 'tmux kill-server'",
    "pkill tmux",
    "pkill -f 'tmux: server'",
    "killall tmux",
    "sh -c \"sh -c 'tmux kill-server'\"",
]

ALLOWED = [
    "tmux -L other kill-server",
    "tmux -Lother kill-server",
    "tmux -L other kill-session -a",
    "tmux -S /tmp/mine.sock kill-server",
    "tmux -L other new -d \\; kill-server",
    "sh -c 'tmux -L other kill-server'",
    "TMUX= tmux kill-server",  # the default server, not mytty's here
    "env -u TMUX tmux kill-server",
    "env -i tmux kill-server",
    "unset TMUX; tmux kill-server",
    "tmux kill-pane",
    "tmux kill-pane -t %3",
    "tmux list-sessions",
    "tmux -V",
    "tmux display-message hello",
    "echo tmux kill-server",
    "git commit -m 'tmux kill-server is now refused'",
    "grep -r kill-server docs/",
    "man tmux",
    "pkill -f node",
    "killall python3",
    "kill 1234",
    "ls -la # tmux kill-server",
    "cat <<'EOF'\nnothing\nEOF",
    "",
    "   ",
]


@pytest.mark.parametrize("command", REFUSED)
def test_refused(command: str) -> None:
    refusal = refused(command)
    assert refusal is not None, command
    assert "-L" in refusal.message() and "mytty" in refusal.message()


@pytest.mark.parametrize("command", ALLOWED)
def test_allowed(command: str) -> None:
    assert refused(command) is None, command


def test_the_refusal_names_the_command_and_the_server() -> None:
    refusal = refused("sh -c 'tmux kill-session -a'")
    assert refusal is not None
    assert (refusal.command, refusal.socket) == ("tmux kill-session -a", MYTTY)
    assert MYTTY in refusal.message()
    every = refused("pkill tmux")
    assert every is not None and "every tmux server" in every.message()


def test_mytty_on_the_default_server() -> None:
    default = "/tmp/tmux-1000/default"
    outside = guard({"PATH": "/bin"}, protected=default)
    assert refused("tmux kill-server", outside) is not None
    assert refused("tmux -L default kill-server", outside) is not None
    assert refused("TMUX_TMPDIR=/elsewhere tmux kill-server", outside) is None
    assert refused("tmux -L other kill-server", outside) is None
    # $TMUX_TMPDIR moves where -L sockets are.
    moved = guard({"TMUX_TMPDIR": "/run/t"}, protected="/run/t/tmux-1000/work")
    assert refused("tmux -L work kill-server", moved) is not None
    assert refused("tmux -L work kill-server", guard({}, "/run/t/tmux-1000/work")) is None


def test_relative_s_paths_are_read_against_the_working_directory() -> None:
    g = guard(protected="/work/sock")
    assert refused("tmux -S sock kill-server", g) is not None
    assert refused("tmux -S ./sub/../sock kill-server", g) is not None


def test_argv_commands() -> None:
    assert check_argv(["tmux", "kill-server"], guard()) is not None
    assert check_argv(["bash", "-lc", "tmux kill-server"], guard()) is not None
    assert check_argv(["tmux", "-L", "x", "kill-server"], guard()) is None
    assert check_argv([], guard()) is None


def test_lexer_basics() -> None:
    assert lex("a 'b c' \"d $(e f)\" g\\ h").words == ["a", "b c", "d $(e f)", "g h"]
    assert lex("echo $(tmux ls) `id`").nested == ["tmux ls", "id"]
    assert list(lex("a>b 2>&1 c").words) == ["a", "c"]


# -- generated shapes ----------------------------------------------------------------------------

_CORES = st.sampled_from(
    [
        ("tmux kill-server", True),
        ("tmux kill-session -a", True),
        ("tmux kill-window", True),
        ("tmux -L other kill-server", False),
        ("tmux -L w kill-session -a", False),
        ("tmux list-sessions", False),
        ("echo kill-server", False),
    ]
)
_BEFORE = st.sampled_from(["", "echo a; ", "true && ", "cd /tmp && ", "false || ", "ls | "])
_AFTER = st.sampled_from(["", "; echo done", " &", " 2>/dev/null", " | cat", " && echo ok"])
# What a shell would really run: assignments first, then a builtin, then programs that exec
# the rest of their arguments.
_PREFIX = st.tuples(
    st.lists(st.sampled_from(["FOO=bar ", "TMUX_TMPDIR=/x "]), max_size=2).map("".join),
    st.sampled_from(["", "command ", "exec "]),
    st.lists(st.sampled_from(["env A=1 ", "nohup ", "timeout 9 ", "nice "]), max_size=2).map(
        "".join
    ),
).map("".join)
_WRAP = st.sampled_from(["plain", "sh", "bash", "eval", "subst", "paren"])


def _wrap(kind: str, text: str) -> str:
    if kind == "sh":
        return f"sh -c {shlex.quote(text)}"
    if kind == "bash":
        return f"bash -lc {shlex.quote(text)}"
    if kind == "eval":
        return f"eval {shlex.quote(text)}"
    if kind == "subst":
        return f"echo $({text})"
    if kind == "paren":
        return f"( {text} )"
    return text


@settings(max_examples=400, deadline=None)
@given(core=_CORES, before=_BEFORE, after=_AFTER, prefix=_PREFIX, wraps=st.lists(_WRAP, max_size=3))
def test_decorations_never_change_the_verdict(
    core: tuple[str, bool], before: str, after: str, prefix: str, wraps: list[str]
) -> None:
    text, expected = core
    command = f"{before}{prefix}{text}{after}"
    for kind in wraps:
        command = _wrap(kind, command)
    assert (refused(command) is not None) is expected, command


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_answered_without_raising(text: str) -> None:
    refused(text)
    refused("tmux " + text)
    check_argv(text.split(), guard())


@given(st.text(alphabet=st.characters(blacklist_characters="\\'\"$`"), max_size=200))
def test_text_without_kill_is_never_refused(text: str) -> None:
    if "kill" not in text:
        assert refused(text) is None


def test_work_is_bounded_and_what_is_cut_short_is_refused_on_its_words() -> None:
    tail = refused("tmux ls; " * 20_000 + "tmux kill-server")  # past the word budget
    assert tail is not None and "too long" in tail.command
    assert refused("tmux ls; " * 20_000 + "tmux -L mine ls") is None
    nested = "tmux kill-server"
    for _ in range(11):
        nested = f"sh -c {shlex.quote(nested)}"
    deep = refused(nested)  # deeper than MAX_DEPTH
    assert deep is not None and "nested" in deep.command
    shallow = "tmux kill-server"
    for _ in range(5):
        shallow = f"sh -c {shlex.quote(shallow)}"
    found = refused(shallow)
    assert found is not None and found.command == "tmux kill-server"


def test_worker_environment_marks_the_worker_and_names_the_server_when_on() -> None:
    from mytty.core.kill_guard import GUARD_VAR, WORKER_VAR, worker_environment

    on = worker_environment(guard_on=True, tmux_socket=MYTTY)
    assert on == {WORKER_VAR: "1", GUARD_VAR: MYTTY}
    assert worker_environment(guard_on=False, tmux_socket=MYTTY) == {WORKER_VAR: "1"}
    assert (WORKER_VAR, GUARD_VAR) == ("MYTTY_WORKER", "MYTTY_TMUX_GUARD")  # hook/main.py spells it
