"""The text-splicing JSON editor: edits land where intended and removal undoes an append."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mytty.integrations import jsontext

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(st.characters(blacklist_categories=["Cs"]), max_size=8),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.text(max_size=5), children, max_size=3),
    ),
    max_leaves=12,
)
layouts = st.sampled_from(
    [
        {"indent": 2},
        {"indent": 4},
        {"indent": "\t"},
        {"indent": None},
        {"indent": None, "separators": (",", ":")},
        {"indent": 2, "ensure_ascii": False},
        {"indent": 3, "separators": (",", " : ")},
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    existing=st.lists(values, min_size=0, max_size=4),
    other=st.dictionaries(st.text(max_size=4), values, max_size=3),
    new=values,
    layout=layouts,
    newline=st.booleans(),
)
def test_append_then_remove_restores_the_bytes(
    existing: list[Any], other: dict[str, Any], new: Any, layout: dict[str, Any], newline: bool
) -> None:
    document = {**other, "target": existing}
    text = json.dumps(document, **layout) + ("\n" if newline else "")
    appended = jsontext.append_element(text, ("target",), new)
    assert json.loads(appended) == {**other, "target": [*existing, new]}
    restored = jsontext.remove(appended, ("target", len(existing)))
    assert restored == text


@settings(max_examples=200, deadline=None)
@given(
    other=st.dictionaries(st.text(max_size=4), values, max_size=4),
    key=st.text(min_size=1, max_size=6),
    new=values,
    layout=layouts,
)
def test_add_member_then_remove_restores_the_bytes(
    other: dict[str, Any], key: str, new: Any, layout: dict[str, Any]
) -> None:
    other.pop(key, None)
    text = json.dumps({"outer": other}, **layout) + "\n"
    added = jsontext.add_member(text, ("outer",), key, new)
    assert json.loads(added) == {"outer": {**other, key: new}}
    assert jsontext.remove(added, ("outer", key)) == text


def test_append_follows_the_containers_own_indentation() -> None:
    text = '{\n    "list": [\n        1\n    ]\n}\n'
    assert jsontext.append_element(text, ("list",), {"a": [2]}) == (
        '{\n    "list": [\n        1,\n        {\n            "a": [\n                2\n'
        "            ]\n        }\n    ]\n}\n"
    )


def test_inline_array_inside_pretty_file_stays_inline() -> None:
    text = '{\n  "a": [1, 2],\n  "b": 3\n}'
    assert jsontext.append_element(text, ("a",), [4, 5]) == '{\n  "a": [1, 2, [4, 5]],\n  "b": 3\n}'


def test_insertion_into_an_empty_object_uses_the_document_indent() -> None:
    text = '{\n\t"x": {}\n}\n'
    assert jsontext.add_member(text, ("x",), "k", 1) == '{\n\t"x": {\n\t\t"k": 1\n\t}\n}\n'


def test_removing_a_middle_element_keeps_the_neighbours_layout() -> None:
    text = "[\n  1,\n  2,\n  3\n]"
    assert jsontext.remove(text, (1,)) == "[\n  1,\n  3\n]"
    assert jsontext.remove(text, (0,)) == "[\n  2,\n  3\n]"
    assert jsontext.remove("[ 7 ]", (0,)) == "[]"


def test_duplicate_keys_resolve_to_the_last_like_json_loads() -> None:
    text = '{"a": 1, "a": [2]}'
    assert jsontext.append_element(text, ("a",), 3) == '{"a": 1, "a": [2, 3]}'


def test_malformed_text_is_rejected() -> None:
    for bad in ("{", '{"a" 1}', "[1,]", '{"a": 1} x'):
        with pytest.raises(ValueError):
            jsontext.parse(bad)
