"""The shared engine for JSON hook files (Codex ``hooks.json``, Claude ``settings.json``, Cursor).

Rules (providers.md §1.6, with one deliberate change):

* A missing file is an empty object. Bad JSON, a root that is not an object, ``hooks`` that is
  not an object, or an event value that is not an array of objects is reported as
  ``invalid-configuration`` and the file is never rewritten.
* Install walks *every* event, drops the handlers mytty owns (a handler is ours when it invokes
  our helper, see ``helper.invokes_helper``), drops a group or event only when that removal
  emptied it, and appends one fresh mytty entry at the end of each expected event.
* The change: instead of re-serialising with sorted keys, edits are spliced into the text
  (``jsontext``), so foreign keys, their order, the indentation and the escapes stay byte for
  byte, and disable after enable gives back the user's original file. If a splice ever fails to
  produce the intended structure, the file is re-serialised in its detected indentation.
* "Installed" means running the install in memory changes nothing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mytty.core.vocab import INSTALLED, NEEDS_REPAIR, NOT_INSTALLED
from mytty.integrations import jsontext
from mytty.integrations.common import (
    PRIVATE_MODE,
    FileChange,
    Status,
    invalid_configuration,
    planned_emptying,
    read_text,
)

Handler = dict[str, Any]
TextPath = tuple[jsontext.PathPart, ...]


@dataclass(frozen=True, slots=True)
class HookFileSpec:
    """What one provider's JSON hook file must contain.

    ``grouped``: events hold matcher groups ``{"matcher"?, "hooks": [handler]}`` (Codex,
    Claude); otherwise events hold handlers directly (Cursor). ``new_file`` is the root a fresh
    file starts from; a file left equal to one of ``empty_roots`` by disable is deleted.
    """

    events: tuple[str, ...]
    grouped: bool
    entry: Callable[[str], dict[str, Any]]
    owns: Callable[[Mapping[str, Any]], bool]
    new_file: dict[str, Any] = field(default_factory=dict)
    empty_roots: tuple[dict[str, Any], ...] = ({},)


@dataclass(frozen=True, slots=True)
class Position:
    """Where an owned handler sits: ``hooks[event][group][handler]`` (``group`` None if flat)."""

    event: str
    group: int | None
    handler: int


@dataclass(frozen=True, slots=True)
class LoadedFile:
    path: Path
    text: str | None
    data: dict[str, Any]


#: Only JSON's own blanks make a file empty: ``str.strip()`` would also drop control characters
#: such as ``\x1c``, and a file holding one would be taken for an empty one and overwritten.
JSON_WHITESPACE = " \t\n\r"


def load(path: Path, spec: HookFileSpec) -> LoadedFile:
    """Read and validate a hook file; raises ``invalid-configuration`` for anything malformed."""
    text = read_text(path)
    if text is None:
        return LoadedFile(path, None, {})
    if not text.strip(JSON_WHITESPACE):
        return LoadedFile(path, text, {})  # an empty file means "nothing configured yet"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise invalid_configuration(path, f"is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise invalid_configuration(path, "the top level is not a JSON object")
    hooks = data.get("hooks")
    if "hooks" in data and not isinstance(hooks, dict):
        raise invalid_configuration(path, '"hooks" is not an object')
    for event, entries in (hooks or {}).items():
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise invalid_configuration(path, f'hooks "{event}" is not an array of objects')
    return LoadedFile(path, text, data)


def _handler_lists(
    data: Mapping[str, Any], spec: HookFileSpec
) -> Iterator[tuple[str, int | None, list[Any]]]:
    """Yield ``(event, group index or None, handlers)`` for every handler list in the file."""
    for event, entries in (data.get("hooks") or {}).items():
        if not spec.grouped:
            yield event, None, entries
            continue
        for group_index, group in enumerate(entries):
            handlers = group.get("hooks")
            # A group without a valid handler array is not ours to judge: leave it alone.
            if isinstance(handlers, list) and all(isinstance(h, dict) for h in handlers):
                yield event, group_index, handlers


def owned_positions(data: Mapping[str, Any], spec: HookFileSpec) -> list[Position]:
    """Every handler mytty owns, in document order."""
    return [
        Position(event, group, index)
        for event, group, handlers in _handler_lists(data, spec)
        for index, handler in enumerate(handlers)
        if spec.owns(handler)
    ]


# -- the structural model (what the file should mean) --------------------------------------


def _strip_entries(entries: list[Any], spec: HookFileSpec) -> tuple[list[Any], bool]:
    """``entries`` without owned handlers; the flag says whether anything was removed."""
    kept: list[Any] = []
    removed = False
    for entry in entries:
        if not spec.grouped:
            if spec.owns(entry):
                removed = True
            else:
                kept.append(entry)
            continue
        handlers = entry.get("hooks")
        if not (isinstance(handlers, list) and all(isinstance(h, dict) for h in handlers)):
            kept.append(entry)
            continue
        remaining = [h for h in handlers if not spec.owns(h)]
        if len(remaining) == len(handlers):
            kept.append(entry)
            continue
        removed = True
        if remaining:
            kept.append({**entry, "hooks": remaining})
    return kept, removed


def desired(data: Mapping[str, Any], spec: HookFileSpec, *, install: bool) -> dict[str, Any]:
    """The file's meaning after install (``install=True``) or removal of mytty's handlers."""
    result = copy.deepcopy(dict(data))
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        if not install:
            return result
        hooks = {}
    new_hooks: dict[str, Any] = {}
    for event, entries in hooks.items():
        kept, removed = _strip_entries(entries, spec)
        if install and event in spec.events:
            new_hooks[event] = [*kept, spec.entry(event)]
        elif kept or not removed:
            new_hooks[event] = kept
    if install:
        for event in spec.events:
            new_hooks.setdefault(event, [spec.entry(event)])
    if new_hooks or ("hooks" in data and not hooks):
        result["hooks"] = new_hooks
    else:
        result.pop("hooks", None)
    return result


def is_installed(data: Mapping[str, Any], spec: HookFileSpec) -> bool:
    """Whether an install would leave the file's meaning unchanged."""
    return desired(data, spec, install=True) == data


# -- the text edits -------------------------------------------------------------------------


def _removal_paths(
    data: Mapping[str, Any], spec: HookFileSpec, appended: set[str]
) -> list[TextPath]:
    """Text paths to cut, last first, so each cut leaves the earlier paths valid.

    A group (or event, or the ``hooks`` key) is cut whole only when our removal emptied it; an
    event that just received an appended entry is never emptied.
    """
    hooks = data.get("hooks") or {}
    owned: dict[str, dict[int | None, list[int]]] = {}
    for pos in owned_positions(data, spec):
        owned.setdefault(pos.event, {}).setdefault(pos.group, []).append(pos.handler)
    cuts: list[TextPath] = []
    removed_events: list[str] = []
    for event in reversed(list(hooks)):
        if event not in owned:
            continue
        entries = hooks[event]
        event_cuts: list[TextPath] = []
        emptied = 0
        if spec.grouped:
            groups = {g: hs for g, hs in owned[event].items() if g is not None}
            for group_index in sorted(groups, reverse=True):
                handler_indexes = groups[group_index]
                if len(handler_indexes) == len(entries[group_index]["hooks"]):
                    event_cuts.append(("hooks", event, group_index))
                    emptied += 1
                else:
                    event_cuts.extend(
                        ("hooks", event, group_index, "hooks", i)
                        for i in sorted(handler_indexes, reverse=True)
                    )
        else:
            indexes = owned[event][None]
            event_cuts.extend(("hooks", event, i) for i in sorted(indexes, reverse=True))
            emptied = len(indexes)
        if emptied == len(entries) and event not in appended:
            removed_events.append(event)
            cuts.append(("hooks", event))
        else:
            cuts.extend(event_cuts)
    if hooks and len(removed_events) == len(hooks) and not appended:
        return [("hooks",)]
    return cuts


def _edit_text(loaded: LoadedFile, spec: HookFileSpec, *, install: bool) -> str:
    text = loaded.text or ""
    data = loaded.data
    appended: set[str] = set()
    if install:
        hooks = data.get("hooks")
        if "hooks" not in data:
            text = jsontext.add_member(
                text, (), "hooks", {event: [spec.entry(event)] for event in spec.events}
            )
            appended = set(spec.events)
        else:
            assert isinstance(hooks, dict)
            for event in spec.events:
                if event in hooks:
                    text = jsontext.append_element(text, ("hooks", event), spec.entry(event))
                else:
                    text = jsontext.add_member(text, ("hooks",), event, [spec.entry(event)])
                appended.add(event)
    for path in _removal_paths(data, spec, appended):
        text = jsontext.remove(text, path)
    return text


def _serialise(loaded: LoadedFile, spec: HookFileSpec, *, install: bool) -> str:
    """The new file text: spliced when possible, re-dumped in the file's own indent otherwise."""
    target = desired(loaded.data, spec, install=install)
    if loaded.text is None or (
        not loaded.data and loaded.text.strip(JSON_WHITESPACE) in ("", "{}")
    ):
        base = {**spec.new_file, **target} if install else target
        return json.dumps(base, ensure_ascii=False, indent=2) + "\n"
    try:
        text = _edit_text(loaded, spec, install=install)
        if json.loads(text) == target:
            return text
    except (ValueError, KeyError):
        pass
    indent = jsontext.detect_indent(loaded.text)
    trailer = "\n" if loaded.text.endswith("\n") else ""
    return json.dumps(target, ensure_ascii=False, indent=indent) + trailer


def plan_install(loaded: LoadedFile, spec: HookFileSpec) -> list[FileChange]:
    """The write that installs mytty's handlers, or nothing when they are already in place."""
    if loaded.text is not None and is_installed(loaded.data, spec):
        return []
    new = _serialise(loaded, spec, install=True)
    if new == loaded.text:
        return []
    return [FileChange(loaded.path, new.encode("utf-8"), PRIVATE_MODE)]


def plan_remove(loaded: LoadedFile, spec: HookFileSpec) -> list[FileChange]:
    """The write (or deletion) that removes exactly mytty's handlers."""
    if loaded.text is None or not owned_positions(loaded.data, spec):
        return []
    target = desired(loaded.data, spec, install=False)
    if target in spec.empty_roots:
        return planned_emptying(loaded.path, b"{}\n")
    new = _serialise(loaded, spec, install=False)
    return [FileChange(loaded.path, new.encode("utf-8"), PRIVATE_MODE)]


def file_status(loaded: LoadedFile, spec: HookFileSpec) -> Status:
    """``installed`` / ``needs-repair`` / ``not-installed`` for this file alone."""
    if loaded.text is None or not owned_positions(loaded.data, spec):
        return NOT_INSTALLED
    return INSTALLED if is_installed(loaded.data, spec) else NEEDS_REPAIR


def hooks_state(
    path: Path, spec: HookFileSpec, helper_problem: str | None, provider: str
) -> tuple[LoadedFile, Status, str | None]:
    """The status one hook file gives a provider, with the reason when it needs repair.

    ``helper_problem`` (why the helper can't run, or None) only matters once something is
    installed. Providers with more files (pointers, trust) check those after an ``installed``.
    """
    loaded = load(path, spec)
    status = file_status(loaded, spec)
    if status == NOT_INSTALLED:
        return loaded, status, None
    if helper_problem:
        return loaded, NEEDS_REPAIR, helper_problem
    if status == NEEDS_REPAIR:
        return (
            loaded,
            status,
            (
                f"mytty's handlers in {path} are incomplete or were edited; "
                f"run `mytty integrations repair {provider}`"
            ),
        )
    return loaded, status, None


def hooks_state_or_legacy(
    path: Path,
    spec: HookFileSpec,
    legacies: Sequence[tuple[HookFileSpec, str]],
    helper_problem: str | None,
    provider: str,
) -> tuple[LoadedFile, Status, str | None, str | None]:
    """:func:`hooks_state`, except that a file complete as one of ``legacies`` (installs from
    before a handler was added, e.g. the kill-server guard) counts as installed: it is still
    usable. Each legacy shape comes with what ``repair`` would add to it, which the last value
    gives for the shape found (None: the file is current, or not installed as any shape)."""
    loaded, status, why = hooks_state(path, spec, helper_problem, provider)
    if status == NEEDS_REPAIR and helper_problem is None:
        for legacy, upgrade in legacies:
            if hooks_state(path, legacy, None, provider)[1] == INSTALLED:
                return loaded, INSTALLED, None, upgrade
    return loaded, status, why, None
