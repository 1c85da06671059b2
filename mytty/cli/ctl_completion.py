"""Shell completion for ``mytty-ctl``: ``mytty-ctl completion bash|zsh|fish`` and the hidden
``mytty-ctl __complete WORD…`` the scripts call.

Everything comes from the command declarations: the scripts carry the command words, and
``__complete`` answers the rest (subcommands, options, option choices) from the one command's
``COMMAND``, plus pane ids (from ``list``) and job ids (from ``agent list``) asked of the
running controller. Without a controller the ids are simply not offered.
"""

from __future__ import annotations

from typing import Any

from mytty.cli.requests import build
from mytty.control import registry, spec
from mytty.core import codes

#: ``__complete`` prints this alone when the shell should complete file names instead.
FILES = "\x01files"
_TOP_EXTRA = ("guide", "completion", "--help", "--version")
SHELLS = ("bash", "zsh", "fish")


def _top_words() -> list[str]:
    names = [name.split(" ", 1)[0] for name, _ in registry.ENTRIES if name]
    return list(dict.fromkeys([*names, *_TOP_EXTRA]))


def _ask(request: dict[str, Any], key: str, field: str) -> list[str]:
    """Ids from the controller's reply to ``request`` (nothing when it does not answer)."""
    from mytty.cli import transport

    try:
        reply = transport.send(request, 2.0)
    except transport.CtlError:
        return []
    ids = []
    for entry in reply.get(key) or []:
        value = entry.get(field) if isinstance(entry, dict) else None
        if isinstance(value, dict):
            value = value.get("rawValue")
        if isinstance(value, str):
            ids.append(value)
    return ids


def _values(field: spec.Field) -> list[str]:
    """What a value of ``field`` may be: its choices, else what its declared kind names."""
    if field.choices:
        return list(field.choices)
    if field.kind == spec.JOB:
        # Every lead's jobs: a human completing a job id may not be in the pane that led it.
        return _ask(build("agent list", {"allLeads": True}), "jobs", "jobID")
    if field.kind == spec.PANE_ID:
        return _ask(build("list"), "panes", "paneID")
    if field.kind == spec.PATH:
        return [FILES]
    return []


def candidates(words: list[str]) -> list[str]:
    """What may come in place of the last of ``words`` (the words after ``mytty-ctl``)."""
    if not words:
        words = [""]
    *before, current = words
    if not before:
        return _top_words()
    if before[0] == "completion":
        return list(SHELLS) if len(before) == 1 else []
    if before[0] in registry.GROUPS:
        if len(before) == 1:
            return registry.subcommands(before[0])
        module = registry.module_for(f"{before[0]} {before[1]}")
        rest = before[2:]
    else:
        module = registry.module_for(before[0])
        rest = before[1:]
    if module is None:
        return []
    command: spec.Command = module.COMMAND
    # Walk what is already typed: positionals used, options used, a value still owed.
    positionals, used, pending = 0, set(), None
    for word in rest:
        if pending is not None:
            pending = None
        elif word.startswith("--"):
            opt = command.option(word.partition("=")[0])
            if opt is not None:
                used.add(opt.flag)
                if opt.takes_value and "=" not in word:
                    pending = opt
        else:
            positionals += 1
    if pending is not None:
        return _values(pending)
    if current.startswith("-"):
        return [o.flag for o in command.options if o.flag not in used] + ["--help"]
    if command.args and command.args[-1].variadic:
        positionals = min(positionals, len(command.args) - 1)
    if positionals < len(command.args):
        return _values(command.args[positionals])
    return []


def complete(args: list[str]) -> str:
    """The output of ``mytty-ctl __complete [--] WORD…``: matching candidates, one a line."""
    if args[:1] == ["--"]:
        args = args[1:]
    current = args[-1] if args else ""
    found = candidates(args)
    if found == [FILES]:
        return FILES + "\n"
    return "".join(f"{c}\n" for c in found if c.startswith(current))


_BASH = """\
# mytty-ctl completion for bash: eval "$(mytty-ctl completion bash)"
_mytty_ctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} out
    if (( COMP_CWORD == 1 )); then
        COMPREPLY=($(compgen -W "%(top)s" -- "$cur"))
        return
    fi
    local IFS=$'\\n'
    out=$(command mytty-ctl __complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
    if [[ $out == $'\\x01files' ]]; then
        compopt -o default 2>/dev/null
        COMPREPLY=()
        return
    fi
    COMPREPLY=($out)
}
complete -F _mytty_ctl mytty-ctl
"""

_ZSH = """\
#compdef mytty-ctl
# mytty-ctl completion for zsh: source <(mytty-ctl completion zsh)  (after compinit)
_mytty_ctl() {
    local -a found
    if (( CURRENT == 2 )); then
        found=(%(top)s)
    else
        local out
        out=$(command mytty-ctl __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)
        if [[ $out == $'\\x01files' ]]; then
            _files
            return
        fi
        found=("${(@f)out}")
    fi
    compadd -- "${found[@]}"
}
if (( $+functions[compdef] )); then
    compdef _mytty_ctl mytty-ctl
fi
"""

_FISH = """\
# mytty-ctl completion for fish: mytty-ctl completion fish | source
function __mytty_ctl_complete
    set -l words (commandline -opc) (commandline -ct)
    set -e words[1]
    set -l out (command mytty-ctl __complete -- $words 2>/dev/null)
    if test (count $out) -eq 1; and test "$out" = (printf '\\x01files')
        __fish_complete_path (commandline -ct)
    else
        printf '%%s\\n' $out
    end
end
complete -c mytty-ctl -f -n '__fish_is_first_arg' -a '%(top)s'
complete -c mytty-ctl -f -n 'not __fish_is_first_arg' -a '(__mytty_ctl_complete)'
"""


def completion_script(args: list[str]) -> str:
    """``mytty-ctl completion SHELL``: the script for that shell."""
    from mytty.cli.transport import CtlError

    if len(args) != 1 or args[0] not in SHELLS:
        raise CtlError(codes.USAGE, "mytty-ctl completion bash|zsh|fish")
    template = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}[args[0]]
    return template % {"top": " ".join(_top_words())}
