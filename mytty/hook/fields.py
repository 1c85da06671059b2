"""Reading and sanitising the few payload fields that reach an event (providers.md §1.4).

Hook payloads come from other programs; anything that lands in an event is checked here so the
controller can store it as-is. This module sits on the hook's hot path, so it imports nothing
but :mod:`mytty.core.answers` (no ``re``: compiling a pattern costs the helper more start-up
than all the payload work it would do).
"""

from mytty.core.answers import clamp_utf8

#: Session ids (and other identifiers) longer than this are dropped, not cut.
MAX_IDENTIFIER_BYTES = 256
#: Cursor ``tool_use_id`` is cleaned and cut to this many bytes.
MAX_TOOL_USE_ID_BYTES = 256
#: Tool names are display-only: cleaned and cut to this many bytes.
MAX_TOOL_NAME_BYTES = 128
#: The server does not bound messages, so the helper does; long enough for any prompt title.
MAX_MESSAGE_BYTES = 4096

# Unicode general category Cc (C0, DEL and C1), as a str.translate table that deletes them.
_CONTROL = dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)])


def text_field(obj: dict[str, object], key: str) -> str | None:
    """``obj[key]`` when it is a non-empty string, else None (wrong types count as absent)."""
    value = obj.get(key)
    return value if isinstance(value, str) and value else None


def object_field(obj: dict[str, object], key: str) -> dict[str, object] | None:
    """``obj[key]`` when it is a JSON object, else None."""
    value = obj.get(key)
    return value if isinstance(value, dict) else None


def sanitize_session_id(value: object) -> str | None:
    """A session id, or None when it is not one we can trust verbatim.

    Rejected whole (never repaired): non-strings, empty, over 256 UTF-8 bytes, leading or trailing
    whitespace, any control character, or text that is not valid Unicode.
    """
    if not isinstance(value, str) or not value or value != value.strip():
        return None
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        return None
    if size > MAX_IDENTIFIER_BYTES or value.translate(_CONTROL) != value:
        return None
    return value


def _strip_and_clamp(value: object, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    cleaned = clamp_utf8(value.translate(_CONTROL), limit)
    return cleaned or None


def sanitize_tool_name(value: object) -> str | None:
    """A display tool name: control characters removed, cut to 128 bytes; None when empty."""
    return _strip_and_clamp(value, MAX_TOOL_NAME_BYTES)


def sanitize_tool_use_id(value: object) -> str | None:
    """A tool-use id: control characters removed (real Cursor ids embed ``\\n``), cut to 256 bytes."""
    return _strip_and_clamp(value, MAX_TOOL_USE_ID_BYTES)


def sanitize_message(value: object) -> str | None:
    """A human-readable message, cut to 4 KiB; None when absent or empty."""
    if not isinstance(value, str) or not value:
        return None
    return clamp_utf8(value, MAX_MESSAGE_BYTES)


def first_message(obj: dict[str, object], keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` holding a non-empty string, as a sanitised message."""
    for key in keys:
        message = sanitize_message(obj.get(key))
        if message is not None:
            return message
    return None


def approval_message(tool_name: str | None) -> str | None:
    """The fallback text of an approval request that carries no message of its own."""
    return f"{tool_name} requires approval" if tool_name else None
