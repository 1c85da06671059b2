"""Hostile clients as a separate process, so their work does not share the test's GIL.

``python -m tests.reliability.hostile MODE ARGS...`` prints ``ready`` once its load is in
place, keeps it up until SIGTERM, then prints one JSON line of what it saw. Modes:

* ``hold COUNT PATH...``: COUNT connections per socket that never finish their request,
  trickling one byte a second to each (a request that never ends); whenever the controller
  drops one (its read timeout), another takes its place, so COUNT are held at all times.
* ``vanish RATE PATH...``: connect and vanish, RATE clients a second in all: close at once,
  close after half a request, reset (SO_LINGER 0) after a whole request before reading the
  reply. (A flood beyond what the controller can accept fills the listen queue, and then any
  client waits in it: no server can tell a hostile connect from a good one before accepting.)
* ``slowread COUNT PATH PANE``: COUNT clients ask for ``read PANE`` (a large reply) with a
  4 KiB receive buffer and take one byte a second; reports how many bytes each got.
"""

from __future__ import annotations

import json
import signal
import socket
import struct
import sys
import threading
import time
from typing import Any

STOP = threading.Event()
PARTIAL = b'{"type":"list","x":"'


def _connect(path: str) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s


def _peer_closed(s: socket.socket) -> bool:
    try:
        s.setblocking(False)
        data = s.recv(1)
    except BlockingIOError:
        return False
    except OSError:
        return True
    return data == b""


def hold(count: int, paths: list[str]) -> dict[str, Any]:
    held = {p: [_connect(p) for _ in range(count)] for p in paths}
    for socks in held.values():
        for s in socks:
            s.sendall(PARTIAL)
    print("ready", flush=True)
    replaced = 0
    while not STOP.wait(1.0):
        for path, socks in held.items():
            for i, s in enumerate(socks):
                if _peer_closed(s):
                    s.close()
                    socks[i] = s = _connect(path)
                    s.sendall(PARTIAL)
                    replaced += 1
                else:
                    try:
                        s.setblocking(True)
                        s.settimeout(1)
                        s.send(b"x")  # one byte a second: a request that never ends
                    except OSError:
                        pass
        print(json.dumps({"replaced": replaced}), flush=True)
    return {"replaced": replaced}


def vanish(rate: float, paths: list[str]) -> dict[str, Any]:
    linger = struct.pack("ii", 1, 0)
    done = tried = 0
    started = time.monotonic()
    print("ready", flush=True)
    while not STOP.is_set():
        # Keep to RATE clients a second: a load generator's pace, not a poll.
        ahead = tried / rate - (time.monotonic() - started)
        if ahead > 0:
            STOP.wait(ahead)
        elif ahead < -0.1:  # behind (the process was stopped): no burst to catch up
            started, tried = time.monotonic(), 0
        for path in paths:
            for how in range(3):
                tried += 1
                try:
                    s = _connect(path)
                    if how == 1:
                        s.sendall(PARTIAL)
                    elif how == 2:
                        s.sendall(b'{"type":"list"}\n')
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                    s.close()
                    done += 1
                except OSError:
                    pass
    return {"vanished": done}


def slowread(count: int, path: str, pane: str) -> dict[str, Any]:
    request = json.dumps({"type": "read", "paneID": pane}).encode() + b"\n"
    socks = []
    for _ in range(count):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(path)
        s.sendall(request)
        s.shutdown(socket.SHUT_WR)
        s.setblocking(False)
        socks.append(s)
    got = [0] * count
    print("ready", flush=True)
    while not STOP.wait(1.0):
        for i, s in enumerate(socks):
            try:
                got[i] += len(s.recv(1))
            except OSError:
                pass
    return {"bytes": got}


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    mode, *args = sys.argv[1:]
    if mode == "hold":
        result = hold(int(args[0]), args[1:])
    elif mode == "vanish":
        result = vanish(float(args[0]), args[1:])
    elif mode == "slowread":
        result = slowread(int(args[0]), args[1], args[2])
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps({"result": result}), flush=True)


if __name__ == "__main__":
    main()
