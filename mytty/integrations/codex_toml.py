"""Record and forget Codex hook trust in ``config.toml`` without disturbing the user's layout.

Codex (0.171) keeps trust as ``[hooks.state."<key>"]`` tables with a ``trusted_hash``. mytty
adds one small table per hook it owns, as a text append at the end of the file (the least
intrusive edit TOML allows), and removes the same text on disable, so comments, ordering and
blank lines elsewhere never move. The result is always re-read with ``tomllib`` and checked;
when a plain append cannot express the change (the key already exists in another shape, or
``hooks`` is an inline table) the edit falls back to ``tomlkit``, which still keeps comments.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import InlineTable

from mytty.integrations.common import invalid_configuration


def parse(text: str, path: Path) -> dict[str, Any]:
    """The document as plain data; a syntax error is ``invalid-configuration``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise invalid_configuration(path, f"is not valid TOML ({exc})") from exc


def trusted_hashes(data: Mapping[str, Any]) -> dict[str, str]:
    """``key -> trusted_hash`` for every trusted hook state in the document."""
    hooks = data.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(state, dict):
        return {}
    result: dict[str, str] = {}
    for key, entry in state.items():
        if isinstance(entry, dict) and isinstance(entry.get("trusted_hash"), str):
            result[key] = entry["trusted_hash"]
    return result


def _header(key: str) -> str:
    # A TOML basic string and a JSON string agree for the characters a path can hold.
    return f"[hooks.state.{json.dumps(key, ensure_ascii=False)}]"


def _block(key: str, digest: str) -> str:
    return f"{_header(key)}\ntrusted_hash = {json.dumps(digest, ensure_ascii=False)}\n"


def _block_pattern(key: str) -> re.Pattern[str]:
    """Our two-line table for ``key`` (any hash), anchored at a line start.

    Only a table that ends right there is ours to cut: what follows must be a blank line, the
    next header, or the end of the file.
    """
    header = re.escape(_header(key))
    value = r'[ \t]*trusted_hash[ \t]*=[ \t]*"[^"\n]*"[ \t]*'
    return re.compile(r"(?m)^" + header + r"\n" + value + r"(\n|\Z)(?=\n|\[|\Z)")


def _append(text: str, block: str) -> str:
    # Mirrors ``_cut``: a file without a final newline gets the block without one.
    if not text:
        return block
    if text.endswith("\n"):
        return text + "\n" + block
    return text + "\n\n" + block[:-1]


def _cut(text: str, start: int, end: int) -> str:
    before, after = text[:start], text[end:]
    block_had_newline = text[start:end].endswith("\n")
    if not after:
        if block_had_newline:
            return before[:-1] if before.endswith("\n\n") else before
        return before[:-2] if before.endswith("\n\n") else before
    # In the middle of the file: take the blank line that followed the table too.
    return before + (after[1:] if after.startswith("\n") else after)


def _with_tomlkit(text: str, path: Path, add: Mapping[str, str], drop: Iterable[str]) -> str:
    document = tomlkit.parse(text)
    hooks = document.get("hooks")
    if add:
        if hooks is None:
            hooks = tomlkit.table(is_super_table=True)
            document["hooks"] = hooks
        state = hooks.get("state")
        if state is None:
            # An inline ``hooks = {…}`` can only hold inline tables.
            inline = isinstance(hooks, InlineTable)
            state = tomlkit.inline_table() if inline else tomlkit.table(is_super_table=True)
            hooks["state"] = state
        for key, digest in add.items():
            if key in state:
                state[key]["trusted_hash"] = digest
            else:
                entry = (
                    tomlkit.inline_table() if isinstance(state, InlineTable) else tomlkit.table()
                )
                entry["trusted_hash"] = digest
                state[key] = entry
    if hooks is not None and "state" in hooks:
        state = hooks["state"]
        for key in drop:
            if key in state:
                entry = state[key]
                if hasattr(entry, "keys") and set(entry.keys()) - {"trusted_hash"}:
                    del entry["trusted_hash"]  # keep what Codex stored beside the trust
                else:
                    del state[key]
        if len(state) == 0:
            del hooks["state"]
        if len(hooks) == 0:
            del document["hooks"]
    result = tomlkit.dumps(document)
    parse(result, path)
    return result


def _meaning(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with an empty ``hooks.state`` / ``hooks`` left out (they mean nothing)."""
    result = copy.deepcopy(dict(data))
    hooks = result.get("hooks")
    if isinstance(hooks, dict):
        if hooks.get("state") == {}:
            del hooks["state"]
        if not hooks:
            del result["hooks"]
    return result


def _intended(
    data: Mapping[str, Any], add: Mapping[str, str], drop: Iterable[str]
) -> dict[str, Any]:
    """What the document should mean after the edit, computed on plain data."""
    result = copy.deepcopy(dict(data))
    if add:
        state = result.setdefault("hooks", {}).setdefault("state", {})
        for key, digest in add.items():
            state.setdefault(key, {})["trusted_hash"] = digest
    for key in drop:
        state = result["hooks"]["state"]
        state[key].pop("trusted_hash", None)
        if not state[key]:
            del state[key]
    return _meaning(result)


def _means(candidate: str, intended: dict[str, Any]) -> bool:
    try:
        return _meaning(tomllib.loads(candidate)) == intended
    except tomllib.TOMLDecodeError:
        return False


def set_trust(text: str, path: Path, hashes: Mapping[str, str]) -> str:
    """``text`` with ``trusted_hash`` set for each key in ``hashes``.

    Tables are appended (or our own two-line table updated in place); the result must mean
    exactly the old document plus the new hashes, otherwise tomlkit makes the edit.
    """
    data = parse(text, path)
    result = text
    for key, digest in hashes.items():
        match = _block_pattern(key).search(result)
        if match:
            block = _block(key, digest)
            if not match.group(0).endswith("\n"):
                block = block[:-1]
            result = result[: match.start()] + block + result[match.end() :]
        elif key in _state_keys(data):
            break  # present in a shape we did not write: let tomlkit edit it
        else:
            result = _append(result, _block(key, digest))
    else:
        if _means(result, _intended(data, hashes, ())):
            return result
    return _with_tomlkit(text, path, hashes, ())


def drop_trust(text: str, path: Path, keys: Iterable[str]) -> str:
    """``text`` without the trust state of ``keys`` (exactly undoing ``set_trust``'s append)."""
    data = parse(text, path)
    wanted = [key for key in keys if key in trusted_hashes(data)]
    if not wanted:
        return text
    result = text
    # Cut the table that appears last first, so each cut undoes the append that made it.
    pending = list(wanted)
    while pending:
        found = [(m, key) for key in pending if (m := _block_pattern(key).search(result))]
        if len(found) != len(pending):
            return _with_tomlkit(text, path, {}, wanted)
        match, key = max(found, key=lambda pair: pair[0].start())
        result = _cut(result, match.start(), match.end())
        pending.remove(key)
    if _means(result, _intended(data, {}, wanted)):
        return result
    return _with_tomlkit(text, path, {}, wanted)


def _state_keys(data: Mapping[str, Any]) -> set[str]:
    hooks = data.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return set(state) if isinstance(state, dict) else set()
