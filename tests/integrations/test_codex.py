"""Codex trust: hashes asked from Codex land in config.toml without disturbing the user's file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mytty.core.events import AgentProvider
from mytty.integrations import api, codex_toml
from mytty.integrations.codex import EVENTS as codex_events
from mytty.integrations.codex import snake_case
from mytty.integrations.codex_trust import AppServerHookSource, CodexUnavailable
from mytty.integrations.common import Locations

from .conftest import FakeCodex

USER_CONFIG = """\
# Personal Codex settings — keep these comments.
model = "gpt-5"   # the default model
approval_policy = "on-request"

[features]
plugins = false  # no marketplace

[hooks.state."/elsewhere/hooks.json:stop:0:0"]
trusted_hash = "sha256:foreign"

[projects."/home/u/proj"]
trust_level = "trusted"
"""


def _trusted(loc: Locations) -> dict[str, str]:
    return codex_toml.trusted_hashes(tomllib.loads(loc.codex_config.read_text()))


@pytest.mark.parametrize(
    "original",
    [USER_CONFIG, USER_CONFIG.rstrip("\n"), "", "# only a comment\n"],
    ids=["full", "no-newline", "empty", "comment"],
)
def test_trust_is_recorded_and_removed_without_touching_the_rest(
    original: str, env: dict[str, str], fake_codex: FakeCodex
) -> None:
    loc = Locations.from_env(env)
    loc.codex_home.mkdir()
    loc.codex_config.write_text(original)
    api.enable("codex", env, codex_hooks=fake_codex)
    text = loc.codex_config.read_text()
    assert text.startswith(original)  # every comment and table of the user's, in place
    trusted = _trusted(loc)
    ours = {k: v for k, v in trusted.items() if k.startswith(str(loc.codex_hooks))}
    assert sorted(k.split(":")[-3] for k in ours) == sorted(snake_case(e) for e in codex_events)
    # What we recorded is exactly what Codex reports, so Codex now sees them as trusted.
    assert all(h.trust_status == "trusted" for h in fake_codex.list_hooks(env, loc.home))
    assert api.status_of("codex", env) == api.IntegrationStatus(AgentProvider.CODEX, "installed")
    api.disable("codex", env)
    if original:
        assert loc.codex_config.read_text() == original
    else:
        assert not loc.codex_config.exists()


def test_foreign_hooks_trust_is_left_alone(env: dict[str, str], fake_codex: FakeCodex) -> None:
    loc = Locations.from_env(env)
    loc.codex_home.mkdir()
    loc.codex_hooks.write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "log"}]}]}}'
    )
    api.enable("codex", env, codex_hooks=fake_codex)
    assert f"{loc.codex_hooks}:stop:0:0" not in _trusted(loc)  # the user's hook stays untrusted
    assert f"{loc.codex_hooks}:stop:1:0" in _trusted(loc)


def test_without_codex_the_status_says_what_to_do(env: dict[str, str]) -> None:
    loc = Locations.from_env(env)
    warnings: list[str] = []
    changed = api.enable(
        "codex",
        env,
        codex_hooks=FakeCodex(fail="codex app-server did not answer in time"),
        warnings=warnings,
    )
    assert str(loc.codex_hooks) in changed and not loc.codex_config.exists()
    assert warnings and "did not answer in time" in warnings[0] and "/hooks" in warnings[0]
    status = api.status_of("codex", env)
    assert status.status == "needs-repair"
    assert status.error and "/hooks" in status.error and "not on PATH" in status.error
    wire = api.integrations_wire(env)["integrations"][0]
    assert wire["provider"] == "codex" and "/hooks" in wire["error"]
    # Once Codex can be asked, repair finishes the job.
    api.repair(None, env, codex_hooks=FakeCodex())
    assert api.status_of("codex", env).status == "installed"


def test_trust_the_user_gave_in_codex_counts(env: dict[str, str], fake_codex: FakeCodex) -> None:
    loc = Locations.from_env(env)
    api.enable("codex", env, codex_hooks=FakeCodex(fail="codex not found"))
    assert api.status_of("codex", env).status == "needs-repair"
    # The user trusts in /hooks; Codex writes the state in its own way (more keys, other spacing).
    lines = []
    for hook in fake_codex.list_hooks(env, loc.home):
        lines += [
            f'[hooks.state."{hook.key}"]',
            f'trusted_hash="{hook.current_hash}"',
            "enabled = true",
            "",
        ]
    loc.codex_config.write_text("\n".join(lines))
    assert api.status_of("codex", env).status == "installed"
    assert api.enable("codex", env, codex_hooks=fake_codex) == []
    api.disable("codex", env)
    assert _trusted(loc) == {}
    assert "enabled = true" in loc.codex_config.read_text()  # what Codex stored besides trust stays


def test_changed_handlers_are_re_trusted(
    env: dict[str, str], tmp_path: Path, fake_codex: FakeCodex
) -> None:
    loc = Locations.from_env(env)
    api.enable("codex", env, codex_hooks=fake_codex)
    first = _trusted(loc)
    other = tmp_path / "new-hook"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    moved = {**env, "MYTTY_AGENT_HOOK_BIN": str(other)}
    api.disable("codex", env)
    api.enable("codex", moved, codex_hooks=fake_codex)
    second = _trusted(loc)
    assert set(second) == set(first) and all(second[k] != first[k] for k in first)
    assert all(h.trust_status == "trusted" for h in fake_codex.list_hooks(moved, loc.home))


def test_inline_hooks_table_falls_back_to_tomlkit(
    env: dict[str, str], fake_codex: FakeCodex
) -> None:
    loc = Locations.from_env(env)
    loc.codex_home.mkdir()
    loc.codex_config.write_text('# top\nhooks = { state = {} }\nmodel = "x"  # keep\n')
    api.enable("codex", env, codex_hooks=fake_codex)
    text = loc.codex_config.read_text()
    assert "# top" in text and 'model = "x"  # keep' in text
    assert len(_trusted(loc)) == len(codex_events)
    assert api.status_of("codex", env).status == "installed"


@pytest.mark.parametrize("text", ["", "a = 1\n", "a = 1", "# c\n\n[t]\nb = 2\n\n\n"])
def test_set_then_drop_trust_restores_text(text: str) -> None:
    path = Path("/x/config.toml")
    hashes = {
        "/h/hooks.json:stop:0:0": "sha256:1",
        "/h/hooks.json:user_prompt_submit:0:0": "sha256:2",
    }
    added = codex_toml.set_trust(text, path, hashes)
    assert codex_toml.trusted_hashes(tomllib.loads(added)) == hashes
    assert codex_toml.set_trust(added, path, hashes) == added
    assert codex_toml.drop_trust(added, path, list(hashes)) == text


def test_app_server_seam_reports_a_missing_cli(tmp_path: Path) -> None:
    with pytest.raises(CodexUnavailable, match="not found"):
        AppServerHookSource().list_hooks({"PATH": str(tmp_path)}, tmp_path)


def test_app_server_seam_times_out(tmp_path: Path) -> None:
    silent = tmp_path / "codex"
    silent.write_text("#!/bin/sh\nexec sleep 30\n")
    silent.chmod(0o755)
    with pytest.raises(CodexUnavailable, match="in time"):
        AppServerHookSource(executable=str(silent), timeout=0.5).list_hooks({}, tmp_path)


def test_app_server_seam_reports_an_early_exit(tmp_path: Path) -> None:
    broken = tmp_path / "codex"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    with pytest.raises(CodexUnavailable):
        AppServerHookSource(executable=str(broken), timeout=5).list_hooks({}, tmp_path)


def test_dropping_trust_keeps_what_codex_stored_beside_it() -> None:
    path = Path("/x/config.toml")
    key = "/h/hooks.json:stop:0:0"
    text = f'a = 1\n\n[hooks.state."{key}"]\ntrusted_hash = "sha256:1"\nenabled = true\n'
    dropped = codex_toml.drop_trust(text, path, [key])
    assert tomllib.loads(dropped) == {"a": 1, "hooks": {"state": {key: {"enabled": True}}}}
    commented = f'[hooks.state."{key}"]\ntrusted_hash = "sha256:1"\n# note\nb = 2\n'
    assert tomllib.loads(codex_toml.drop_trust(commented, path, [key])) == {
        "hooks": {"state": {key: {"b": 2}}}
    }
