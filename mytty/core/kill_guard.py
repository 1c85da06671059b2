"""The kill-server guard: does a shell command an agent is about to run kill mytty's tmux server?

A worker agent that runs ``tmux kill-server`` inside its pane kills the server mytty, the
lead and every other worker live on (a reported peer lost 27 sessions in 2 s that way). The
``PreToolUse`` hook of a worker mytty spawned hands the command to :func:`check_shell` and
denies it when this says so; the agent is told to run its own server with ``-L``.

What is refused, when aimed at the protected server: ``kill-server``; ``kill-session`` (any:
the default target is the worker's own session, which holds the others); ``kill-window`` (the
worker's window may hold the lead); ``kill-pane -a``; also ``pkill``/``killall`` of tmux
(every server dies). ``kill-pane`` of one pane, and anything on another server, is allowed.

Which server a ``tmux`` invocation talks to is worked out like tmux does: ``-S path``;
``-L name`` → ``$TMUX_TMPDIR`` (or ``/tmp``) ``/tmux-<uid>/<name>``; neither → the socket in
``$TMUX``, else ``…/default``. The environment is followed through the command line:
``VAR=value`` prefixes, ``env [-i] [-u VAR]``, ``export``/``unset``, in order along ``;``
``&&`` ``||`` ``|`` chains.

The shell text is read with a small POSIX-style lexer (quotes, escapes, ``$(…)`` and
backquotes, comments, redirections, operators). Nested commands are checked too: ``sh -c``
/ ``bash -lc`` scripts, ``eval``, command substitutions, wrappers (``command``, ``exec``,
``nohup``, ``sudo``, ``timeout``, ``nice``, ``setsid``, ``xargs``…), tmux's own ``;``
sequences and the commands tmux runs for you (``run-shell``, ``confirm-before``,
``bind-key``…, whose arguments are read both as tmux commands and as shell text). It is a
guard against accidents, not a sandbox: ``python -c 'os.system(…)'`` gets through.

Pure: the environment, the uid, the working directory and "is this path the protected
server?" come in as arguments; work per call is bounded (:data:`MAX_WORDS`). The hook helper
imports this module, so it stays cheap to import (no ``dataclasses``, ``re`` or ``shlex``).
"""

from __future__ import annotations

import os.path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

#: Set in every pane ``agent spawn`` creates: this pane runs a worker mytty spawned.
WORKER_VAR = "MYTTY_WORKER"
#: Set (to the tmux socket mytty's controller uses) when the guard is on for that worker.
GUARD_VAR = "MYTTY_TMUX_GUARD"


def worker_environment(*, guard_on: bool, tmux_socket: str) -> dict[str, str]:
    """The variables ``agent spawn`` adds to a worker's pane: the worker mark, and the guard."""
    env = {WORKER_VAR: "1"}
    if guard_on and tmux_socket:
        env[GUARD_VAR] = tmux_socket
    return env


#: Words looked at per call, nested scripts included; past it the rest is not checked.
MAX_WORDS = 50_000
#: How deep ``sh -c`` / ``eval`` / tmux nesting is followed.
MAX_DEPTH = 8

_KILL_COMMANDS = ("kill-pane", "kill-server", "kill-session", "kill-window")
_KILL_ALIASES = {"killp": "kill-pane", "killw": "kill-window"}
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish"})
# Prefix words and wrappers that run the rest of the line as a command.
_RESERVED = frozenset({"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until"})
_PLAIN_WRAPPERS = frozenset({"command", "builtin", "exec", "nohup", "setsid", "time", "doas"})
# Wrapper options that take a value (the next word), per wrapper.
_WRAPPER_VALUE_OPTIONS = {
    "sudo": frozenset("ugCDhpRrTU"),
    "nice": frozenset("n"),
    "timeout": frozenset("sk"),
    "stdbuf": frozenset("ioe"),
    "xargs": frozenset("EeIiLlnPsd"),
    "ionice": frozenset("cnp"),
    "chrt": frozenset(),
    "taskset": frozenset(),
}
# tmux global options that take a value.
_TMUX_VALUE_OPTIONS = frozenset("cfLST")
_TMUX_KILLERS = frozenset({"pkill", "killall"})
# What a command cut short by the limits is refused for, found as plain text.
_LAST_RESORT = ("kill-server", "kill-session", "kill-window")


class Refusal:
    """Why a command is refused: what it would run (``tmux kill-server``) and on which socket."""

    __slots__ = ("command", "socket")

    def __init__(self, command: str, socket: str) -> None:
        self.command = command
        self.socket = socket

    def __repr__(self) -> str:
        return f"Refusal({self.command!r}, {self.socket!r})"

    def message(self) -> str:
        team = "mytty, your lead and the other workers run on"
        where = (
            f"the tmux server at {self.socket} that {team}"
            if self.socket
            else f"every tmux server, including the one {team}"
        )
        return (
            f"mytty refused this: `{self.command}` would end {where}. If you need tmux, start "
            "your own server on its own socket and always name it: `tmux -L <your-name> "
            "new-session -d …`, then `tmux -L <your-name> kill-server` when you are done."
        )


class GuardInput:
    """What the guard needs besides the command (all of it from the hook's process).

    ``is_protected(path)``: whether a socket path is the protected server (the hook compares
    real paths).
    """

    __slots__ = ("cwd", "env", "is_protected", "uid")

    def __init__(
        self, env: Mapping[str, str], uid: int, cwd: str, is_protected: Callable[[str], bool]
    ) -> None:
        self.env = env
        self.uid = uid
        self.cwd = cwd
        self.is_protected = is_protected


# -- the lexer ---------------------------------------------------------------------------------

_OPERATOR_CHARS = frozenset(";&|()\n")
_SEPARATOR = "\x00sep"  # a command boundary (`;`, `&&`, `|`, newline, parentheses)


class _Lexed:
    __slots__ = ("nested", "words")

    def __init__(self) -> None:
        self.words: list[str] = []  # words and _SEPARATOR markers
        self.nested: list[str] = []  # $(…) and `…` bodies


def _skip_balanced(text: str, start: int) -> int:
    """Index just after the ``)`` closing the ``$(`` whose body starts at ``start``."""
    depth, i, n = 1, start, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _substitution(text: str, i: int, word: list[str], nested: list[str]) -> int:
    """Read the ``$(…)`` at ``i``: its body is checked on its own, its text stays in the word."""
    end = _skip_balanced(text, i + 2)
    nested.append(text[i + 2 : end - 1])
    word.append(text[i:end])
    return end


def _backquoted(text: str, i: int, nested: list[str]) -> int:
    """Index of the closing backquote of the one at ``i`` (``len(text)`` if none); keeps the body."""
    end = text.find("`", i + 1)
    end = len(text) if end < 0 else end
    nested.append(text[i + 1 : end])
    return end


def _double_quoted(text: str, i: int, word: list[str], nested: list[str]) -> int:
    """Read a ``"…"`` body starting at ``i`` into ``word``; the index after the closing quote."""
    n = len(text)
    while i < n and text[i] != '"':
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                word.append(text[i + 1])
            i += 2
        elif c == "$" and text.startswith("$(", i) and not text.startswith("$((", i):
            i = _substitution(text, i, word, nested)
        elif c == "`":
            i = _backquoted(text, i, nested) + 1  # inside quotes the body is not kept as text
        else:
            word.append(c)
            i += 1
    return i + 1


def _end_word(words: list[str], word: list[str], in_word: bool, drop_next: bool) -> bool:
    """Close the word being read (kept, or dropped as a redirection target); the new drop_next."""
    if in_word and not drop_next:
        words.append("".join(word))
    word.clear()
    return drop_next and not in_word


def _skip_redirection(text: str, i: int) -> int:
    """The index after the redirection operator at ``i`` (``>``, ``2>&1``'s ``>&``, ``&>>``…)."""
    n = len(text)
    if text[i] == "&":  # bash's &> redirection
        i += 2
        while i < n and text[i] in ">|":
            i += 1
        return i
    i += 1
    while i < n and text[i] in "<>&|-":
        i += 1
    return i


def lex(text: str) -> _Lexed:
    """Split shell text into words and command boundaries (see the module docstring)."""
    out = _Lexed()
    words, nested = out.words, out.nested
    word: list[str] = []
    in_word = False  # a word has started (even an empty quoted one)
    drop_next = False  # the next word is a redirection target
    i, n = 0, len(text)
    # Plain characters and blanks are most of any command: they stay inline here, and only the
    # rarer constructs are read by the helpers above.
    while i < n:
        ch = text[i]
        if ch == "\\":
            if i + 1 < n and text[i + 1] != "\n":
                word.append(text[i + 1])
                in_word = True
            i += 2
        elif ch == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            word.append(text[i + 1 : end])
            in_word = True
            i = end + 1
        elif ch == '"':
            i = _double_quoted(text, i + 1, word, nested)
            in_word = True
        elif ch == "$" and text.startswith("$(", i) and not text.startswith("$((", i):
            i = _substitution(text, i, word, nested)
            in_word = True
        elif ch == "`":
            end = _backquoted(text, i, nested)
            word.append(text[i : end + 1])
            in_word = True
            i = end + 1
        elif ch == "#" and not in_word:
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch in " \t\r":
            if in_word:  # (with no word started there is nothing to end)
                drop_next = _end_word(words, word, in_word, drop_next)
                in_word = False
            i += 1
        elif ch in "<>":
            if in_word and "".join(word).isdigit():
                word.clear()  # the fd number of 2>file
                in_word = False
            _end_word(words, word, in_word, drop_next)
            in_word, drop_next = False, True
            i = _skip_redirection(text, i)
        elif ch in _OPERATOR_CHARS:
            _end_word(words, word, in_word, drop_next)
            in_word = False
            if ch == "&" and i + 1 < n and text[i + 1] == ">":  # bash's &> redirection
                drop_next = True
                i = _skip_redirection(text, i)
            else:
                drop_next = False
                if not words or words[-1] != _SEPARATOR:
                    words.append(_SEPARATOR)
                i += 1
        else:
            word.append(ch)
            in_word = True
            i += 1
    _end_word(words, word, in_word, drop_next)
    return out


# -- the checker -------------------------------------------------------------------------------


def _kill_name(word: str) -> str | None:
    """The kill command tmux would run for ``word`` (a name, alias or unique prefix)."""
    if word in _KILL_ALIASES:
        return _KILL_ALIASES[word]
    matches = [name for name in _KILL_COMMANDS if name.startswith(word)]
    # No other tmux command starts with "k", so a prefix of exactly one kill-* is that one.
    if len(word) >= 6 and len(matches) == 1:
        return matches[0]
    return word if word in _KILL_COMMANDS else None


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return (
        bool(eq)
        and bool(name)
        and (name[0].isalpha() or name[0] == "_")
        and all(c.isalnum() or c == "_" for c in name)
    )


def _basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


class _Checker:
    def __init__(self, guard: GuardInput) -> None:
        self.guard = guard
        self.budget = MAX_WORDS
        self.cut_short = False  # the budget or the depth limit stopped a check

    # -- shell level ---------------------------------------------------------------------------
    def script(self, text: str, env: dict[str, str], depth: int) -> Refusal | None:
        if depth > MAX_DEPTH or self.budget <= 0:
            self.cut_short = True
            return None
        lexed = lex(text)
        for body in lexed.nested:
            found = self.script(body, dict(env), depth + 1)
            if found:
                return found
        command: list[str] = []
        for word in [*lexed.words, _SEPARATOR]:
            self.budget -= 1
            if self.budget <= 0:
                self.cut_short = True
                return None
            if word != _SEPARATOR:
                command.append(word)
                continue
            if command:
                found = self.simple(command, env, depth)
                if found:
                    return found
            command = []
        return None

    def simple(self, words: Sequence[str], env: dict[str, str], depth: int) -> Refusal | None:
        """One simple command; ``env`` is the shell's environment, updated in place."""
        words = list(words)
        local = dict(env)
        while words and words[0] in _RESERVED:
            words.pop(0)
        assigned = False
        while words and _is_assignment(words[0]):
            name, _, value = words.pop(0).partition("=")
            local[name] = value
            assigned = True
        if not words:
            if assigned:
                env.clear()
                env.update(local)  # plain assignments stay for the commands after
            return None
        return self.argv(words, local, env, depth)

    def argv(
        self, words: list[str], local: dict[str, str], shell_env: dict[str, str], depth: int
    ) -> Refusal | None:
        if depth > MAX_DEPTH:
            return None
        while words:
            name = _basename(words[0])
            if name in _RESERVED or name in _PLAIN_WRAPPERS:
                words = words[1:]
                if name == "command":
                    while words and words[0].startswith("-"):
                        words = words[1:]
                continue
            if name in _WRAPPER_VALUE_OPTIONS:
                words = self._skip_options(words[1:], _WRAPPER_VALUE_OPTIONS[name])
                if name == "timeout" and words:
                    words = words[1:]  # the duration
                elif name in ("chrt", "taskset") and words:
                    words = words[1:]  # the priority / mask
                while words and _is_assignment(words[0]):  # sudo VAR=value cmd
                    key, _, value = words.pop(0).partition("=")
                    local[key] = value
                continue
            if name == "env":
                words, nested = self._env(words[1:], local)
                if nested is not None:
                    return self.script(nested, dict(local), depth + 1)
                continue
            break
        if not words:
            return None
        name = _basename(words[0])
        if name == "export" or name == "readonly":
            for word in words[1:]:
                if _is_assignment(word):
                    key, _, value = word.partition("=")
                    shell_env[key] = value
            return None
        if name == "unset":
            for word in words[1:]:
                shell_env.pop(word, None)
            return None
        if name == "eval":
            return self.script(" ".join(words[1:]), dict(local), depth + 1)
        if name in _SHELLS:
            script = self._shell_script(words[1:])
            return None if script is None else self.script(script, dict(local), depth + 1)
        if name in _TMUX_KILLERS:
            if any("tmux" in word for word in words[1:] if not word.startswith("-")):
                return Refusal(f"{name} tmux", "")
            return None
        if name == "tmux":
            return self.tmux(words[1:], local, depth)
        return None

    @staticmethod
    def _skip_options(words: list[str], takes_value: frozenset[str]) -> list[str]:
        while words and words[0].startswith("-") and words[0] != "-":
            word = words.pop(0)
            if word == "--":
                break
            if word.startswith("--"):
                continue  # --opt=value, or a long flag
            cluster = word[1:]
            for index, letter in enumerate(cluster):
                if letter in takes_value:
                    if index == len(cluster) - 1 and words:
                        words.pop(0)
                    break
        return words

    @staticmethod
    def _env(words: list[str], local: dict[str, str]) -> tuple[list[str], str | None]:
        """Apply ``env``'s options and assignments; (the command words, an ``-S`` script)."""
        while words:
            word = words[0]
            if word in ("-i", "-", "--ignore-environment"):
                local.clear()
            elif word in ("-u", "--unset") and len(words) > 1:
                local.pop(words[1], None)
                words = words[1:]
            elif word.startswith("--unset="):
                local.pop(word.split("=", 1)[1], None)
            elif word.startswith("-u") and len(word) > 2:
                local.pop(word[2:], None)
            elif word in ("-S", "--split-string") and len(words) > 1:
                return [], " ".join(words[1:])
            elif word in ("-C", "--chdir") and len(words) > 1:
                words = words[1:]
            elif word == "--":
                words = words[1:]
                break
            elif word.startswith("-"):
                pass
            elif _is_assignment(word):
                key, _, value = word.partition("=")
                local[key] = value
            else:
                break
            words = words[1:]
        return words, None

    @staticmethod
    def _shell_script(args: list[str]) -> str | None:
        """The ``-c`` script of a shell's arguments (``-c``, ``-lc``, ``-ec``, ``-o x -c``)."""
        for index, arg in enumerate(args):
            if arg == "--":
                return None
            if not arg.startswith("-") and not arg.startswith("+"):
                return None  # a script file: not ours to read
            if arg.startswith("--"):
                continue
            if "c" in arg[1:]:
                return args[index + 1] if index + 1 < len(args) else None
        return None

    # -- tmux level ----------------------------------------------------------------------------
    def _tmpdir_socket(self, env: Mapping[str, str], name: str) -> str:
        tmpdir = env.get("TMUX_TMPDIR") or "/tmp"
        return os.path.join(tmpdir, f"tmux-{self.guard.uid}", name)

    def _default_socket(self, env: Mapping[str, str]) -> str:
        inside = env.get("TMUX", "")
        if inside:
            return inside.split(",", 1)[0]
        return self._tmpdir_socket(env, "default")

    def tmux(self, args: list[str], env: dict[str, str], depth: int) -> Refusal | None:
        socket: str | None = None
        shell_command: str | None = None
        while args and args[0].startswith("-") and args[0] != "-":
            word = args.pop(0)
            if word == "--":
                break
            cluster = word[1:]
            for index, letter in enumerate(cluster):
                if letter not in _TMUX_VALUE_OPTIONS:
                    continue
                value = cluster[index + 1 :]
                if not value:
                    value = args.pop(0) if args else ""
                if letter == "L":
                    socket = self._tmpdir_socket(env, value)
                elif letter == "S":
                    socket = os.path.normpath(os.path.join(self.guard.cwd, value))
                elif letter == "c":
                    shell_command = value
                break
        target = socket or self._default_socket(env)
        if shell_command is not None:
            found = self.script(shell_command, {**env, "TMUX": f"{target},0,0"}, depth + 1)
            if found:
                return found
        if not self.guard.is_protected(target):
            return None
        return self.tmux_commands(args, target, env, depth)

    def tmux_commands(
        self, args: Sequence[str], target: str, env: Mapping[str, str], depth: int
    ) -> Refusal | None:
        """tmux commands (``;``-separated) already known to run on the protected ``target``."""
        if depth > MAX_DEPTH:
            self.cut_short = True
            return None
        for command in _split_tmux_commands(args):
            self.budget -= len(command)
            if self.budget <= 0:
                self.cut_short = True
                return None
            if not command:
                continue
            found = self._tmux_command(command, target)
            if found:
                return found
            # Arguments that are commands themselves: bind-key x kill-server, run-shell 'tmux
            # kill-server', confirm-before 'kill-session -a', new-window 'tmux kill-server'.
            for index, arg in enumerate(command[1:], start=1):
                if _kill_name(arg):
                    found = self.tmux_commands(command[index:], target, env, depth + 1)
                elif any(c in arg for c in " \t\n;"):
                    server_env = {**env, "TMUX": f"{target},0,0"}
                    found = self.tmux_commands(
                        [w for w in lex(arg).words if w != _SEPARATOR], target, env, depth + 1
                    ) or self.script(arg, server_env, depth + 1)
                if found:
                    return found
        return None

    @staticmethod
    def _tmux_command(command: Sequence[str], target: str) -> Refusal | None:
        name = _kill_name(command[0])
        if name is None:
            return None
        flags = {letter for word in command[1:] if word.startswith("-") for letter in word[1:]}
        if name in ("kill-server", "kill-session", "kill-window"):
            suffix = " -a" if "a" in flags and name != "kill-server" else ""
            return Refusal(f"tmux {name}{suffix}", target)
        if name == "kill-pane" and "a" in flags:
            return Refusal("tmux kill-pane -a", target)
        return None


def _split_tmux_commands(args: Sequence[str]) -> Iterator[list[str]]:
    """tmux's own command sequence: an argument ``;`` (or ending in an unescaped ``;``)."""
    current: list[str] = []
    for arg in args:
        if arg == ";":
            yield current
            current = []
        elif arg.endswith(";") and not arg.endswith("\\;"):
            current.append(arg[:-1])
            yield current
            current = []
        else:
            current.append(arg)
    yield current


def _may_kill(text: str) -> bool:
    """False only when ``text`` surely names no kill (no "kill", no quote or escape to hide one)."""
    return "kill" in text or any(c in text for c in "\\'\"$`")


def check_shell(command: str, guard: GuardInput) -> Refusal | None:
    """The refusal for a shell command line (a Bash tool's ``command``), or None to allow it."""
    if not _may_kill(command):
        return None  # the common case, without lexing
    checker = _Checker(guard)
    found = checker.script(command, dict(guard.env), 0)
    if found is None and checker.cut_short:
        # Too long or too deeply nested to read in full: refuse on the words alone.
        word = next((w for w in _LAST_RESORT if w in command), None)
        if word is not None:
            return Refusal(f"tmux {word} (in a command too long or nested to read)", "")
    return found


def check_argv(argv: Sequence[str], guard: GuardInput) -> Refusal | None:
    """The same for a command given as an argv (no shell in between)."""
    if not argv:
        return None
    env = dict(guard.env)
    return _Checker(guard).simple(list(argv), env, 0)
