"""The attention picker that ``prefix A`` (``mytty tmux install``) opens in a tmux popup.

``python -m mytty.cli.popup``: lists the open attention items (pane or label, provider, what
it needs, age, message), newest first. ↑/↓ (or k/j) move, 1-9 pick directly, Enter jumps:
the popup's client is switched to that pane (across sessions) and the item's run is
acknowledged. q or Escape closes without doing anything.

An approval item whose request waits in the approvals broker shows the request (its tool and
command) and takes ``a`` (approve), ``d`` (deny) and ``m`` (deny with a message, typed on the
popup's last line): the answer goes to ``answerApproval`` as ``human:popup``, and the list is
read again (the item resolves with the decision). Another host's approval item is listed with
its request as that host's broker has it now, and answered there (over its SSH link).

It starts in a popup, so it stays small: stdlib only plus the control socket client; plain
ANSI output (no rich: its import alone would delay the popup noticeably).
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import shutil
import sys
import termios
import time
import tty
from typing import Any

from mytty.core.attention.items import need_word
from mytty.core.terminal_text import printable

_COLOURS = {"approval": "33", "question": "33", "failure": "31", "not started": "31"}


class PopupError(Exception):
    pass


def _control_socket() -> str:
    from mytty.daemon.home import Home, default_home

    return str(Home(default_home()).control_socket)


def request(command: str, values: dict[str, object] | None = None) -> dict[str, Any]:
    """Ask the controller (``command`` and ``values`` as :func:`mytty.cli.requests.build`
    takes them); PopupError with ``<code>: <message>`` when that fails."""
    from mytty.cli import requests, transport

    try:
        return transport.send(requests.build(command, values), 10.0, path=_control_socket())
    except transport.CtlError as exc:
        raise PopupError(f"{exc.code}: {exc.message}") from None


def open_items() -> list[dict[str, Any]]:
    """This host's open items, then those of the hosts its controller follows (each with
    ``host`` and qualified ids, ``stale`` when its host stopped answering). A local approval
    item whose request the broker holds gets it as ``"approval"`` (the newest open request
    of its run); another host's is answered there (``mytty approve HOST:<id>``)."""
    items = [i for i in request("attention").get("items", []) if not i.get("resolvedAt")]
    if any(i["kind"] == "approval-request" for i in items):
        by_run: dict[str, dict[str, Any]] = {}
        for entry in request("listApprovals").get("approvals", []):
            by_run[entry["runID"]] = entry  # oldest first: the newest of a run stays
        for item in items:
            if item["kind"] == "approval-request" and item["runID"] in by_run:
                item["approval"] = by_run[item["runID"]]
    remote = [
        {**item, "stale": host.get("state") == "stale"}
        for host in request("hosts").get("hosts", [])
        for item in host.get("items", [])
    ]
    _attach_remote_requests(remote)
    return items + remote


def _attach_remote_requests(remote: list[dict[str, Any]]) -> None:
    """Give a current host's approval items their request, asked of that host now (over its
    SSH link; a host that does not answer leaves its items without one, so without keys)."""
    hosts = {str(i["host"]) for i in remote if i["kind"] == "approval-request" and not i["stale"]}
    for host in sorted(hosts):
        try:
            entries = _on_host(host, "listApprovals", {})["approvals"]
        except PopupError:
            continue
        by_run = {entry["runID"]: entry for entry in entries}
        for item in remote:
            if item.get("host") == host and item["runID"] in by_run:
                item["approval"] = by_run[item["runID"]]


def _on_host(host: str, command: str, values: dict[str, object]) -> dict[str, Any]:
    """``command`` on host ``host``'s controller over its link; the reply, ids qualified."""
    from mytty.cli import requests, transport
    from mytty.cli.hosts.link import send
    from mytty.core.hosts.ids import qualify_reply

    env = {**os.environ, "MYTTY_CONTROL_SOCKET": _control_socket()}
    try:
        reply = qualify_reply(send(host, requests.build(command, values), 30.0, env), host)
    except transport.CtlError as exc:
        raise PopupError(f"{exc.code}: {exc.message}") from None
    assert isinstance(reply, dict)
    return reply


def one_line(text: str) -> str:
    """One line without control characters (an agent's command may hold any, newlines too)."""
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)


def answer(item: dict[str, Any], decision: str, message: str | None = None) -> str:
    """Answer the item's request as ``human:popup``; what happened, in a few words."""
    approval = item.get("approval")
    if approval is None:
        raise PopupError("approval-not-found: this item has no request to answer")
    values: dict[str, object] = {"id": approval["id"], "decision": decision, "via": "popup"}
    if message:
        values["message"] = message
    from mytty.cli import requests, transport
    from mytty.core.hosts.ids import split

    host, bare = split(str(approval["id"]))
    if host is not None:  # another host's request: answered by that host's broker
        done = _on_host(host, "answerApproval", {**values, "id": bare})["approval"]
        return f"{done['decision']} {host}:{bare[:8]} ({one_line(str(done['tool']))})"
    try:
        reply = transport.send(
            requests.build("answerApproval", values), 30.0, path=_control_socket()
        )
    except transport.CtlError as exc:
        raise PopupError(f"{exc.code}: {exc.message}") from None
    done = reply["approval"]
    return f"{done['decision']} {str(done['id'])[:8]} ({one_line(str(done['tool']))})"


def age(created: str, now: float) -> str:
    try:
        then = dt.datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return "?"
    seconds = max(0, int(now - then))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"


def rows(items: list[dict[str, Any]], now: float) -> list[list[str]]:
    """One row per item: where, provider, need, age, message (all single-line text)."""
    out = []
    for item in items:
        where = item.get("label") or item.get("location") or "(closed pane)"
        if item.get("label") and item.get("location"):
            where = f"{item['label']} ({item['location']})"
        if item.get("host"):  # another host's item: host-prefixed
            where = f"{item['host']}:{where}"
        message = " ".join(str(item.get("message") or "").split())
        approval = item.get("approval")
        if approval is not None:
            message = one_line(f"{approval['tool']}: {approval['action']}")
        need = need_word(item["kind"]) + (" (stale)" if item.get("stale") else "")
        # Agents write labels and messages: never let one talk to the terminal.
        cells = [where, item["provider"], need, age(item["createdAt"], now), message]
        out.append([printable(cell) for cell in cells])
    return out


def render(
    items: list[dict[str, Any]], selected: int, width: int, now: float, note: str = ""
) -> str:
    """The whole popup screen as text with ANSI styles (no cursor addressing)."""
    keys = "↑↓ move · Enter jump and acknowledge · q close"
    if items and items[selected].get("approval") is not None:
        keys += " · a approve · d deny · m deny with a message"
    lines = [f"\x1b[1mmytty attention\x1b[0m  {keys}", ""]
    table = rows(items, now)
    if not table:
        lines.append("Nothing needs you right now.")
        if note:
            lines += ["", note]
        return "\r\n".join(lines)
    widths = [max(len(r[c]) for r in table) for c in range(4)]
    for index, row in enumerate(table):
        fixed = "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row[:4]))
        prefix = f"{index + 1:>2} " if index < 9 else "   "
        colour = _COLOURS.get(row[2], "0")
        style = f"\x1b[7;{colour}m" if index == selected else f"\x1b[{colour}m"
        lines += [f"{style}{text}\x1b[0m" for text in _wrapped(f"{prefix}{fixed}", row[4], width)]
    if note:
        lines += ["", note]
    return "\r\n".join(lines)


#: A message gets at least this many columns next to the item, or lines of its own below it.
_MESSAGE_COLUMNS = 30


def _wrapped(head: str, message: str, width: int) -> list[str]:
    """One item's lines at ``width`` columns: wrapped, never cut (the message says what the
    agent asks). The message follows the item when it has room there, else goes below it."""
    import textwrap

    def wrap(text: str, first: str, rest: str) -> list[str]:
        return textwrap.wrap(
            text,
            width=max(width, len(rest) + 8),
            initial_indent=first,
            subsequent_indent=rest,
            break_long_words=False,
            break_on_hyphens=False,
        )

    if not message or len(head) + 2 + len(message) <= width:
        return [f"{head}  {message}".rstrip()] if len(head) <= width else wrap(head, "", "   ")
    column = len(head) + 2
    if width - column >= _MESSAGE_COLUMNS:
        return wrap(message, head + "  ", " " * column)
    heads = [head.rstrip()] if len(head) <= width else wrap(head, "", "   ")
    return [*heads, *wrap(message, "      ", "      ")]


def _read_key(fd: int) -> str:
    data = os.read(fd, 16)
    if data in (b"\x1b[A", b"k"):
        return "up"
    if data in (b"\x1b[B", b"j"):
        return "down"
    if data in (b"\r", b"\n"):
        return "enter"
    if data in (b"q", b"\x1b", b"\x03"):
        return "quit"
    return data.decode(errors="replace")


def choose(item: dict[str, Any]) -> None:
    """Jump the popup's client to the item's pane, then acknowledge the item's run (another
    host's item: a new window here attached to that host's tmux at the pane, over ssh)."""
    from mytty.tmux.user_formats import TmuxCli, TmuxCliError, jump, published_panes, this_client

    # The popup runs inside the server it jumps on; mytty.tmux.bootstrap (libtmux) would add
    # ~80 ms to the jump for nothing.
    socket_path = os.environ.get("TMUX", "").split(",")[0]
    if not socket_path:
        raise PopupError("tmux-unavailable: not inside tmux ($TMUX is not set)")
    cli = TmuxCli(socket_path, shutil.which("tmux") or "tmux")
    if item.get("host"):
        _choose_remote(cli, str(item["host"]), item)
        return
    try:
        pane = next(
            (p["pane_id"] for p in published_panes(cli) if p["@mytty_surface"] == item["paneID"]),
            None,
        )
        if pane is not None:
            jump(cli, this_client(cli), pane)
    except TmuxCliError as exc:
        raise PopupError(f"tmux-unavailable: {exc}") from None
    request("attention", {"acknowledge": [item["runID"]]})


def _choose_remote(cli: Any, host: str, item: dict[str, Any]) -> None:
    from mytty.cli import requests, transport
    from mytty.cli.hosts.link import Link, send
    from mytty.core.hosts.ids import split
    from mytty.core.hosts.ssh import exec_argv
    from mytty.tmux.remote import attach_words, open_window
    from mytty.tmux.user_formats import TmuxCliError, this_client

    env = {**os.environ, "MYTTY_CONTROL_SOCKET": _control_socket()}
    link = Link(host, env)
    try:
        link.ensure()
        hello = link.hello
        words = attach_words(item.get("location"), hello.tmux_socket if hello else None)
        command = " ".join(shlex.quote(word) for word in words)
        argv = exec_argv(link.settings(), link.spec(), link.dir, command, tty=True)
        open_window(cli, this_client(cli), host, argv)
        ack = requests.build("attention", {"acknowledge": [split(str(item["runID"]))[1]]})
        send(host, ack, 10.0, env)
    except transport.CtlError as exc:
        raise PopupError(f"{exc.code}: {exc.message}") from None
    except TmuxCliError as exc:
        raise PopupError(f"tmux-unavailable: {exc}") from None
    request("hosts", {"refresh": True})  # the acknowledged item leaves the list here too


def main() -> int:
    try:
        items = open_items()
    except PopupError as exc:
        print(f"mytty: {exc}")
        _wait_for_any_key()
        return 1
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    selected = 0
    note = ""
    try:
        tty.setraw(fd)
        while True:
            width = os.get_terminal_size(fd).columns if os.isatty(fd) else 80
            screen = render(items, selected, width, time.time(), note)
            sys.stdout.write("\x1b[H\x1b[2J" + screen)
            sys.stdout.flush()
            key = _read_key(fd)
            if key == "quit":
                return 0
            if not items:
                continue
            if key in ("a", "d", "m") and items[selected].get("approval") is not None:
                note = _answer_key(fd, saved, items[selected], key)
                items = open_items()
                selected = min(selected, max(0, len(items) - 1))
                continue
            if key == "up":
                selected = (selected - 1) % len(items)
            elif key == "down":
                selected = (selected + 1) % len(items)
            elif key.isdigit() and 1 <= int(key) <= min(9, len(items)):
                selected = int(key) - 1
                key = "enter"
            if key == "enter":
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
                choose(items[selected])
                return 0
    except PopupError as exc:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        print(f"\r\nmytty: {exc}")
        _wait_for_any_key()
        return 1
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def _answer_key(fd: int, saved: list[Any], item: dict[str, Any], key: str) -> str:
    """``a``/``d``/``m`` on an approval item: the answer, and the line that says how it went."""
    message = None
    if key == "m":
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)  # a line, typed with echo
        try:
            sys.stdout.write("\r\n\x1b[Kdeny with the message (Enter sends, empty cancels): ")
            sys.stdout.flush()
            message = sys.stdin.readline().strip()
        finally:
            tty.setraw(fd)
        if not message:
            return "nothing sent"
    try:
        return answer(item, "allow" if key == "a" else "deny", message)
    except PopupError as exc:
        return f"mytty: {exc}"


def _wait_for_any_key() -> None:
    print("(press any key)")
    try:
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        tty.setraw(fd)
        try:
            os.read(fd, 16)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    except (OSError, termios.error):
        pass


if __name__ == "__main__":
    sys.exit(main())
