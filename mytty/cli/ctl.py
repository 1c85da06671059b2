"""``mytty-ctl``: the machine CLI. Exactly one JSON line on stdout and exit 0, or one line
``mytty-ctl: <code>: <explanation>`` on stderr and exit 1.

Every command's arguments, help and request come from its declaration (``COMMAND`` in
``mytty/control/<command>.py``, see :mod:`mytty.control.spec`); this module only interprets
declarations. Agents call it in loops, so it imports the stdlib, the light declaration modules
and, lazily, only the one command module it runs: never libtmux, typer, the controller, the
handlers' dependencies or the ``ErrorCode`` enum (``tests/cli/test_ctl_imports.py``).
"""

from __future__ import annotations

import gc

# A process that lives for one request never needs the cycle collector, and its passes during
# the imports below cost more than the imports themselves.
gc.disable()

import math  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:  # (typing itself is a noticeable share of a mytty-ctl run)
    from types import ModuleType
    from typing import Any, NoReturn

# CtlError is re-exported: mytty-ctl's callers catch ctl.CtlError.
from mytty.cli.transport import CtlError as CtlError  # noqa: E402
from mytty.cli.transport import send  # noqa: E402
from mytty.control import spec  # noqa: E402
from mytty.core import codes  # noqa: E402
from mytty.protocol.jsonlite import dumps  # noqa: E402

#: The extra seconds a wait's reply may take beyond the wait itself.
WAIT_GRACE = 5.0
#: ``int()`` refuses more digits than this (and a sequence number never has them).
MAX_COUNT_DIGITS = 19
#: Every command takes ``--host NAME`` (before the command word too); ``MYTTY_HOST`` is its
#: default. The command then runs on that host's controller (mytty.cli.hosts.route).
HOST_FLAG = "--host"
HOST_VAR = "MYTTY_HOST"


def _fail(code: str, message: str) -> NoReturn:
    raise CtlError(code, message)


class HelpRequested(Exception):
    """``--help`` among a command's arguments: print its help instead of running it."""


# --------------------------------------------------------------------------------------------
# finding the command
# --------------------------------------------------------------------------------------------
def find_command(argv: list[str]) -> tuple[ModuleType, list[str]]:
    """The command module named by the first word(s) of ``argv``, and the rest of ``argv``."""
    from mytty.control import registry

    word = argv[0]
    if word in registry.GROUPS:
        subs = registry.subcommands(word)
        if len(argv) < 2 or argv[1] in ("-h", "--help"):
            if len(argv) >= 2:
                raise HelpRequested(word)
            _fail(codes.USAGE, f"mytty-ctl {word} {'|'.join(subs)} ...")
        module = registry.module_for(f"{word} {argv[1]}")
        if module is None:
            _fail(codes.USAGE, f"unknown {word} command {argv[1]!r}; use {_one_of(tuple(subs))}")
        return module, argv[2:]
    module = registry.module_for(word)
    if module is None:
        _fail(codes.USAGE, f"unknown command {word!r}{_did_you_mean(word)}; run mytty-ctl --help")
    return module, argv[1:]


def _did_you_mean(word: str) -> str:
    """`` (did you mean integration?)`` for a near miss such as ``mytty integrations``'s noun."""
    import difflib

    from mytty.control import registry

    words = [*registry.GROUPS, *(n for n, _ in registry.ENTRIES if n and " " not in n)]
    close = difflib.get_close_matches(word, words, n=1, cutoff=0.8)
    return f" (did you mean {close[0]}?)" if close else ""


def _one_of(words: tuple[str, ...]) -> str:
    from mytty.core.vocab import one_of

    return one_of(words)


# --------------------------------------------------------------------------------------------
# argument parsing: options may sit anywhere; a value option takes the next word as is;
# ``--`` ends the options
# --------------------------------------------------------------------------------------------
def parse_args(command: spec.Command, tokens: list[str]) -> spec.Values:
    def usage() -> str:
        from mytty.control.manual import synopsis

        return f"mytty-ctl {synopsis(command)}"

    def fail(code: str, message: str) -> NoReturn:
        _fail(code, f"{message} (usage: {usage()})" if code == codes.USAGE else message)

    positionals: list[str] = []
    options: dict[str, str] = {}
    flags: set[str] = set()
    i, only_positionals = 0, False
    while i < len(tokens):
        tok = tokens[i]
        if only_positionals or not tok.startswith("--") or len(tok) == 2:
            if tok == "--" and not only_positionals:
                only_positionals = True
            elif tok == "-h" and i == 0 and not only_positionals:
                raise HelpRequested(command.name)
            else:
                positionals.append(tok)
            i += 1
            continue
        name, eq, inline = tok.partition("=")
        if name == "--help":
            raise HelpRequested(command.name)
        if name == HOST_FLAG:
            if not eq and i + 1 >= len(tokens):
                fail(codes.USAGE, f"{name} requires a value")
            options[HOST_FLAG] = inline if eq else tokens[i + 1]
            i += 1 if eq else 2
            continue
        opt = command.option(name)
        if opt is None:
            fail(codes.USAGE, f"unknown option {name}")
        if opt.takes_value:
            if eq:
                options[opt.flag] = inline
            elif i + 1 < len(tokens):
                i += 1
                options[opt.flag] = tokens[i]
            else:
                fail(codes.USAGE, f"{name} requires a value")
        elif eq:
            fail(codes.USAGE, f"{name} takes no value")
        else:
            flags.add(opt.flag)
        i += 1
    required = sum(1 for a in command.args if not a.optional)
    most = len(positionals) if command.args and command.args[-1].variadic else len(command.args)
    if not required <= len(positionals) <= most:
        _fail(codes.USAGE, usage())
    return spec.Values(positionals, options, flags, fail)


def _convert(
    field: spec.Field, label: str, text: str, values: spec.Values, host: str | None = None
) -> Any:
    kind = field.kind
    if kind == spec.PATH:
        if host is None:
            return os.path.abspath(os.path.expanduser(text))
        if not os.path.isabs(text):
            values.fail(codes.USAGE, f"{label} must be an absolute directory of host {host}")
        return text
    if host is not None and host != _mixed() and _is_id(field):
        text = _bare(text)
    if kind == spec.JOB:
        return {"rawValue": text}
    if kind == spec.LIST:
        return [word for word in text.split(",") if word]
    if kind == spec.COUNT:
        if not (text.isascii() and text.isdigit()) or len(text) > MAX_COUNT_DIGITS:
            values.fail(codes.USAGE, f"{label} needs a non-negative integer, got {_short(text)}")
        return int(text)
    if kind == spec.SECONDS:
        return _seconds(field, label, text, values)
    return text


def _seconds(field: spec.Field, label: str, text: str, values: spec.Values) -> float:
    """A duration: a non-number is a usage error, a number out of range an invalid request
    (as the controller answers a raw request: mytty.control.base)."""
    try:
        number = float(text)
    except ValueError:
        values.fail(codes.USAGE, f"{label} needs a number, got {_short(text)}")
    if not math.isfinite(number):
        values.fail(codes.USAGE, f"{label} needs a finite number, got {_short(text)}")
    problem = spec.out_of_range(field, number)
    if problem is not None:
        values.fail(codes.INVALID_REQUEST, f"{label} {problem}")
    return number


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _check_choice(
    choices: tuple[str, ...], code: str, label: str, text: str, values: spec.Values
) -> None:
    if choices and text not in choices:
        from mytty.core.vocab import suggestion

        hint = suggestion(text, choices)
        values.fail(code, f"{label} must be {_one_of(choices)}, got {_short(text)}{hint}")


def build_request(
    command: spec.Command, tokens: list[str]
) -> tuple[dict[str, Any], float, spec.Values]:
    """Turn a command's arguments into (request, receive timeout, parsed values)."""
    request, timeout, values, _ = build_routed(command, tokens, None)
    return request, timeout, values


def _names_a_host(command: spec.Command, values: spec.Values) -> bool:
    """A qualified id (``NAME:<id>``) among the id arguments? Cheap when no word holds a ``:``."""
    if not any(":" in word for word in (*values.positionals, *values.options.values())):
        return False
    from mytty.cli.hosts.route import hosts_named

    return any(host is not None for host in hosts_named(command, values))


def _mixed() -> str:
    from mytty.cli.hosts.route import MIXED

    return MIXED


def _bare(text: str) -> str:
    from mytty.cli.hosts.route import bare

    return bare(text)


def _is_id(field: spec.Field) -> bool:
    from mytty.cli.hosts.route import names_an_id

    return names_an_id(field)


def build_routed(
    command: spec.Command, tokens: list[str], host: str | None
) -> tuple[dict[str, Any], float, spec.Values, str | None]:
    """(request, receive timeout, parsed values, route): the route is the host the command
    goes to (``host``, a ``--host`` among ``tokens``, or the host its ids name), None for
    this host's controller. A routed request carries no fact of this machine: no pane id
    from the environment, no directory of this machine."""
    values = parse_args(command, tokens)
    host = values.options.get(HOST_FLAG) or host
    if host is not None or _names_a_host(command, values):
        from mytty.cli.hosts.route import pick

        host = pick(command, values, host)
    request: dict[str, Any] = {"type": command.wire}
    given: list[str | None] = [*values.positionals]
    for arg, text in zip(command.args, given + [None] * len(command.args), strict=False):
        if text is None and isinstance(arg.default, str):
            text = arg.default
        if text is None:
            continue
        _check_choice(arg.choices, arg.code, arg.metavar.lower(), text, values)
        if arg.wire is not None:
            request[arg.wire] = _convert(arg, arg.metavar, text, values, host)
    for opt in command.options:
        text = values.options.get(opt.flag)
        if not opt.takes_value:
            if opt.wire is not None:
                request[opt.wire] = opt.flag in values.flags
            continue
        if not text and opt.env_default and host is None:
            text = os.environ.get(opt.env_default) or None
        if text is None:
            if opt.required:
                alt = f" or {opt.env_default}" if opt.env_default else ""
                shown = f"{opt.flag} {_one_of(opt.choices)}" if opt.choices else opt.flag
                values.fail(codes.USAGE, f"{command.name} needs {shown}{alt}")
            if opt.wire is not None and opt.default is not None:
                request[opt.wire] = opt.default
            elif opt.wire is not None and opt.kind == spec.LIST:
                request[opt.wire] = []
            continue
        if opt.nonempty and text == "":
            values.fail(opt.code, f"{opt.flag} must not be empty")
        _check_choice(opt.choices, opt.code, opt.flag, text, values)
        if opt.wire is not None:
            request[opt.wire] = _convert(opt, opt.flag, text, values, host)
    for group in dict.fromkeys(o.group for o in command.options if o.group):
        flags = [o.flag for o in command.options if o.group == group]
        if sum(1 for f in flags if f in values.options or f in values.flags) != 1:
            values.fail(codes.USAGE, f"give exactly one of {_one_of(tuple(flags))}")
    timeout = command.client(request, values) if command.client else None
    if host is not None:
        _for_host(command, request, host)
    if command.wire_order:
        order = {key: n for n, key in enumerate(("type", *command.wire_order))}
        request = dict(sorted(request.items(), key=lambda kv: order.get(kv[0], len(order))))
    if timeout is None:
        timeout = command.receive_timeout
        if command.wait_key is not None and command.wait_key in request:
            timeout = math.ceil(request[command.wait_key]) + WAIT_GRACE
    return request, timeout, values, host


def _for_host(command: spec.Command, request: dict[str, Any], host: str) -> None:
    """What a client hook added that only means something here: this machine's directories
    (``agent spawn``'s own working directory) are left out; job lists lose their host."""
    for field in command.wire_fields:
        if field.wire in request and field.kind == spec.PATH:
            request[field.wire] = None
        elif field.wire in request and field.kind == spec.JOB_LIST and host != _mixed():
            request[field.wire] = [{"rawValue": _bare(j["rawValue"])} for j in request[field.wire]]


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------
def _check_utf8(argv: list[str]) -> None:
    for n, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            byte = ord(arg[exc.start]) - 0xDC00 if "\udc80" <= arg[exc.start] <= "\udcff" else None
            what = f" (byte 0x{byte:02x})" if byte is not None else ""
            _fail(codes.USAGE, f"argument {n} is not valid UTF-8{what}")


def _offline(argv: list[str]) -> str | None:
    """The output of the commands that need no controller, or None."""
    word = argv[0] if argv else "--help"
    if word in ("--help", "-h"):
        from mytty.control.manual import usage_text

        return usage_text()
    if word in ("--version", "-V"):
        from mytty import __version__

        return f"mytty-ctl {__version__}\n"
    if word == "guide":
        from mytty.control.manual import guide_text

        return guide_text()
    if word == "completion":
        from mytty.cli.ctl_completion import completion_script

        return completion_script(argv[1:])
    if word == "__complete":
        from mytty.cli.ctl_completion import complete

        return complete(argv[1:])
    if word.startswith("__") and word in ("__hello", "__relay", "__connect", "__send"):
        from mytty.cli.hosts import remote as ctl_remote

        return ctl_remote.run(word, argv[1:])
    return None


def _leading_host(argv: list[str]) -> tuple[list[str], str | None]:
    """``--host NAME`` (or ``--host=NAME``) before the command word, taken off ``argv``;
    else ``MYTTY_HOST``."""
    if argv and argv[0].startswith(HOST_FLAG):
        word, eq, inline = argv[0].partition("=")
        if word == HOST_FLAG:
            if eq:
                return argv[1:], inline
            if len(argv) < 2:
                _fail(codes.USAGE, f"{HOST_FLAG} requires a host name")
            return argv[2:], argv[1]
    return argv, os.environ.get(HOST_VAR) or None


def run(argv: list[str]) -> int:
    try:
        _check_utf8(argv)
        argv, host = _leading_host(argv)
        text = _offline(argv)
        if text is not None:
            sys.stdout.write(text)
            return 0
        try:
            module, rest = find_command(argv)
            command: spec.Command = module.COMMAND
            request, timeout, values, route = build_routed(command, rest, host)
        except HelpRequested as asked:
            from mytty.control.manual import help_text

            sys.stdout.write(help_text(str(asked.args[0])))
            return 0
        if route is None:
            reply = send(request, timeout)
        else:
            from mytty.cli.hosts import route as ctl_route

            reply = ctl_route.send(command, request, timeout, route)
    except CtlError as exc:
        sys.stderr.write(f"mytty-ctl: {exc.code}: {exc.message}\n")
        return 1
    if command.render is not None:
        sys.stdout.write(command.render(reply, values))
        return 0
    line = dumps(reply, sort_keys=True)
    # JSON allows U+2028/U+2029 raw, but many readers (Python's splitlines, JavaScript) take
    # them for line breaks: escaped, the reply stays one line for every reader.
    if "\u2028" in line or "\u2029" in line:
        line = line.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    sys.stdout.write(line + "\n")
    return 0


def main() -> None:
    try:
        code = run(sys.argv[1:])
        sys.stdout.flush()
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        # The reader went away (``| head``): end quietly, as other Unix tools do. stdout now
        # points at /dev/null so the interpreter's last flush finds no closed pipe either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
