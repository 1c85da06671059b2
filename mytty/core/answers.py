"""An agent's final answer, fitted for an event: shared by the hook and by transcript readers.

The hook takes it from a Stop payload's ``last_assistant_message``; native estimation takes it
from the transcript's last assistant text. Both clip it the same way, so a job's
``lastAssistantMessage`` reads alike whichever path reported the turn.
"""

# json.dumps(text, ensure_ascii=False) of a str is exactly this C function; importing it alone
# keeps `json` (and the `re` it compiles) off the hook helper, which loads this module per event.
try:
    from _json import encode_basestring as _quote
except ImportError:  # pragma: no cover — CPython always has _json
    from json.encoder import py_encode_basestring as _quote

#: The final answer's budget as encoded JSON (escapes included): half of the 64 KiB envelope,
#: so the envelope always fits whatever the other fields hold.
MAX_ANSWER_JSON_BYTES = 32 * 1024
#: Put where the middle of a long answer was cut; ``{}`` is the number of characters left out.
ANSWER_CUT_MARKER = "\n\n[… mytty cut {} characters from the middle of this answer …]\n\n"


def clamp_utf8(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` UTF-8 bytes without splitting a character.

    Lone surrogates (possible after a ``\\udXXX`` JSON escape) cannot be encoded; they become
    ``?`` so the event always serialises.
    """
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "replace")
        text = raw.decode("utf-8")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore")


def _json_size(text: str) -> int:
    return len(_quote(text).encode("utf-8"))


def clip_answer(value: object, limit: int = MAX_ANSWER_JSON_BYTES) -> str | None:
    """The agent's final answer, fitted into ``limit`` bytes of encoded JSON; None when empty.

    A long answer keeps its beginning and its end (where a worker's summary and conclusions
    are) and says how many characters were cut from the middle. Lone surrogates become ``?``.
    """
    if not isinstance(value, str) or not value:
        return None
    text = clamp_utf8(value, len(value) * 4)  # only repairs lone surrogates
    if _json_size(text) <= limit:
        return text
    keep = limit // 2
    while keep > 0:
        head, tail = text[: keep // 2], text[len(text) - keep // 2 :]
        clipped = head + ANSWER_CUT_MARKER.format(len(text) - len(head) - len(tail)) + tail
        if _json_size(clipped) <= limit:
            return clipped
        keep = keep * 3 // 4
    return None
