"""The config schema: defaults, the default file's text, and what a bad value does."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from mytty.core.config import (
    CHANNELS,
    DEFAULT_TEXT,
    DEFAULTS,
    SCHEMA,
    settings_from,
)


def test_the_default_file_says_exactly_the_defaults() -> None:
    settings, warnings = settings_from(tomllib.loads(DEFAULT_TEXT))
    assert warnings == []
    assert settings == DEFAULTS


#: Keys the default file shows only in comments: ``[[approvals.rule]]`` tables (a ``rule = []``
#: there would stop ``mytty approve --always`` from appending a table after it).
COMMENTED_KEYS = {("approvals", "rule")}


def test_the_default_file_names_every_key_of_the_schema() -> None:
    data = tomllib.loads(DEFAULT_TEXT)
    # A key whose default is "unset" ([admission]'s limits) is written commented out.
    commented = {
        line[2:].split(" = ", 1)[0]
        for line in DEFAULT_TEXT.splitlines()
        if line.startswith("# ") and " = " in line and " " not in line[2:].split(" = ", 1)[0]
    }
    named = {
        s: set(v) | (commented & set(SCHEMA[s])) | {k for t, k in COMMENTED_KEYS if t == s}
        for s, v in data.items()
    }
    assert {s: set(keys) for s, keys in SCHEMA.items()} == named
    for section, key in COMMENTED_KEYS:
        assert f"# [[{section}.{key}]]" in DEFAULT_TEXT


def test_values_are_applied() -> None:
    settings, warnings = settings_from(
        {
            "notify": {
                "channels": ["command", "bell", "command"],
                "command": ["ntfy", "publish"],
                "timeout": 2,
                "cooldown": 0,
                "long_success": 60,
                "osc": 777,
            },
            "tmux": {"popup_key": "M-a", "status_segment": False},
            "spawn": {"access": "review"},
            "resume": {"mode": "off"},
        }
    )
    assert warnings == []
    assert settings.notify.channels == ("command", "bell")
    assert settings.notify.command == ("ntfy", "publish")
    assert settings.notify.timeout == 2.0 and isinstance(settings.notify.timeout, float)
    assert settings.notify.cooldown == 0.0
    assert settings.notify.long_success == 60.0
    assert settings.notify.osc == 777
    assert settings.tmux.popup_key == "M-a"
    assert settings.tmux.status_segment is False
    assert settings.tmux.pane_border_segment is True
    assert settings.spawn.access == "review"
    assert settings.resume.mode == "off"


def test_unknown_keys_are_warned_and_the_rest_applies() -> None:
    settings, warnings = settings_from(
        {"notfy": {"x": 1}, "notify": {"cooldwn": 5, "cooldown": 7}, "top": 1}
    )
    assert settings.notify.cooldown == 7.0
    assert warnings == [
        "unknown section or key 'notfy' ignored",
        "[notify] unknown key 'cooldwn' ignored",
        "unknown section or key 'top' ignored",
    ]


def test_a_bad_value_keeps_only_its_own_default() -> None:
    settings, warnings = settings_from(
        {
            "notify": {"timeout": "ten", "cooldown": 3, "channels": ["bell", "sms"], "osc": True},
            "spawn": {"access": "root"},
            "tmux": {"popup_key": "C-a x", "status_segment": "no"},
            "resume": "auto",
        }
    )
    assert settings.notify.timeout == DEFAULTS.notify.timeout
    assert settings.notify.cooldown == 3.0
    assert settings.notify.channels == DEFAULTS.notify.channels
    assert settings.notify.osc == 9
    assert settings.spawn.access == "auto"
    assert settings.tmux == DEFAULTS.tmux
    assert settings.resume == DEFAULTS.resume
    assert len(warnings) == 7
    assert "[notify] timeout: expected a number of seconds; using the default 10" in warnings
    assert any("'sms'" in w and "message" in w for w in warnings)
    assert "[resume] must be a table; using its defaults" in warnings


def test_negative_durations_are_refused() -> None:
    settings, warnings = settings_from({"notify": {"cooldown": -1, "timeout": 0}})
    assert settings.notify == DEFAULTS.notify
    assert len(warnings) == 2


toml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(st.dictionaries(st.sampled_from([*SCHEMA, "x"]), toml_values, max_size=4))
def test_any_input_gives_settings_never_an_exception(data: dict[str, object]) -> None:
    settings, warnings = settings_from(data)
    assert isinstance(warnings, list)
    assert set(settings.notify.channels) <= set(CHANNELS)


def test_spawn_access_fills_in_a_left_out_access_only() -> None:
    from mytty.core.config import SpawnSettings, spawn_access

    assert spawn_access(None, SpawnSettings()) is None  # auto: the built-in rule decides
    assert spawn_access(None, SpawnSettings("review")) == "review"
    assert spawn_access("workspace-write", SpawnSettings("review")) == "workspace-write"


def test_limits_keys_are_checked() -> None:
    settings, warnings = settings_from(
        {
            "limits": {
                "auto_resume": False,
                "resume_margin_seconds": 30,
                "stagger_seconds": 0,
                "continuation_prompt": "  Go on.  ",
            }
        }
    )
    assert warnings == []
    limits = settings.limits
    assert (limits.auto_resume, limits.resume_margin_seconds, limits.stagger_seconds) == (
        False,
        30.0,
        0.0,
    )
    assert limits.continuation_prompt == "Go on."
    bad, warned = settings_from(
        {
            "limits": {
                "resume_margin_seconds": -1,
                "stagger_seconds": "5",
                "continuation_prompt": "two\nlines",
                "auto_resume": "yes",
            }
        }
    )
    assert bad.limits == DEFAULTS.limits and len(warned) == 4
    assert any("one line" in w for w in warned)
