"""Re-reads ``config.toml`` when it is saved, so an edit takes effect without a restart.

inotify on the controller's home (no polling) reports a write that was closed or a file renamed
into place under the name ``config.toml`` (editors save both ways). Each report is read again
with :func:`~mytty.daemon.config.load.reread_settings`; settings that differ from the ones in use
are handed to ``apply``. A file saved half-edited (not TOML, not UTF-8) keeps the settings in
use, with one warning naming the line and column; unknown keys and bad values are warned about
and keep their defaults, as at start. The file is never written here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from mytty.core import paths
from mytty.daemon import inotify
from mytty.daemon.config.load import Settings, reread_settings

log = logging.getLogger(__name__)

_MASK = inotify.IN_CLOSE_WRITE | inotify.IN_MOVED_TO | inotify.IN_ONLYDIR


class ConfigWatcher:
    def __init__(
        self,
        home: Path,
        current: Callable[[], Settings],
        apply: Callable[[Settings], None],
    ) -> None:
        self._home = home
        self._current = current
        self._apply = apply
        self._inotify: inotify.Inotify | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.reloads = 0  # settings handed over (for tests and the log)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Watch the home directory; raises OSError when inotify can't (the caller logs it)."""
        watcher = inotify.Inotify()
        try:
            watcher.add_watch(str(self._home), _MASK)
        except OSError:
            watcher.close()
            raise
        self._inotify, self._loop = watcher, loop
        loop.add_reader(watcher.fd, self._on_readable)

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close(self._loop)
            self._inotify = None

    def _on_readable(self) -> None:
        if self._inotify is None:
            return
        events = self._inotify.read()
        if any(e.name == paths.CONFIG_FILE or e.mask & inotify.IN_Q_OVERFLOW for e in events):
            self.reload()

    def reload(self) -> None:
        """Read the file again and apply what changed (also the answer to a lost report)."""
        path = self._home / paths.CONFIG_FILE
        settings, warnings = reread_settings(self._home)
        for warning in warnings:
            log.warning("%s: %s", path, warning)
        if settings is None or settings == self._current():
            return
        self._apply(settings)
        self.reloads += 1
        log.info("%s: reloaded; the new settings are in use", path)
