"""`mytty tmux install` / `uninstall`: mytty's segments in the user's own tmux formats.

Everything here runs the tmux CLI against one server (the controller's, or ``--tmux-socket``)
and changes only global options, at run time (never a file):

- a pane-border segment appended to ``pane-border-format`` (provider, state, label, need);
- a status segment appended to ``status-right`` (the server's open attention items, shown only
  when there are some), with ``status-right-length`` raised by the segment's width;
- a key binding in the prefix table that opens the attention popup.

Each option's value before the install is kept in a global user option
``@mytty_saved_<option>``; uninstall puts it back byte for byte (when the format still ends
with the segment) or cuts the segment out (when the user changed the format meanwhile), and
removes the saved copy, so ``show-options -g`` reads exactly as before. A key that is already
bound to something else is never taken over (install says so and binds nothing).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from mytty.core.quoting import shell_quote
from mytty.tmux.literal import FIELD_SEPARATOR, argument, from_one_line, one_line, shown_option

# Every value is shown through shown_option (``#{q/h:…}``): tmux draws a border or status line
# as styled text, where a label's ``#[fg=red]`` would restyle it and ``##`` show as ``#``.
_PROVIDER, _STATE = shown_option("@mytty_provider"), shown_option("@mytty_state")
_LABEL, _NEED = shown_option("@mytty_label"), shown_option("@mytty_attention")
_TOTAL = shown_option("@mytty_attention_total")
# Not `#{?@mytty_label,…}`: tmux takes a value of "0" for false, and "0" is a fine label.
_SET_LABEL, _SET_NEED = "#{!=:#{@mytty_label},}", "#{!=:#{@mytty_attention},}"
#: Appended to pane-border-format: shown only on panes with agent state.
BORDER_SEGMENT = (
    "#{?@mytty_state, "
    "#{?#{m:waiting-*,#{@mytty_state}},#[fg=yellow],"
    "#{?#{m:failed,#{@mytty_state}},#[fg=red],"
    "#{?#{m:running,#{@mytty_state}},#[fg=green],}}}"
    f"[{_PROVIDER} {_STATE}#{{?{_SET_LABEL}, {_LABEL},}}]"
    f"#{{?{_SET_NEED}, #[reverse]{_NEED}#[noreverse],}}#[default],}}"
)
#: Appended to status-right: shown only while attention items are open.
STATUS_SEGMENT = (
    f"#{{?#{{m:[1-9]*,#{{@mytty_attention_total}}}}, #[reverse] attention {_TOTAL} #[noreverse],}}"
)
#: Segments earlier versions installed (values shown raw): uninstall removes them too, and
#: install replaces them with the current ones.
LEGACY_SEGMENTS = {
    "pane-border-format": (
        "#{?@mytty_state, "
        "#{?#{m:waiting-*,#{@mytty_state}},#[fg=yellow],"
        "#{?#{m:failed,#{@mytty_state}},#[fg=red],"
        "#{?#{m:running,#{@mytty_state}},#[fg=green],}}}"
        "[#{@mytty_provider} #{@mytty_state}#{?@mytty_label, #{@mytty_label},}]"
        "#{?@mytty_attention, #[reverse]#{@mytty_attention}#[noreverse],}#[default],}",
    ),
    "status-right": (
        "#{?#{m:[1-9]*,#{@mytty_attention_total}},"
        " #[reverse] attention #{@mytty_attention_total} #[noreverse],}",
    ),
}
#: How much wider status-right may get with the segment (" attention 999 " plus spacing).
STATUS_EXTRA_LENGTH = 16
SAVED_PREFIX = "@mytty_saved_"
#: The key mytty bound (so uninstall unbinds that key, whatever the config says by then).
SAVED_KEY = "@mytty_saved_popup_key"
#: In the bound command: how a binding is recognised as mytty's own.
POPUP_MARKER = "mytty.cli.popup"
POPUP_TITLE = " mytty attention "


class TmuxCliError(Exception):
    """A tmux command failed (the message is tmux's)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One thing install or uninstall did (or found already done), for the report."""

    what: str
    done: bool
    note: str = ""


class TmuxCli:
    """The tmux CLI of one server."""

    def __init__(self, socket_path: str, tmux: str = "tmux") -> None:
        self.argv = [tmux, "-S", socket_path]

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        try:
            raw = subprocess.run([*self.argv, *args], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise TmuxCliError(f"could not run tmux: {exc}") from None
        # Decoded by hand: text mode would turn a value's "\r" into a line break.
        out = subprocess.CompletedProcess(
            raw.args,
            raw.returncode,
            raw.stdout.decode("utf-8", "replace"),
            raw.stderr.decode("utf-8", "replace"),
        )
        if check and out.returncode != 0:
            raise TmuxCliError(out.stderr.strip() or f"tmux {args[0]} failed")
        return out

    def global_option(self, name: str) -> str | None:
        """A global option's value (None when a user option is unset)."""
        out = self.run("show-options", "-gv", name, check=False)
        if out.returncode != 0:
            return None
        return out.stdout[:-1] if out.stdout.endswith("\n") else out.stdout

    def set_global(self, name: str, value: str) -> None:
        self.run("set-option", "-g", name, argument(value))

    def unset_global(self, name: str) -> None:
        self.run("set-option", "-gu", name, check=False)

    def binding(self, key: str) -> str | None:
        """The prefix-table binding of ``key`` as ``list-keys`` prints it (None: unbound)."""
        out = self.run("list-keys", "-T", "prefix", argument(key), check=False)
        return out.stdout.strip() or None if out.returncode == 0 else None


def _saved_name(option: str) -> str:
    return SAVED_PREFIX + option.replace("-", "_")


def _append(cli: TmuxCli, option: str, segment: str, what: str) -> Change:
    current = cli.global_option(option) or ""
    if segment in current:
        return Change(what, False, "already installed")
    for old in LEGACY_SEGMENTS.get(option, ()):
        if old in current:  # the saved value from that install stays the one to restore
            cli.set_global(option, current.replace(old, segment, 1))
            return Change(what, True, "replaced the segment an earlier version installed")
    cli.set_global(_saved_name(option), current)
    cli.set_global(option, current + segment)
    return Change(what, True)


def _remove(cli: TmuxCli, option: str, segment: str, what: str) -> Change:
    saved_name = _saved_name(option)
    saved = cli.global_option(saved_name)
    current = cli.global_option(option) or ""
    note = ""
    installed = [s for s in (segment, *LEGACY_SEGMENTS.get(option, ())) if s in current]
    if saved is not None and installed and current == saved + installed[0]:
        cli.set_global(option, saved)
    elif installed:
        cli.set_global(option, current.replace(installed[0], "", 1))
        note = "the format had changed since install: only the segment was cut out"
    else:
        cli.unset_global(saved_name)
        return Change(what, False, "not installed")
    cli.unset_global(saved_name)
    return Change(what, True, note)


def popup_command(python: str, home: str) -> str:
    """The shell command the popup runs (an absolute interpreter and home: the popup's
    environment is tmux's, which need not have mytty on PATH or MYTTY_HOME set)."""
    return f"MYTTY_HOME={shell_quote(home)} exec {shell_quote(python)} -m {POPUP_MARKER}"


def install(
    cli: TmuxCli,
    *,
    border: bool,
    status: bool,
    key: str | None,
    python: str,
    home: str,
    borders: bool = False,
) -> list[Change]:
    """Append the segments and bind the popup key (idempotent); ``borders``: also turn on
    border text (``pane-border-status top``) when it is off, to be restored by uninstall."""
    changes: list[Change] = []
    if key:  # first: a key tmux does not know fails before any format was touched
        changes.append(_bind(cli, key, python, home))
    if border:
        changes.append(_append(cli, "pane-border-format", BORDER_SEGMENT, "pane-border segment"))
        changes += _border_status(cli, borders)
    if status:
        change = _append(cli, "status-right", STATUS_SEGMENT, "status segment")
        if change.done:
            length = cli.global_option("status-right-length") or "40"
            cli.set_global(_saved_name("status-right-length"), length)
            cli.set_global("status-right-length", str(int(length) + STATUS_EXTRA_LENGTH))
        changes.append(change)
    return changes


def _border_status(cli: TmuxCli, turn_on: bool) -> list[Change]:
    """Border text is off in tmux by default: the segment shows only with it on."""
    if cli.global_option("pane-border-status") != "off":
        return []
    if not turn_on:
        return [
            Change(
                "pane borders",
                False,
                "pane-border-status is off, so borders show no text: run "
                "`mytty tmux install --borders` (or `set -g pane-border-status top` in your "
                "tmux.conf) to show the segment",
            )
        ]
    cli.set_global(_saved_name("pane-border-status"), "off")
    cli.set_global("pane-border-status", "top")
    return [Change("pane borders", True, "pane-border-status was off; now top")]


def _bind(cli: TmuxCli, key: str, python: str, home: str) -> Change:
    what = f"popup key (prefix {key})"
    existing = cli.binding(key)
    if existing is not None and POPUP_MARKER not in existing:
        return Change(
            what,
            False,
            f"prefix {key} is already bound ({existing}); choose another key "
            "(`--key`, or popup_key under [tmux] in config.toml)",
        )
    previous = cli.global_option(SAVED_KEY)
    if existing is not None and previous == key:
        return Change(what, False, "already installed")
    if previous and previous != key:  # the key changed in the config: move the binding
        old = cli.binding(previous)
        if old is not None and POPUP_MARKER in old:
            cli.run("unbind-key", "-T", "prefix", argument(previous))
    cli.run(
        "bind-key",
        "-T",
        "prefix",
        argument(key),
        "display-popup",
        "-E",
        "-w",
        "90%",
        "-h",
        "60%",
        "-T",
        POPUP_TITLE,
        popup_command(python, home),
    )
    cli.set_global(SAVED_KEY, key)
    return Change(what, True)


def uninstall(cli: TmuxCli) -> list[Change]:
    changes = [
        _remove(cli, "pane-border-format", BORDER_SEGMENT, "pane-border segment"),
    ]
    status = _remove(cli, "status-right", STATUS_SEGMENT, "status segment")
    length_name = _saved_name("status-right-length")
    length = cli.global_option(length_name)
    if length is not None:
        cli.set_global("status-right-length", length)
        cli.unset_global(length_name)
    changes.append(status)
    border_status = _saved_name("pane-border-status")
    saved_status = cli.global_option(border_status)
    if saved_status is not None:
        cli.set_global("pane-border-status", saved_status)
        cli.unset_global(border_status)
        changes.append(Change("pane borders", True, f"pane-border-status back to {saved_status}"))
    key = cli.global_option(SAVED_KEY)
    if key:
        existing = cli.binding(key)
        if existing is not None and POPUP_MARKER in existing:
            cli.run("unbind-key", "-T", "prefix", argument(key))
            changes.append(Change(f"popup key (prefix {key})", True))
        cli.unset_global(SAVED_KEY)
    else:
        changes.append(Change("popup key", False, "not installed"))
    return changes


def jump(cli: TmuxCli, client: str | None, pane: str) -> None:
    """Bring ``client`` (or tmux's best guess) to ``pane``, across sessions."""
    target = ["-c", client] if client else []
    cli.run(
        "switch-client",
        *target,
        "-t",
        pane,
        ";",
        "select-window",
        "-t",
        pane,
        ";",
        "select-pane",
        "-t",
        pane,
    )


def this_client(cli: TmuxCli) -> str | None:
    """The client a popup belongs to: tmux's current client for a command run inside it."""
    out = cli.run("display-message", "-p", "#{client_name}", check=False)
    name = out.stdout.strip()
    return name or None


PANE_FORMAT_FIELDS: Sequence[str] = (
    "pane_id",
    "session_name",
    "window_index",
    "pane_index",
    "@mytty_surface",
    "@mytty_provider",
    "@mytty_state",
    "@mytty_job",
    "@mytty_label",
    "@mytty_note",
    "@mytty_attention",
    "@mytty_since",
    "@mytty_tokens",
    "@mytty_cost",
    "@mytty_rss",
    "@mytty_cpu",
    "pane_current_command",
)


def published_panes(cli: TmuxCli) -> list[dict[str, str]]:
    """Every pane with the published ``@mytty_*`` options (one ``list-panes``, no controller).

    Values are listed escaped (:func:`~mytty.tmux.literal.one_line`): a note or a command name
    holding a newline or a line separator stays in its own row and field.
    """
    sep = FIELD_SEPARATOR
    fmt = sep.join(one_line(f) for f in PANE_FORMAT_FIELDS)
    out = cli.run("list-panes", "-a", "-F", fmt)
    rows = []
    for line in out.stdout.split("\n"):  # not splitlines(): it also splits at U+2028 and \x1c
        parts = line.split(sep)
        if len(parts) == len(PANE_FORMAT_FIELDS):
            values = (from_one_line(p) for p in parts)
            rows.append(dict(zip(PANE_FORMAT_FIELDS, values, strict=True)))
    return rows
