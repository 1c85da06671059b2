"""A minimal inotify(7) binding with ctypes (the stdlib has none): one non-blocking descriptor,
directory watches, and decoded ``(wd, mask, name)`` records."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

IN_MODIFY = 0x00000002
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (struct inotify_event)


@dataclass(frozen=True, slots=True)
class InotifyEvent:
    wd: int
    mask: int
    name: str  # "" for events on the watched directory itself


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


class Inotify:
    def __init__(self) -> None:
        self._libc = _libc()
        fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"inotify_init1: {os.strerror(err)}")
        self.fd: int = fd

    def add_watch(self, path: str, mask: int) -> int:
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(path), ctypes.c_uint32(mask))
        if wd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"inotify_add_watch {path}: {os.strerror(err)}")
        return int(wd)

    def read(self) -> list[InotifyEvent]:
        """Every queued event; an empty list when none is queued (never blocks)."""
        events: list[InotifyEvent] = []
        while True:
            try:
                buf = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                return events
            if not buf:
                return events
            pos = 0
            while pos + _HEADER.size <= len(buf):
                wd, mask, _cookie, length = _HEADER.unpack_from(buf, pos)
                start = pos + _HEADER.size
                raw = buf[start : start + length].split(b"\0", 1)[0]
                events.append(InotifyEvent(wd, mask, os.fsdecode(raw)))
                pos = start + length

    def close(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Close the descriptor; first take it off ``loop``'s readers when one watches it."""
        if self.fd >= 0:
            if loop is not None:
                loop.remove_reader(self.fd)
            os.close(self.fd)
            self.fd = -1
