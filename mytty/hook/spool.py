"""An event that found no controller waits in the home's spool until one starts.

A controller restart (``kill -9``, an upgrade, ``mytty stop``/``start``) leaves a gap in which
a hook finds the event socket gone or refusing. The hook never blocks its agent waiting for a
controller, so before this the event was lost: a turn that ended during the gap left its run
``running`` until some later event moved it. Now the hook writes the envelope line into
``<home>/event-spool/`` instead, one file per event, and the next controller ingests the files
through the same checks as the socket before it serves (``mytty.daemon.events.spool``), then
deletes them. Events are idempotent by id, so a file that is ingested twice changes nothing.

Only on that failure path, and only stdlib: an ordinary delivery never imports this. The
directory is created 0700 in the home (the event socket's directory, which must be ours), each
file 0600 with ``O_EXCL | O_NOFOLLOW``, written under a dot name and renamed into place so the
controller never reads half a file. The spool is bounded (:data:`MAX_SPOOLED` files): a pane
that outlived its controller for good does not fill the disk.
"""

import os
import stat
import time

from mytty.core.paths import EVENT_SPOOL_DIR, EVENT_SPOOL_SUFFIX

#: Past this many waiting events, new ones are dropped (the oldest are the ones kept).
MAX_SPOOLED = 2000


def spool_dir(socket_path: str) -> str:
    return os.path.join(os.path.dirname(socket_path) or ".", EVENT_SPOOL_DIR)


def _own_directory(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()


def spool(socket_path: str, line: bytes) -> bool:
    """Keep ``line`` (one envelope, newline-terminated) for the next controller. False when it
    can't be kept (the home is not ours, the spool is full or unwritable): then it is lost,
    as it was before the spool existed."""
    home = os.path.dirname(socket_path) or "."
    if not _own_directory(home):
        return False
    directory = spool_dir(socket_path)
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    if not _own_directory(directory):
        return False
    try:
        if len(os.listdir(directory)) >= MAX_SPOOLED:
            return False
        name = f"{time.time_ns():020d}-{os.getpid()}"
        partial = os.path.join(directory, f".{name}.part")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(partial, flags, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        os.rename(partial, os.path.join(directory, name + EVENT_SPOOL_SUFFIX))
    except OSError:
        return False
    return True
