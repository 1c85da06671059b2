"""ConfigWatcher: a saved config.toml is read again through real inotify; what changed is
applied, a half-edited file keeps the settings in use, nothing is ever written."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from mytty.core.config import DEFAULT_TEXT, DEFAULTS
from mytty.daemon.config.load import Settings, read_settings
from mytty.daemon.config.watch import ConfigWatcher


class Holder:
    """The controller's side: the settings in use, and every hand-over."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.applied: list[Settings] = []

    def apply(self, settings: Settings) -> None:
        self.settings = settings
        self.applied.append(settings)


async def until(predicate: Callable[[], object], what: str, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


Body = Callable[[Path, Holder, ConfigWatcher], Awaitable[None]]


def watching(tmp_path: Path, first: str, body: Body) -> None:
    """``body(config, holder, watcher)`` with ``first`` in config.toml, read and watched."""

    async def main() -> None:
        config = tmp_path / "config.toml"
        config.write_text(first)
        holder = Holder(read_settings(tmp_path)[0])
        watcher = ConfigWatcher(tmp_path, lambda: holder.settings, holder.apply)
        watcher.start(asyncio.get_running_loop())
        try:
            await body(config, holder, watcher)
        finally:
            watcher.close()

    asyncio.run(main())


def test_a_saved_edit_is_applied(tmp_path: Path) -> None:
    async def body(config: Path, holder: Holder, watcher: ConfigWatcher) -> None:
        config.write_text(DEFAULT_TEXT.replace("cooldown = 30", "cooldown = 5"))
        await until(lambda: holder.applied, "the edit to be applied")
        assert holder.settings.notify.cooldown == 5
        assert holder.settings.tmux == DEFAULTS.tmux
        assert watcher.reloads == 1

    watching(tmp_path, DEFAULT_TEXT, body)


def test_an_editor_that_renames_into_place_is_seen(tmp_path: Path) -> None:
    async def body(config: Path, holder: Holder, watcher: ConfigWatcher) -> None:
        tmp = tmp_path / ".config.toml.swp"
        tmp.write_text('[spawn]\naccess = "review"\n')
        os.replace(tmp, config)
        await until(lambda: holder.applied, "the renamed file to be applied")
        assert holder.settings.spawn.access == "review"

    watching(tmp_path, DEFAULT_TEXT, body)


def test_a_half_edited_file_keeps_the_settings_in_use(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mytty.daemon.config.watch")

    async def body(config: Path, holder: Holder, watcher: ConfigWatcher) -> None:
        broken = '[notify]\ncooldown = 7\nchannels = ["bell"\n'
        config.write_text(broken)
        await until(lambda: "keeping the settings in use" in caplog.text, "the warning")
        assert "not valid TOML at line" in caplog.text
        assert holder.applied == [] and holder.settings.notify.cooldown == 5
        assert config.read_text() == broken  # never rewritten
        config.write_bytes(b'[notify]\ncooldown = "\xff"\n')
        await until(lambda: "not UTF-8 at line 2" in caplog.text, "the UTF-8 warning")
        assert holder.applied == []
        # Fixed: applied, with a warning for the key it does not know.
        config.write_text("[notify]\ncooldown = 7\nshout = 1\n")
        await until(lambda: holder.applied, "the fixed file to be applied")
        assert holder.settings.notify.cooldown == 7
        assert "[notify] unknown key 'shout' ignored" in caplog.text

    watching(tmp_path, "[notify]\ncooldown = 5\n", body)


def test_the_same_settings_and_other_files_apply_nothing(tmp_path: Path) -> None:
    async def body(config: Path, holder: Holder, watcher: ConfigWatcher) -> None:
        reads: list[int] = []
        original = watcher.reload

        def counted() -> None:
            reads.append(1)
            original()

        watcher.reload = counted  # type: ignore[method-assign]
        (tmp_path / "mytty.log").write_text("not the config\n")
        config.write_text(DEFAULT_TEXT + "\n# a comment only\n")
        await until(lambda: reads, "the comment-only save to be read")
        assert len(reads) == 1  # the other file did not make it read the config
        assert holder.applied == [] and watcher.reloads == 0

    watching(tmp_path, DEFAULT_TEXT, body)
