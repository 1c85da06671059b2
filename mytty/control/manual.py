"""The texts made from the command declarations: ``mytty-ctl --help``, ``mytty-ctl CMD --help``,
``mytty-ctl guide`` and the command sections of ``docs/reference/mytty-ctl.md``.

Nothing here is written per command: each text is assembled from the ``COMMAND`` declarations
in registry order (:mod:`mytty.control.registry`), plus the fixed prose of the guide
(:mod:`mytty.core.guide`).
"""

from __future__ import annotations

from mytty.control import registry
from mytty.control.spec import Arg, Command, Option

#: How ``--help`` and the reference group the commands (by their first word).
SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("pane", "Pane commands:", ""),
    ("agent", "Agent jobs (preferred for running workers):", "agent"),
    ("integration", "Hook integrations (enable/repair ask the human first):", "integration"),
    ("approval", "Approvals (your workers' permission requests):", "approval"),
)
_COLUMN = 45
_WIDTH = 96


def _arg_shown(arg: Arg) -> str:
    word = "|".join(arg.choices) if arg.choices else arg.metavar
    if arg.variadic:
        word += "…"
    return f"[{word}]" if arg.optional else word


def _option_shown(opt: Option) -> str:
    word = opt.flag
    if opt.takes_value:
        word = f"{opt.flag} {'|'.join(opt.choices) if opt.choices else opt.metavar}"
    return word if opt.required and not opt.env_default else f"[{word}]"


def synopsis(command: Command) -> str:
    """``split PANE [left|right|up|down|auto] [--cwd DIR] [--command TEXT]``."""
    words = [command.name or command.wire]
    words += [_arg_shown(a) for a in command.args]
    shown_groups: set[str] = set()
    for opt in command.options:
        if opt.group is None:
            words.append(_option_shown(opt))
        elif opt.group not in shown_groups:
            shown_groups.add(opt.group)
            members = [o for o in command.options if o.group == opt.group]
            words.append("(" + " | ".join(_option_shown(o).strip("[]") for o in members) + ")")
    return " ".join(words)


def _shown_default(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def command_help(command: Command) -> str:
    """What ``mytty-ctl <command> --help`` prints."""
    lines = [f"usage: mytty-ctl {synopsis(command)}", "", command.summary]
    rows: list[tuple[str, str, tuple[str, ...], object]] = [
        (a.metavar, a.help, a.choices, a.default) for a in command.args
    ]
    rows += [
        (o.flag + (f" {o.metavar}" if o.metavar else ""), o.help, o.choices, o.default)
        for o in command.options
    ]
    if rows:
        lines.append("")
        width = max(len(r[0]) for r in rows) + 2
        for left, text, choices, default in rows:
            extra = []
            if choices:
                extra.append("one of " + ", ".join(choices))
            if default is not None and default is not False:
                extra.append(f"default {_shown_default(default)}")
            suffix = f" ({'; '.join(extra)})" if extra else ""
            lines.append(f"  {left.ljust(width)}{text}{suffix}")
    return "\n".join(lines) + "\n"


def section_of(command: Command) -> str:
    """``pane``, ``agent``, ``integration``, ``approval`` (by the command's first word) or
    ``wire``."""
    if command.name is None:
        return "wire"
    first = command.name.split(" ", 1)[0]
    if first == "limits":  # parked workers are agent jobs (their commands read as a group)
        return "agent"
    return first if first in registry.GROUPS else "pane"


def _line(synopsis: str, summary: str) -> list[str]:
    left = f"  {synopsis}"
    if len(left) + 2 <= _COLUMN:
        return [f"{left.ljust(_COLUMN)}{summary}"]
    import textwrap

    wrapped = textwrap.wrap(
        synopsis,
        width=_WIDTH,
        initial_indent="  ",
        subsequent_indent="      ",
        break_on_hyphens=False,
        break_long_words=False,
    )
    return [*wrapped, " " * _COLUMN + summary]


def usage_text(commands: list[Command] | None = None) -> str:
    """``mytty-ctl --help``: every command's synopsis and one-line summary."""
    commands = registry.declarations() if commands is None else commands
    lines = ["usage: mytty-ctl <command> [arguments]   (mytty-ctl <command> --help for one)"]
    for key, title, _ in SECTIONS:
        members = [c for c in commands if section_of(c) == key]
        if members:
            lines += ["", title]
            for command in members:
                lines += _line(synopsis(command), command.summary)
    lines += [
        "",
        *_line("guide", "the full manual for agents (no controller needed)"),
        *_line("completion bash|zsh|fish", "a shell completion script"),
        *_line("--version", "the version of mytty"),
        *_line(
            "--host NAME <command> ...",
            "run it on another host's controller (also MYTTY_HOST=NAME, or a NAME:<id> id)",
        ),
        "",
        "Success prints exactly one line of JSON and exits 0. Failure prints",
        '"mytty-ctl: <code>: <explanation>" on stderr and exits 1.',
    ]
    return "\n".join(lines) + "\n"


def help_text(name: str, commands: list[Command] | None = None) -> str:
    """``mytty-ctl NAME --help``: one command's help, or a group's list of subcommands."""
    commands = registry.declarations() if commands is None else commands
    for command in commands:
        if command.name == name:
            return command_help(command)
    members = [c for c in commands if c.name and c.name.startswith(name + " ")]
    lines = [
        f"usage: mytty-ctl {name} {'|'.join(c.name.split(' ', 1)[1] for c in members if c.name)} ..."
    ]
    lines.append("")
    for command in members:
        lines += _line(synopsis(command), command.summary)
    return "\n".join(lines) + "\n"


#: The guide fits an 80-column pane (agents read it in one, humans in a split).
GUIDE_WIDTH = 80
_ENTRY_INDENT = "      "


def _starts_paragraph(previous: str, line: str) -> bool:
    """A line at the paragraph's indent starts a new one after a finished sentence when it
    opens an item or a sentence (``--flag …``, a capital); otherwise it continues the text."""
    ended = previous.rstrip().endswith((".", '."', ".)"))
    return ended and (line.startswith("-") or line[:1].isupper())


def flow(text: str, width: int, indent: str) -> list[str]:
    """A guide entry's lines, re-wrapped to ``width`` columns under ``indent``.

    The author's line breaks are hints: lines of one paragraph are joined and wrapped again,
    so an entry can be written at any width. A paragraph ends at a blank line, at a line
    indented less than its continuation, or where :func:`_starts_paragraph` says; a line
    indented deeper than the paragraph's first line is its hanging continuation (an option's
    explanation under ``--flag``). No word is cut.
    """
    import textwrap

    paragraphs: list[tuple[str, str, list[str]]] = []  # (first indent, hanging indent, lines)
    previous = ""
    for line in text.splitlines():
        stripped = line.lstrip()
        own = line[: len(line) - len(stripped)]
        if not stripped:
            paragraphs.append(("", "", []))
            previous = ""
            continue
        current = paragraphs[-1] if paragraphs and paragraphs[-1][2] else None
        if current is not None:
            first, hang, lines = current
            if len(own) > len(first) and (hang == first or own == hang):
                paragraphs[-1] = (first, own, [*lines, stripped])
                previous = stripped
                continue
            if own == hang and not _starts_paragraph(previous, stripped):
                lines.append(stripped)
                previous = stripped
                continue
        paragraphs.append((own, own, [stripped]))
        previous = stripped
    out: list[str] = []
    for first, hang, lines in paragraphs:
        if not lines:
            out.append("")
            continue
        out += textwrap.wrap(
            " ".join(lines),
            width=width,
            initial_indent=indent + first,
            subsequent_indent=indent + hang,
            break_on_hyphens=False,
            break_long_words=False,
        )
    return out


def _guide_header(text: str) -> str:
    import textwrap

    return "\n".join(
        textwrap.wrap(
            text,
            width=GUIDE_WIDTH,
            initial_indent="  ",
            subsequent_indent="      ",
            break_on_hyphens=False,
            break_long_words=False,
        )
    )


def guide_text(commands: list[Command] | None = None) -> str:
    """``mytty-ctl guide``: the fixed prose with each command's guide entry in its section,
    every entry flowed to :data:`GUIDE_WIDTH` columns."""
    from mytty.core import guide, keys

    commands = registry.declarations() if commands is None else commands
    entries: dict[str, list[str]] = {
        "pane": [],
        "agent": [],
        "integration": [],
        "approval": [],
        "wire": [],
    }
    for command in commands:
        if command.name is None:
            continue
        header, text = synopsis(command), command.guide or command.summary
        first = text.partition("\n")[0]
        # A guide that names its own short form on its first line ("approval list", "wait PANE …").
        if command.guide and (first == command.name or first.startswith(command.name + " ")):
            header, _, text = text.partition("\n")
        body = "\n".join(flow(text, GUIDE_WIDTH, _ENTRY_INDENT))
        entries[section_of(command)].append(f"{_guide_header(header)}\n{body}")
    return guide.render(
        agent="\n".join(entries["agent"]),
        integration="\n".join(entries["integration"]),
        approval="\n".join(entries["approval"]),
        pane="\n".join(entries["pane"]),
        keys=keys.guide_text(),
    )


def _codes(codes: tuple[str, ...]) -> str:
    return ", ".join(f"`{c}`" for c in codes)


def reference_section(command: Command) -> str:
    """One command's section of ``docs/reference/mytty-ctl.md`` (Markdown)."""
    usage = synopsis(command) if command.name else command.wire
    heading = command.heading or usage
    parts = [f"### `{heading}`", ""]
    if heading != usage:
        parts += ["```sh", f"mytty-ctl {usage}", "```", ""]
    parts += [command.doc.strip(), ""]
    rows: list[tuple[str, str, tuple[str, ...], object]] = [
        (f"`{a.metavar}`", a.help, a.choices, a.default) for a in command.args
    ]
    rows += [
        (f"`{o.flag}{' ' + o.metavar if o.metavar else ''}`", o.help, o.choices, o.default)
        for o in command.options
    ]
    if rows:
        parts += ["| argument | meaning |", "|---|---|"]
        for left, text, choices, default in rows:
            extra = []
            if choices:
                extra.append("one of " + ", ".join(f"`{c}`" for c in choices))
            if default is not None and default is not False:
                shown = (
                    int(default) if isinstance(default, float) and default.is_integer() else default
                )
                extra.append(f"default `{shown}`")
            suffix = f" ({'; '.join(extra)})" if extra else ""
            parts.append(f"| {left} | {text}{suffix} |")
        parts.append("")
    errors = f"Errors: {_codes(command.errors)}."
    if command.client_errors:
        errors += (
            f" Before connecting, `mytty-ctl` itself may answer {_codes(command.client_errors)}."
        )
    parts += [errors, ""]
    return "\n".join(parts)


def _label(command: Command) -> str:
    return f"mytty-ctl {command.name}" if command.name else command.wire


def begin_marker(command: Command) -> str:
    return f"<!-- begin {_label(command)}: generated from its declaration by scripts/gen-docs -->"


def end_marker(command: Command) -> str:
    return f"<!-- end {_label(command)} -->"


def update_reference(page: str, commands: list[Command] | None = None) -> str:
    """``page`` with every command's section regenerated between its begin and end markers.

    The prose around the sections stays as written. Raises ValueError naming a command whose
    markers are missing (add them where its section belongs) or a stray marker.
    """
    commands = registry.declarations() if commands is None else commands
    for command in commands:
        begin, end = begin_marker(command), end_marker(command)
        start = page.find(begin)
        stop = page.find(end, start)
        if start < 0 or stop < 0:
            raise ValueError(f"no {begin!r} … {end!r} markers for {_label(command)}")
        page = page[: start + len(begin)] + "\n" + reference_section(command) + page[stop:]
    known = {_label(c) for c in commands}
    for line in page.splitlines():
        if line.startswith("<!-- begin ") and line.split(":", 1)[0][11:] not in known:
            raise ValueError(f"a marker for an unknown command: {line}")
    return page
