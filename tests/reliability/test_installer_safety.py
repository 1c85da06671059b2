"""Installer safety: random existing config files survive enable/disable (issue 15, suite part).

For each provider whose installer edits a file the user owns (Claude's ``settings.json``,
Cursor's and Codex's ``hooks.json``, Codex's ``config.toml``), hypothesis draws the file as it
may already be: any JSON (or TOML) document, in any layout, with hook-shaped content of its
own in mytty's events and others. Then:

* enable either succeeds, or refuses with ``invalid-configuration`` and writes nothing (the
  file keeps its bytes, mtime and inode);
* after a successful enable everything outside mytty's entries is still there, and disable
  gives back the original bytes, except for the one documented limit (an empty ``hooks``
  object or an empty list under one of mytty's own events reads exactly like what mytty
  creates, so disable drops it: tests/integrations/test_preservation.py);
* a malformed file (not JSON/TOML, not UTF-8, cut short, the wrong shape) is refused by every
  action and stays byte-identical.

Pure file work in a temporary HOME (a fake ``codex`` answers Codex's hook listing);
``MYTTY_FUZZ_SCALE`` multiplies the example counts like the fuzz suite's.
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mytty.core.errors import ErrorCode, MyttyError
from mytty.integrations import api, claude, codex, cursor
from mytty.integrations.common import Locations
from tests.integrations.conftest import FakeCodex, snapshot
from tests.reliability import counts

pytestmark = pytest.mark.reliability

SCALE = float(os.environ.get("MYTTY_FUZZ_SCALE", "1"))


def _settings(examples: int) -> settings:
    return settings(
        max_examples=max(1, round(examples * SCALE)),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


# -- documents -------------------------------------------------------------------------------------

TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "hooks", "command", "mytty", "\u00e9\u2603", "a\nb", "\\", '"', "\x00"]),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=12,
)


def handler() -> st.SearchStrategy[Any]:
    command = st.one_of(TEXT, st.sampled_from(["notify-send done", "mytty-agent-hook", "a.sh"]))
    shaped = st.fixed_dictionaries(
        {"type": st.just("command"), "command": command},
        optional={"timeout": st.integers(0, 600), "extra": JSON_VALUES},
    )
    return st.one_of(shaped, shaped, JSON_VALUES)


def hooks_object(events: tuple[str, ...], grouped: bool) -> st.SearchStrategy[Any]:
    """A ``hooks`` object: lists under mytty's events and others, mostly the provider's shape."""
    if grouped:  # Claude, Codex: [{"matcher": …, "hooks": [handler…]}]
        entry = st.fixed_dictionaries(
            {"hooks": st.lists(handler(), max_size=3)},
            optional={"matcher": TEXT, "_note": JSON_VALUES},
        )
    else:  # Cursor: [{"command": …}]
        entry = st.fixed_dictionaries({"command": TEXT}, optional={"type": st.just("command")})
    names = st.one_of(st.sampled_from(events), TEXT)
    value = st.one_of(
        st.lists(st.one_of(entry, entry, entry, JSON_VALUES), max_size=3), JSON_VALUES
    )
    return st.one_of(st.dictionaries(names, value, max_size=4), JSON_VALUES)


def documents(events: tuple[str, ...], grouped: bool) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.dictionaries(
            TEXT,
            JSON_VALUES,
            max_size=5,
        ).flatmap(
            lambda doc: st.builds(
                lambda hooks, version: {
                    **doc,
                    **({} if hooks is None else {"hooks": hooks}),
                    **({} if version is None else {"version": version}),
                },
                st.one_of(st.none(), hooks_object(events, grouped)),
                st.one_of(st.none(), st.none(), st.just(1), JSON_VALUES),
            )
        )
    )


def any_documents(events: tuple[str, ...], grouped: bool) -> st.SearchStrategy[Any]:
    objects = documents(events, grouped)
    return st.one_of(objects, objects, objects, JSON_VALUES)  # not an object: refused


@st.composite
def json_text(draw: st.DrawFn, values: st.SearchStrategy[Any]) -> bytes:
    value = draw(values)
    indent = draw(st.sampled_from([None, 2, 4, "\t", 0]))
    ascii_only = draw(st.booleans())
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    text += draw(st.sampled_from(["", "\n", "\n\n", "  \n"]))
    return text.encode("utf-8", "surrogatepass")


TOML_SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=10),
)
TOML_TABLES = st.recursive(
    st.dictionaries(st.text(min_size=1, max_size=8), TOML_SCALARS, max_size=4),
    lambda inner: st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.one_of(TOML_SCALARS, inner, st.lists(TOML_SCALARS, max_size=3)),
        max_size=4,
    ),
    max_leaves=10,
)


@st.composite
def toml_text(draw: st.DrawFn) -> bytes:
    doc: dict[str, Any] = draw(TOML_TABLES)
    hooks = draw(st.sampled_from(["none", "state-table", "foreign-state", "scalar", "other-keys"]))
    if hooks == "state-table":
        doc["hooks"] = {"state": {}}
    elif hooks == "foreign-state":
        doc["hooks"] = {"state": {"/x/hooks.json:stop:0:0": {"trusted_hash": "sha256:0"}}}
    elif hooks == "scalar":
        doc["hooks"] = draw(TOML_SCALARS)  # not a table: Codex could not read it either
    elif hooks == "other-keys":
        doc["hooks"] = {"enabled": True}
    text = tomlkit.dumps(doc)
    text = draw(st.sampled_from(["", "# mine\n"])) + text
    return text.encode()


# -- one throw-away home per example ---------------------------------------------------------------


@contextmanager
def throwaway_home() -> Iterator[dict[str, str]]:
    with tempfile.TemporaryDirectory(prefix="mtinst") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        hook = Path(tmp) / "bin" / "mytty-agent-hook"
        hook.parent.mkdir()
        hook.write_text("#!/bin/sh\nexit 0\n")
        hook.chmod(0o755)
        yield {"HOME": str(home), "MYTTY_AGENT_HOOK_BIN": str(hook), "PATH": ""}


def _kwargs(provider: str) -> dict[str, Any]:
    return {"codex_hooks": FakeCodex()} if provider == "codex" else {}


def refused_unchanged(provider: str, env: dict[str, str], files: list[Path]) -> bool:
    """Every action either refuses with invalid-configuration and writes nothing, or works.

    Returns True when enable was refused (then nothing was written).
    """
    before = {p: snapshot(p) for p in files if p.exists()}
    try:
        api.enable(provider, env, **_kwargs(provider))
    except MyttyError as exc:
        assert exc.code is ErrorCode.INVALID_CONFIGURATION, exc
        assert {p: snapshot(p) for p in before} == before
        attempts: list[Callable[[], object]] = [
            lambda: api.disable(provider, env),
            lambda: api.repair(provider, env, **_kwargs(provider)),
        ]
        for attempt in attempts:
            with pytest.raises(MyttyError) as again:
                attempt()
            assert again.value.code is ErrorCode.INVALID_CONFIGURATION
            assert {p: snapshot(p) for p in before} == before
        return True
    return False


def without_our_empties(value: Any, events: tuple[str, ...]) -> Any:
    """The documented limit: what disable may drop from a user's document."""
    if not isinstance(value, dict) or not isinstance(value.get("hooks"), dict):
        return value
    hooks = {k: v for k, v in value["hooks"].items() if not (k in events and v == [])}
    out = {k: v for k, v in value.items() if k != "hooks"}
    if hooks:
        out["hooks"] = hooks
    return out


def check_round_trip(
    provider: str, env: dict[str, str], path: Path, original: bytes, events: tuple[str, ...]
) -> None:
    enabled = json.loads(path.read_bytes())
    before = json.loads(original)
    for key, value in before.items():
        if key != "hooks":
            assert enabled[key] == value, f"enable changed {key!r}"
    for event, entries in before.get("hooks", {}).items():
        kept = enabled["hooks"][event]
        assert all(entry in kept for entry in entries), f"enable lost an entry of {event!r}"
    api.disable(provider, env)
    normal = without_our_empties(before, events)
    if not path.exists():
        # Documented too: a file disable leaves as a new one would start is deleted.
        empty: list[Any] = [{}, {"version": 1}] if provider == "cursor" else [{}]
        assert normal in empty, "disable removed a file that held the user's content"
    elif normal == before:
        assert path.read_bytes() == original, "disable did not give the original bytes back"
    else:
        assert json.loads(path.read_bytes()) == normal


PROVIDERS: dict[str, tuple[Callable[[Locations], Path], tuple[str, ...], bool]] = {
    "claude-code": (lambda loc: loc.claude_settings, claude.EVENTS, True),
    "cursor": (lambda loc: loc.cursor_hooks, cursor.EVENTS, False),
    "codex": (lambda loc: loc.codex_hooks, codex.EVENTS, True),
}


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_random_existing_json_survives_enable_and_disable(provider: str) -> None:
    where, events, grouped = PROVIDERS[provider]

    @_settings(150)
    @given(original=json_text(any_documents(events, grouped)))
    def case(original: bytes) -> None:
        with throwaway_home() as env:
            path = where(Locations.from_env(env))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(original)
            counts.add(f"installer: {provider} documents")
            if refused_unchanged(provider, env, [path]):
                counts.add(f"installer: {provider} refused")
                return
            check_round_trip(provider, env, path, original, events)

    case()


@given(config=toml_text())
@_settings(100)
def test_random_codex_config_toml_survives_enable_and_disable(config: bytes) -> None:
    with throwaway_home() as env:
        loc = Locations.from_env(env)
        loc.codex_home.mkdir()
        loc.codex_config.write_bytes(config)
        counts.add("installer: codex config.toml documents")
        if refused_unchanged("codex", env, [loc.codex_config]):
            counts.add("installer: codex config.toml refused")
            return
        trusted = tomllib.loads(loc.codex_config.read_text())
        before = tomllib.loads(config.decode())
        for key, value in before.items():
            if key != "hooks":
                assert trusted[key] == value, f"enable changed {key!r}"
        api.disable("codex", env)
        if not before:  # nothing but mytty's trust was left: removed like an empty root
            assert not loc.codex_config.exists() or loc.codex_config.read_bytes() == config
        else:
            assert loc.codex_config.read_bytes() == config


def _malformed_json() -> st.SearchStrategy[bytes]:
    valid = json_text(documents(claude.EVENTS, True))
    return st.one_of(
        st.binary(max_size=64),
        valid.flatmap(lambda b: st.integers(0, max(0, len(b) - 1)).map(lambda n: b[:n])),
        valid.map(lambda b: b.replace(b'"', b"\xff", 1)),  # not UTF-8
        st.sampled_from([b"{", b"{}}", b'{"a":1,}', b"[", b"\xef\xbb\xbf{}", b"{'a': 1}"]),
        # Control characters Python's str.strip() drops but JSON does not take for blanks
        # (b"\x1c" was once read as an empty file and overwritten).
        st.sampled_from([b"\x1c", b" \x1d\n", b"\x1e", b"\x1f", b"\x85", b"\x0b", b"\x0c"]),
    )


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_malformed_json_stays_byte_identical(provider: str) -> None:
    where, _events, _grouped = PROVIDERS[provider]

    @_settings(100)
    @given(original=_malformed_json())
    def case(original: bytes) -> None:
        try:
            doc = json.loads(original)
        except (ValueError, UnicodeDecodeError):
            doc = None
        with throwaway_home() as env:
            path = where(Locations.from_env(env))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(original)
            refused = refused_unchanged(provider, env, [path])
            counts.add(f"installer: {provider} malformed")
            # An empty (or blank) file is read as no file yet, by design.
            if original.strip() and (doc is None or not isinstance(doc, dict)):
                assert refused, f"a malformed {path.name} was accepted: {original!r}"

    case()


@given(
    config=st.one_of(
        st.binary(max_size=48),
        st.sampled_from([b"a = [\n", b"[hooks\n", b"a = 1\na = 2\n", b"x = \xff\n", b"= 1\n"]),
    )
)
@_settings(100)
def test_malformed_codex_config_toml_stays_byte_identical(config: bytes) -> None:
    try:
        tomllib.loads(config.decode())
        parses = True
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        parses = False
    with throwaway_home() as env:
        loc = Locations.from_env(env)
        loc.codex_home.mkdir()
        loc.codex_config.write_bytes(config)
        refused = refused_unchanged("codex", env, [loc.codex_config])
        counts.add("installer: codex config.toml malformed")
        if not parses:
            assert refused, f"a malformed config.toml was accepted: {config!r}"
