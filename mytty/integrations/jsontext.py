"""Edit JSON *text* in place, so every byte mytty does not own stays exactly as the user left it.

``json.loads`` + ``json.dumps`` would normalise indentation, key spacing, escapes and inline
arrays. Instead this module parses the text into spans (where each value, member and element
starts and ends), and each edit splices only the region it changes:

* appending after the last element copies the separator the container already uses between
  its elements (``",\\n    "`` or ``", "``), and renders the new value in that container's
  indentation;
* removing the last element cuts from the end of the previous one, removing any other element
  cuts up to the start of the next one, and removing the only element empties the brackets.

Removing what an append added is therefore the exact inverse of that append. One case is not
reversible: appending into an *empty* container rewrites the whitespace between its brackets
(``[ ]`` comes back as ``[]``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

_WHITESPACE = " \t\n\r"
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")

PathPart = str | int


@dataclass(frozen=True, slots=True)
class Span:
    """One JSON value in the text: ``text[start:end]``; containers also list their items."""

    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    items: tuple[Item, ...] = ()


@dataclass(frozen=True, slots=True)
class Item:
    """A member (``key`` set; ``start`` is the key's opening quote) or an array element."""

    key: str | None
    start: int
    key_end: int
    value: Span

    @property
    def end(self) -> int:
        return self.value.end


def parse(text: str) -> Span:
    """The span tree of a JSON document (raises ``ValueError`` on malformed text)."""
    try:
        pos = _skip(text, 0)
        root, pos = _value(text, pos)
        if _skip(text, pos) != len(text):
            raise ValueError("extra data after the JSON value")
        return root
    except (IndexError, RecursionError) as exc:
        raise ValueError("malformed JSON") from exc


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


def _value(text: str, pos: int) -> tuple[Span, int]:
    char = text[pos]
    if char == "{":
        return _container(text, pos, "}", keyed=True)
    if char == "[":
        return _container(text, pos, "]", keyed=False)
    if char == '"':
        _, end = scanstring(text, pos + 1)
        return Span(pos, end, "scalar"), end
    match = _SCALAR.match(text, pos)
    if not match:
        raise ValueError(f"unexpected character at offset {pos}")
    return Span(pos, match.end(), "scalar"), match.end()


def _container(text: str, start: int, close: str, *, keyed: bool) -> tuple[Span, int]:
    items: list[Item] = []
    pos = _skip(text, start + 1)
    kind = "object" if keyed else "array"
    if text[pos] == close:
        return Span(start, pos + 1, kind), pos + 1
    while True:
        item_start = pos
        key: str | None = None
        key_end = pos
        if keyed:
            if text[pos] != '"':
                raise ValueError(f"expected a key at offset {pos}")
            key, key_end = scanstring(text, pos + 1)
            pos = _skip(text, key_end)
            if text[pos] != ":":
                raise ValueError(f"expected ':' at offset {pos}")
            pos = _skip(text, pos + 1)
        value, pos = _value(text, pos)
        items.append(Item(key, item_start, key_end, value))
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
            continue
        if text[pos] == close:
            return Span(start, pos + 1, kind, tuple(items)), pos + 1
        raise ValueError(f"expected ',' or '{close}' at offset {pos}")


def _index_of(span: Span, part: PathPart) -> int:
    if isinstance(part, int):
        if span.kind != "array" or not 0 <= part < len(span.items):
            raise KeyError(part)
        return part
    if span.kind != "object":
        raise KeyError(part)
    # The last duplicate wins, as in json.loads.
    for index in range(len(span.items) - 1, -1, -1):
        if span.items[index].key == part:
            return index
    raise KeyError(part)


def find(root: Span, path: tuple[PathPart, ...]) -> Span:
    """The span at ``path`` (object keys and array indexes) below ``root``."""
    span = root
    for part in path:
        span = span.items[_index_of(span, part)].value
    return span


# -- style ---------------------------------------------------------------------------------


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[line_start:end]


def _global_unit(text: str) -> str:
    """The first indentation the document uses (the root's members sit one unit deep)."""
    for line in text.split("\n")[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def _colon(text: str, root: Span, container: Span) -> str:
    """The key/value separator the document uses (``": "`` unless it says otherwise)."""
    for span in (container, root):
        for item in span.items:
            if item.key is not None:
                return text[item.key_end : item.value.start]
    found = _first_member(root)
    return text[found.key_end : found.value.start] if found else ": "


def _first_member(span: Span) -> Item | None:
    """The first object member anywhere below ``span``, depth first."""
    for item in span.items:
        if item.key is not None:
            return item
        nested = _first_member(item.value)
        if nested:
            return nested
    return None


def _inline_separator(text: str, span: Span) -> str:
    """The separator of the first single-line container with two items (``","`` if none)."""
    if len(span.items) >= 2:
        between = text[span.items[0].end : span.items[1].start]
        if "\n" not in between:
            return between
    for item in span.items:
        found = _inline_separator(text, item.value)
        if found != ",":
            return found
    return ","


def _render(value: Any, indent: str | None, unit: str, item_sep: str, colon: str) -> str:
    """``value`` as JSON: inline when ``indent is None``, else pretty, continuing at ``indent``."""
    if indent is None:
        return json.dumps(value, ensure_ascii=False, separators=(item_sep, colon))
    text = json.dumps(value, ensure_ascii=False, indent=unit, separators=(",", colon))
    return text.replace("\n", "\n" + indent)


def _insert(text: str, path: tuple[PathPart, ...], key: str | None, value: Any) -> str:
    root = parse(text)
    container = find(root, path)
    expected_kind = "array" if key is None else "object"
    if container.kind != expected_kind:
        raise ValueError(f"expected an {expected_kind} at {path!r}")
    colon = _colon(text, root, container)
    prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + colon
    items = container.items
    line_indent = _line_indent(text, container.start)
    if items:
        last = items[-1]
        if len(items) >= 2:
            separator = text[items[-2].end : last.start]
        else:
            lead = text[container.start + 1 : last.start]
            separator = "," + (lead or _inline_separator(text, root)[1:])
        indent: str | None = None
        unit = ""
        if "\n" in separator:
            continuation = separator[separator.rfind("\n") + 1 :]
            nested = continuation.startswith(line_indent) and len(continuation) > len(line_indent)
            unit = continuation[len(line_indent) :] if nested else _global_unit(text)
            indent = continuation
            item_sep = ","
        else:
            item_sep = separator.strip(_WHITESPACE) + separator[separator.index(",") + 1 :]
        rendered = prefix + _render(value, indent, unit, item_sep, colon)
        return text[: last.end] + separator + rendered + text[last.end :]
    # An empty container: lay it out like the rest of the document.
    root_text = text[root.start : root.end]
    if "\n" not in root_text:
        inner = prefix + _render(value, None, "", ", " if ", " in root_text else ",", colon)
    else:
        unit = _global_unit(text)
        indent = line_indent + unit
        inner = "\n" + indent + prefix + _render(value, indent, unit, ",", colon) + "\n"
        inner += line_indent
    return text[: container.start + 1] + inner + text[container.end - 1 :]


def append_element(text: str, path: tuple[PathPart, ...], value: Any) -> str:
    """Append ``value`` to the array at ``path``."""
    return _insert(text, path, None, value)


def add_member(text: str, path: tuple[PathPart, ...], key: str, value: Any) -> str:
    """Add ``key: value`` as the last member of the object at ``path``."""
    return _insert(text, path, key, value)


def remove(text: str, path: tuple[PathPart, ...]) -> str:
    """Remove the member or element that ``path`` names (its last part picks it)."""
    if not path:
        raise ValueError("cannot remove the root")
    root = parse(text)
    container = find(root, path[:-1])
    items = container.items
    index = _index_of(container, path[-1])
    if len(items) == 1:
        return text[: container.start + 1] + text[container.end - 1 :]
    if index == len(items) - 1:
        return text[: items[index - 1].end] + text[items[index].end :]
    return text[: items[index].start] + text[items[index + 1].start :]


def detect_indent(text: str) -> str | int | None:
    """An ``indent`` argument for ``json.dumps`` that matches the document (``None``: compact)."""
    if "\n" not in text.strip():
        return None
    unit = _global_unit(text)
    return len(unit) if set(unit) == {" "} else unit
