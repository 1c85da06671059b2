"""How a control command declares itself: its wire type, CLI shape, error codes and texts.

Every command module ``mytty/control/<command>.py`` holds, in this order:

- ``COMMAND = Command(...)``: the declaration below. ``mytty-ctl``'s parser, ``--help``,
  ``guide`` and shell completion, the reference page (``scripts/gen-docs``), the control
  registry and the check that a handler raises only its declared codes all read it;
- ``class Params`` and ``parse(request) -> Params``: the typed request, read through the
  same declaration (``request.seconds(TIMEOUT)`` takes the key, the default and the range from
  the ``Option`` named ``TIMEOUT``, so each is spelled once; every problem is
  ``invalid-request``). ``tests/control/test_round_trip.py`` holds each command to it: what
  ``mytty-ctl`` builds from a command line, ``parse()`` reads back as the same values, and
  ``parse()`` reads every declared key and no other;
- ``async def handle(ctx, params)``: the controller side.

``mytty-ctl`` imports the one command module it runs (by name, from the registry), so a command
module's top level may import only light modules: this one, ``mytty.core.codes``,
``mytty.core.vocab``, ``mytty.protocol.limits`` and the like (no ``dataclasses``, ``asyncio``
or enums). The handler imports the rest inside its function. ``tests/cli/test_ctl_imports.py``
holds every command module to that. ``Params`` is a plain slotted class with a typed
``__init__``, not a frozen dataclass or a ``NamedTuple``: both generate code at import time
(``dataclasses`` also costs a quarter of a ``mytty-ctl`` call to import), which made one
command's import seven times slower.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:  # (typing itself is a noticeable share of a mytty-ctl run)
    from collections.abc import Callable, Mapping
    from typing import NoReturn

# What a field holds: how the CLI turns an argument into its wire value (mytty.cli.ctl) and
# how the controller reads it back (mytty.control.base.Request). Completion offers by kind.
TEXT = "text"  # as typed
PATH = "path"  # a file or directory; sent ~-expanded and absolute against mytty-ctl's own
PANE_ID = "pane"  # a pane id, as typed (completion offers the controller's panes)
SECONDS = "seconds"  # a finite number from 0 to the field's maximum (both sides check it)
COUNT = "count"  # a non-negative integer
LIST = "list"  # comma-separated words, empty ones dropped; always sent ([] when absent)
JOB = "job"  # a job id, sent as {"rawValue": ...}
FLAG = "flag"  # true or false (an option without a value: given or not)
JOB_LIST = "job-list"  # a list of job ids (filled by a client hook), at most ``maximum``

USAGE = "usage"  # the code of a malformed command line


class Field:
    """One request key and what it holds: the controller's ``parse()`` reads it through
    :class:`mytty.control.base.Request` with the default and limits declared here.

    A ``Field`` itself declares a key no command-line word fills directly (a client hook
    computes it, or the command has no ``mytty-ctl`` form); :class:`Arg` and :class:`Option`
    are the keys that come from one argument. ``wire`` None: the CLI only uses the argument.
    """

    __slots__ = ("choices", "code", "default", "help", "kind", "maximum", "nonempty", "wire")

    def __init__(
        self,
        wire: str | None,
        help: str,
        *,
        kind: str = TEXT,
        choices: tuple[str, ...] = (),
        default: object = None,
        maximum: float | None = None,
        nonempty: bool = False,
        code: str = USAGE,
    ) -> None:
        self.wire = wire
        self.help = help
        self.kind = kind
        self.choices = choices
        self.default = default  # what the request holds when the key is absent
        self.maximum = maximum  # SECONDS: the largest accepted; JOB_LIST: the most ids
        self.nonempty = nonempty  # an empty value (text, or a JOB_LIST) is refused
        self.code = code  # the CLI's error for an empty value or one outside ``choices``

    @property
    def key(self) -> str:
        """The request key (a ``TypeError`` for an argument only the CLI uses)."""
        if self.wire is None:
            raise TypeError(f"{self.help!r} is not a request key")
        return self.wire


def out_of_range(field: Field, number: float) -> str | None:
    """Why ``number`` is not a value of the ``SECONDS`` field (None: it is one). ``mytty-ctl``
    and the controller both answer it as ``invalid-request``, in these words."""
    most = field.maximum
    if most is None:
        return "must not be negative" if number < 0 else None
    if 0 <= number <= most:
        return None
    return f"must be between 0 and {int(most) if most.is_integer() else most}"


class Arg(Field):
    """A positional argument. ``wire`` is its request key (None: the CLI only uses it)."""

    __slots__ = ("metavar", "optional", "variadic")

    def __init__(
        self,
        metavar: str,
        wire: str | None,
        help: str,
        *,
        kind: str = TEXT,
        choices: tuple[str, ...] = (),
        default: str | None = None,
        optional: bool = False,
        variadic: bool = False,
        code: str = USAGE,
    ) -> None:
        super().__init__(wire, help, kind=kind, choices=choices, default=default, code=code)
        self.metavar = metavar
        self.variadic = variadic  # the last argument only: takes every remaining word
        self.optional = optional or default is not None


class Option(Field):
    """A ``--flag`` (``metavar`` None: a boolean, kind ``FLAG``) or ``--option VALUE``."""

    __slots__ = ("env_default", "flag", "group", "metavar", "required")

    def __init__(
        self,
        flag: str,
        metavar: str | None,
        wire: str | None,
        help: str,
        *,
        kind: str = TEXT,
        choices: tuple[str, ...] = (),
        default: object = None,
        required: bool = False,
        env_default: str | None = None,
        maximum: float | None = None,
        nonempty: bool = False,
        code: str = USAGE,
        group: str | None = None,
    ) -> None:
        super().__init__(
            wire,
            help,
            kind=kind if metavar is not None else FLAG,
            choices=choices,
            default=default,
            maximum=maximum,
            nonempty=nonempty,
            code=code,
        )
        self.flag = flag
        self.group = group  # options sharing a group: exactly one of them must be given
        self.metavar = metavar
        self.required = required
        self.env_default = env_default

    @property
    def takes_value(self) -> bool:
        return self.metavar is not None


class Values:
    """What ``mytty-ctl`` parsed for one command line, as a client hook sees it."""

    __slots__ = ("fail", "flags", "options", "positionals")

    def __init__(
        self,
        positionals: list[str],
        options: dict[str, str],
        flags: set[str],
        fail: Callable[[str, str], NoReturn],
    ) -> None:
        self.positionals = positionals
        self.options = options
        self.flags = flags
        self.fail = fail


if TYPE_CHECKING:  # (a runtime alias with forward references would compile them on import)
    #: ``client(request, values)``: command-specific client-side work (may fail through
    #: ``values``); returns a receive timeout to use instead of the declared one.
    ClientHook = Callable[[dict[str, object], Values], float | None]
    #: ``render(reply, values)``: the text to print instead of the JSON line.
    RenderHook = Callable[[Mapping[str, object], Values], str]


class Command:
    """One control command: what the CLI, the docs and the controller know about it."""

    __slots__ = (
        "args",
        "client",
        "client_errors",
        "doc",
        "errors",
        "guide",
        "heading",
        "name",
        "options",
        "receive_timeout",
        "render",
        "summary",
        "wait_key",
        "wire",
        "wire_fields",
        "wire_order",
    )

    def __init__(
        self,
        *,
        name: str | None,
        wire: str,
        summary: str,
        errors: tuple[str, ...],
        doc: str,
        args: tuple[Arg, ...] = (),
        options: tuple[Option, ...] = (),
        wire_fields: tuple[Field, ...] = (),
        client_errors: tuple[str, ...] = (),
        guide: str = "",
        heading: str | None = None,
        receive_timeout: float = 5.0,
        wait_key: str | None = None,
        wire_order: tuple[str, ...] = (),
        client: ClientHook | None = None,
        render: RenderHook | None = None,
    ) -> None:
        self.name = name  # the mytty-ctl command ("agent spawn"); None: wire only
        self.wire = wire  # the request's "type"
        self.summary = summary  # one line for --help
        self.errors = errors  # every code the handler may return
        self.doc = doc  # the reference text (Markdown), after the synopsis
        self.args = args
        self.options = options
        self.wire_fields = wire_fields  # keys a client hook fills (or with no CLI form at all)
        self.client_errors = client_errors  # codes mytty-ctl itself may answer before connecting
        self.guide = guide  # the entry in `mytty-ctl guide` (plain text), if any
        self.heading = heading  # the reference heading when the synopsis is too long for one
        self.receive_timeout = receive_timeout
        self.wait_key = wait_key  # wire key of a wait's seconds: receive timeout ceil(N) + 5
        self.wire_order = wire_order  # request key order when it differs from the declaration
        self.client = client
        self.render = render

    def option(self, flag: str) -> Option | None:
        for opt in self.options:
            if opt.flag == flag:
                return opt
        return None

    def fields(self) -> tuple[Field, ...]:
        """Every declared request key: arguments, options and wire fields that have one."""
        every = (*self.args, *self.options, *self.wire_fields)
        return tuple(field for field in every if field.wire is not None)


# -- arguments several commands share ---------------------------------------------------------
PANE = Arg(
    "PANE",
    "paneID",
    "a pane id: a UUID from `list`, a `pane` reply or $MYTTY_SURFACE_ID (any letter case), "
    "or tmux's name for the pane (`%3`, `work:1.0`; `@2`, `$1`: the active pane there)",
    kind=PANE_ID,
)
JOB_ARG = Arg(
    "JOB",
    "jobID",
    "a job id: `job.jobID.rawValue` of an agent reply, or a prefix only that job's id starts "
    "(any case, hyphens optional: `mytty ls` shows 8 characters)",
    kind=JOB,
)
ENTER = Option("--enter", None, "pressEnter", "press Enter after the text")
CWD = Option(
    "--cwd",
    "DIR",
    "workingDirectory",
    "the new pane's directory (made absolute against mytty-ctl's own)",
    kind=PATH,
)
INITIAL_COMMAND = Option(
    "--command",
    "TEXT",
    "command",
    "a command line the new pane's shell runs once it has started",
    nonempty=True,
    code="invalid-command",
)


def timeout_option(default: float, maximum: float) -> Option:
    """``--timeout-seconds N`` of a wait: a number of seconds from 0 to ``maximum``."""
    return Option(
        "--timeout-seconds",
        "N",
        "timeoutSeconds",
        f"give up after N seconds (0 to {int(maximum)})",
        kind=SECONDS,
        default=default,
        maximum=maximum,
    )
