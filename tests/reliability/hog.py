"""A client that parks as many long polls as it can, as one process (one SO_PEERCRED pid).

``python -m tests.reliability.hog COUNT PATH`` opens COUNT connections to the control socket
one after the other (waiting its turn when the listen queue is full), sends an ``events`` poll that waits (a cursor far ahead of the ledger's
tip) on each and half-closes, as mytty's clients do. It prints ``ready`` once all were sent,
keeps them open until SIGTERM, and then prints one JSON line: how many got a reply (by code),
how many are still parked (no reply), and how many were closed without one.
"""

from __future__ import annotations

import json
import selectors
import signal
import socket
import sys
import threading
from collections import Counter
from typing import Any

STOP = threading.Event()
POLL = json.dumps({"type": "events", "afterSequence": 10**9, "timeoutSeconds": 600}).encode()


def _open(path: str) -> socket.socket | str:
    """A connection with the poll sent, or why there is none."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # Blocking: a full listen queue makes connect() wait its turn (with a timeout set,
        # Python's connect would fail at once with EAGAIN instead).
        s.connect(path)
    except OSError as exc:
        s.close()
        return f"connect: {exc.strerror}"
    try:
        s.sendall(POLL + b"\n")
        s.shutdown(socket.SHUT_WR)
    except OSError as exc:
        s.close()
        return f"send: {exc.strerror}"
    s.setblocking(False)
    return s


def hog(count: int, path: str) -> dict[str, Any]:
    socks: dict[int, socket.socket] = {}
    failures: Counter[str] = Counter()
    for _ in range(count):
        s = _open(path)
        if isinstance(s, str):
            failures[s] += 1
        else:
            socks[s.fileno()] = s
    print("ready", flush=True)
    answers: Counter[str] = Counter()
    closed = 0
    messages: dict[str, str] = {}
    buffers: dict[int, bytes] = {}
    selector = selectors.DefaultSelector()  # epoll: a thousand descriptors are too many for select
    for fd, s in socks.items():
        selector.register(s, selectors.EVENT_READ, fd)
    while socks and not STOP.is_set():
        for key, _mask in selector.select(0.2):
            fd = key.data
            s = socks[fd]
            try:
                chunk = s.recv(65536)
            except OSError:
                chunk = b""
            if chunk:
                buffers[fd] = buffers.get(fd, b"") + chunk
                continue
            data = buffers.pop(fd, b"")
            selector.unregister(s)
            del socks[fd]
            s.close()
            if not data:
                closed += 1
                continue
            reply = json.loads(data.split(b"\n")[0])
            code = reply.get("code", reply.get("type", "?"))
            answers[code] += 1
            messages.setdefault(code, reply.get("message", ""))
    return {
        "answers": dict(answers),
        "messages": messages,
        "parked": len(socks),
        "closed": closed + failures.total(),
        "failures": dict(failures),
    }


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    count, path = int(sys.argv[1]), sys.argv[2]
    print(json.dumps({"result": hog(count, path)}), flush=True)


if __name__ == "__main__":
    main()
