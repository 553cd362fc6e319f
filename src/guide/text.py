"""How a value reads as text, wherever Guide shows one: messages, help, completions and rendered templates."""

from typing import Any

CLIP_LENGTH = 40
"""The most characters of a value a message quotes: a long answer is never echoed whole."""


_ONE_LINE = {code: repr(chr(code))[1:-1] for code in (*range(0x20), 0x7F, 0x85, 0x2028, 0x2029)}
"""Characters that would break a message's line (or hide in it), written as escapes."""


def one_line(text: str) -> str:
    """Text with its control characters written as escapes, so that it cannot break a message's line."""
    return text.translate(_ONE_LINE)


_TERMINAL = {code: repr(chr(code))[1:-1] for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
             if code not in (0x09, 0x0A)}
"""Characters a terminal acts on rather than shows (escape sequences, bells, carriage returns, C1 controls) or that reorder or
hide text (bidirectional overrides), written as escapes. Newlines and tabs stay: a message's lines are meant."""


def for_terminal(text: str) -> str:
    """Text as written to a terminal: every control character shown as an escape (`\\x1b`), so none is acted on; newlines and tabs kept."""
    return text.translate(_TERMINAL)


LOG_LENGTH = 200
"""The most characters of a client's value a log line writes."""
_LOG = {**_TERMINAL, 0x09: "\\t", 0x0A: "\\n"}
"""What a log line escapes: what a terminal acts on, bidirectional overrides, and newlines and tabs too (a log record is one line)."""


def for_log(text: str, length: int | None = LOG_LENGTH) -> str:
    """Text as a log line writes it: on one line, every control character and bidirectional override escaped, its first `length` characters."""
    if length is not None and len(text) > length:
        text = text[:length] + "..."
    return text.translate(_LOG)


def clip(text: str, length: int = CLIP_LENGTH) -> str:
    """Text as a message quotes it: its first `length` characters ("..." marks a cut) on one line."""
    return one_line(text if len(text) <= length else text[:length] + "...")


LISTED = 3
"""The most names a message lists before it counts the rest."""


def listed(names: list[str], shown: int = LISTED) -> str:
    """Names as a message lists them: the first `shown`, each clipped to one short line, then how many more ("and 39,996 more")."""
    text = ", ".join(clip(name) for name in names[:shown])
    return text if len(names) <= shown else f"{text} and {len(names) - shown:,} more"


def quoted(value: Any) -> str:
    """A value as a message quotes it: like `repr`, but only a short prefix of a long one."""
    if isinstance(value, str):
        return repr(clip(value))
    try:
        return clip(repr(value))
    except ValueError:  # an integer longer than Python writes out as text
        return "a number too long to show"


def show(value: Any) -> str:
    """A value as a person writes it: JSON's words for booleans, nothing for null, `3` for 3.0, lists comma-separated."""
    return _text(value, shorten=True)


def template_text(value: Any) -> str:
    """A value as a template renders it: like `show`, but a number keeps the type it has (`3.0` stays `3.0`, C6)."""
    return _text(value, shorten=False)


def _text(value: Any, shorten: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if shorten and isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return ", ".join(_text(item, shorten) for item in value)
    return str(value)

