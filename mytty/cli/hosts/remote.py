"""``mytty-ctl``'s hidden commands for other hosts (not in ``--help``; their output is for mytty).

- ``__hello``: the handshake another machine's mytty runs here over SSH: one JSON line with
  this mytty's version, the host protocol, where this home's controller listens, where the
  mytty commands are, the controller's tmux socket and whether the controller answers
  (:class:`mytty.core.hosts.ssh.Hello`). It needs no controller.
- ``__relay SECONDS``: the ``exec`` transport's far end: one request line from stdin to this
  home's controller, its reply line to stdout (a reply within ``SECONDS``).
- ``__connect NAME``: make the link to host ``NAME`` (handshake, master, forward) and print
  ``{"socket", "transport", "hello"}``; the controller runs it to follow that host.
- ``__send NAME SECONDS``: one request line from stdin to host ``NAME``'s controller, its
  reply line (ids as that host gave them) to stdout; the controller follows a host whose
  ``transport`` is ``exec`` through it.
"""

from __future__ import annotations

import json
import os
import socket
import sys

from mytty.cli import transport
from mytty.cli.transport import CtlError
from mytty.core import codes, paths
from mytty.protocol.limits import MAX_REQUEST_BYTES


def run(word: str, args: list[str]) -> str:
    if word == "__hello":
        return hello()
    if word == "__relay":
        return relay(args)
    if word == "__send":
        return send(args)
    return connect(args)


def _answers(path: str) -> bool:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(1.0)
    try:
        sock.connect(path)
        return True
    except OSError:
        return False
    finally:
        sock.close()


def hello() -> str:
    from mytty import __version__
    from mytty.core.hosts.ssh import Hello, hello_text

    control = os.path.abspath(transport.socket_path())
    try:
        with open(os.path.join(os.path.dirname(control), paths.TMUX_SOCKET_RECORD)) as f:
            tmux_socket = f.read().strip() or None
    except OSError:
        tmux_socket = None
    bin_dir = os.path.dirname(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] else ""
    return hello_text(Hello(__version__, control, bin_dir, tmux_socket, _answers(control)))


def relay(args: list[str]) -> str:
    if len(args) != 1 or not args[0].isdigit():
        raise CtlError(codes.USAGE, "mytty-ctl __relay SECONDS (a request line on stdin)")
    body = sys.stdin.buffer.read(MAX_REQUEST_BYTES + 2).split(b"\n", 1)[0]
    reply = transport.exchange(transport.socket_path(), body, float(args[0]))
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n"


def connect(args: list[str]) -> str:
    from mytty.cli.hosts.link import Link

    if len(args) != 1:
        raise CtlError(codes.USAGE, "mytty-ctl __connect NAME")
    link = Link(args[0])
    spec = link.spec()
    fresh = link.fresh()
    link.ensure(reconnect=fresh)
    if spec.transport == "forward" and not _answers(link.socket):
        link.ensure(reconnect=True)
    hello = link.hello.to_json() if link.hello is not None else None
    return json.dumps({"socket": link.socket, "transport": spec.transport, "hello": hello}) + "\n"


def send(args: list[str]) -> str:
    from mytty.cli.hosts.link import send as send_to

    if len(args) != 2 or not args[1].isdigit():
        raise CtlError(codes.USAGE, "mytty-ctl __send NAME SECONDS (a request line on stdin)")
    body = sys.stdin.buffer.read(MAX_REQUEST_BYTES + 2).split(b"\n", 1)[0]
    request = transport.decode(body)
    reply = send_to(args[0], request, float(args[1]))
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n"
