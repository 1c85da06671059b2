"""Where the SSH links of one mytty home live: a private directory holding each host's
OpenSSH control socket (``%C``), the local end of its forwarded control socket
(``NAME.sock``), the handshake that set it up (``NAME.json``) and a lock (``NAME.lock``).

The directory is ``/tmp/mytty-ssh-<uid>/<crc32 of the home>``: short, because Unix socket
paths are limited to 107 bytes (a ``~/.config/mytty`` under a deep home would not do), the
same for every process of one home (the controller, ``mytty``, ``mytty-ctl`` in any pane,
whatever their ``TMPDIR``), and apart from other homes. Both levels are mode 0700 and owned
by the user (:mod:`mytty.cli.hosts.link` refuses anything else).

Stdlib only and cheap: ``mytty-ctl --host`` computes these paths on every call.
"""

from __future__ import annotations

import os
import zlib

BASE_PREFIX = "/tmp/mytty-ssh-"


def base_dir(uid: int) -> str:
    return f"{BASE_PREFIX}{uid}"


def link_dir(uid: int, home: str) -> str:
    """The links directory of the mytty home ``home`` (an absolute path) for user ``uid``."""
    return os.path.join(base_dir(uid), f"{zlib.crc32(home.encode('utf-8', 'surrogateescape')):08x}")


def control_path(directory: str) -> str:
    """The ``ControlPath`` of every master (ssh expands ``%C`` to a hash of the destination)."""
    return os.path.join(directory, "%C")


def forward_socket(directory: str, name: str) -> str:
    return os.path.join(directory, f"{name}.sock")


def record_path(directory: str, name: str) -> str:
    return os.path.join(directory, f"{name}.json")


def lock_path(directory: str, name: str) -> str:
    return os.path.join(directory, f"{name}.lock")
