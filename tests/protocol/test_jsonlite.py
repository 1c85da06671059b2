"""mytty.protocol.jsonlite gives json's values, bytes and errors without importing json."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mytty.protocol import jsonlite

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()  # lone surrogates included
)
_DOCS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(_DOCS, st.booleans(), st.booleans(), st.sampled_from([(",", ":"), jsonlite.SPACED]))
def test_dumps_matches_json(value: object, sort_keys: bool, ascii_only: bool, seps: tuple) -> None:
    expected = json.dumps(value, sort_keys=sort_keys, ensure_ascii=ascii_only, separators=seps)
    got = jsonlite.dumps(value, sort_keys=sort_keys, ensure_ascii=ascii_only, separators=seps)
    assert got == expected


def test_dumps_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsonlite.dumps({"a": object()})
    looped: list[object] = []
    looped.append(looped)
    with pytest.raises(ValueError, match="Circular"):
        jsonlite.dumps(looped)


@given(_DOCS, st.sampled_from(["", " ", "\n\t", "\r\n "]))
def test_loads_matches_json(value: object, pad: str) -> None:
    text = pad + json.dumps(value) + pad
    assert repr(jsonlite.loads(text)) == repr(json.loads(text))
    raw = text.encode("utf-8", "surrogatepass")
    assert repr(jsonlite.loads(raw)) == repr(json.loads(raw))


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"  ",
        b"{",
        b"{not json",
        b"{} x",
        b"[1,]",
        b"\xff{}",
        "\ufeff{}",
        b"\xef\xbb\xbf{}",
        '{"a": 1}'.encode("utf-16"),
        b"NaN",
        b"[-Infinity, 1e999]",
        b'"\\ud800"',
        b"[" * 100_000 + b"]" * 100_000,
    ],
)
def test_loads_bad_and_odd_input_like_json(raw: bytes | str) -> None:
    def outcome(loads: object) -> tuple[str, str]:
        try:
            return "ok", repr(loads(raw))  # type: ignore[operator]
        except (ValueError, RecursionError) as exc:
            return type(exc).__name__, str(exc)

    assert outcome(jsonlite.loads) == outcome(json.loads)
