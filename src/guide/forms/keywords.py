"""Constraint keywords of a field schema (C5, C6): how each is declared, checked and described.

Each keyword is named after the JSON Schema keyword it enforces. A field type
lists the keywords it takes (see `guide.forms.types`); adding a constraint, or a
string `format`, is one entry in this module.
"""

import datetime
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import re2

from guide.forms.pattern_size import PATTERN_EXPANSION_LIMIT, expanded_size
from guide.text import clip, quoted, show

_REGEX_OPTIONS = re2.Options()
_REGEX_OPTIONS.log_errors = False
PATTERN_BUDGET = 0.1
"""Seconds one match may take for a pattern only the backtracking engine can run; past it the value is refused."""
REQUEST_PATTERN_BUDGET = 0.5
"""Seconds all such matches of one request may take together (a form of 100 hostile fields would take 100 budgets)."""
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)*")


class DeclarationError(ValueError):
    """A keyword's declared value is unusable; the message says what it takes."""


@dataclass(frozen=True)
class Keyword:
    """One constraint keyword: read its declared value, check a value against it, describe it.

    `read` turns the declared value into the bound used by `check` (a compiled
    pattern, say) or raises `DeclarationError`; `check` returns a problem or None.
    """

    name: str
    read: Callable[[Any], Any]
    check: Callable[[Any, Any], str | None]
    describe: Callable[[Any], str]


def _number(key: str) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) == float("inf"):
            raise DeclarationError(f"`{key}` must be a number")
        return value

    return read


def _count(key: str) -> Callable[[Any], Any]:
    def read(value: Any) -> int:
        whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        if isinstance(value, bool) or not whole or value < 0:
            raise DeclarationError(f"`{key}` must be a whole number of at least 0")
        return int(value)

    return read


class PatternTimeout(Exception):
    """Matching a value against a backtracking pattern took longer than `PATTERN_BUDGET`, or than what the request had left."""

    def __init__(self, spent: bool = False):
        super().__init__()
        self.spent = spent
        """The request's whole budget was used up (not only this value's)."""


class _Budget:
    """The seconds of backtracking matches one request has left, measured with the caller's clock (the core reads none)."""

    def __init__(self, seconds: float, clock: Callable[[], float]):
        self.left = seconds
        self.clock = clock


_BUDGET: ContextVar[_Budget | None] = ContextVar("guide_pattern_budget", default=None)


@contextmanager
def request_budget(clock: Callable[[], float], seconds: float = REQUEST_PATTERN_BUDGET) -> Iterator[None]:
    """Within it, backtracking matches share `seconds` in all, as `clock` (a monotonic clock) measures; past them, each value is refused at once.

    The server opens one per request around the forms' steps (they may run in
    a worker thread: the budget travels in a context variable, not a global).
    """
    token = _BUDGET.set(_Budget(seconds, clock))
    try:
        yield
    finally:
        _BUDGET.reset(token)


class _BudgetedPattern:
    """A pattern RE2 cannot run (lookarounds, backreferences), matched by `regex` within a time budget."""

    def __init__(self, compiled: Any):
        self.compiled = compiled
        self.pattern = compiled.pattern

    def fullmatch(self, text: str) -> Any:
        budget = _BUDGET.get()
        allowed = PATTERN_BUDGET if budget is None else min(PATTERN_BUDGET, budget.left)
        if allowed <= 0:
            raise PatternTimeout(spent=True)
        began = budget.clock() if budget is not None else 0.0
        try:
            # concurrent: the match lets go of the interpreter lock, so a worker thread matching never stalls the event loop
            return self.compiled.fullmatch(text, timeout=allowed, concurrent=True)
        except TimeoutError:
            raise PatternTimeout(spent=budget is not None and allowed < PATTERN_BUDGET) from None
        finally:
            if budget is not None:
                budget.left -= budget.clock() - began


def needs_budget(matcher: Any) -> bool:
    """Whether checking a value against `matcher` may take up to a time budget (a backtracking pattern), not linear time."""
    return isinstance(matcher, _BudgetedPattern)


def compile_pattern(pattern: str) -> Any:
    """Compile a `pattern`: with RE2 (linear time) if it can, else with `regex` under a time budget per match.

    Raises `DeclarationError` when neither engine accepts it, or when its
    counted repeats would expand past `PATTERN_EXPANSION_LIMIT` in `regex`.
    """
    try:
        return re2.compile(pattern, _REGEX_OPTIONS)
    except re2.error:
        pass
    if expanded_size(pattern) > PATTERN_EXPANSION_LIMIT:
        raise DeclarationError(
            f"`pattern` {clip(pattern)!r} repeats too much: its nested counted repeats ({{m,n}}) would expand to more than "
            f"{PATTERN_EXPANSION_LIMIT:,} characters; use smaller counts, fewer nested repeats, or `maxLength`"
        )
    import regex  # only patterns RE2 refuses need it: most docroots never load it

    try:
        return _BudgetedPattern(regex.compile(pattern))
    except regex.error as error:
        raise DeclarationError(f"`pattern` {pattern!r} is not a valid regular expression ({error})") from None


def _read_pattern(pattern: Any) -> Any:
    if not isinstance(pattern, str) or not pattern:
        raise DeclarationError("`pattern` must be a non-empty regular expression")
    return compile_pattern(pattern)


def _check_pattern(matcher: Any, value: str) -> str | None:
    try:
        matched = matcher.fullmatch(value)
    except PatternTimeout as timeout:
        if timeout.spent:
            return f"{quoted(value)} is refused: checking this read's values against their patterns took too long in all; give fewer or simpler values"
        return f"checking {quoted(value)} against the pattern took too long, so it is refused; give a shorter or simpler value"
    return None if matched is not None else f"{quoted(value)} does not match the pattern"


def _is_uri(text: str) -> bool:
    parts = urlsplit(text)
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", parts.scheme)) and bool(parts.netloc or parts.path) and " " not in text


def _is_date(text: str) -> bool:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", text):
        return False
    try:
        datetime.datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Format:
    """A string `format`: its check, how a person types it, and whether a local time may stand for it."""

    name: str
    check: Callable[[str], bool]
    hint: str
    """What a terminal prompt says the format takes."""
    local_time: bool = False
    """Whether a terminal may accept a time without an offset and add the local one."""


FORMATS: Mapping[str, Format] = {
    entry.name: entry
    for entry in (
        Format("email", lambda text: _EMAIL.fullmatch(text) is not None, "name@example.com"),
        Format("uri", _is_uri, "a full address such as https://example.com/x"),
        Format("date", _is_date, "YYYY-MM-DD"),
        Format("date-time", _is_date_time, "YYYY-MM-DD HH:MM[:SS], local time or with an offset such as Z or +02:00", local_time=True),
    )
}
"""Each string `format` Guide checks."""


def _read_format(name: Any) -> Format:
    if name not in FORMATS:
        raise DeclarationError(f"has unknown format {name!r}; accepted: {', '.join(FORMATS)}")
    return FORMATS[name]


KEYWORDS: Mapping[str, Keyword] = {
    keyword.name: keyword
    for keyword in (
        Keyword(
            "minimum",
            _number("minimum"),
            lambda bound, value: f"{clip(show(value))} is less than the minimum {show(bound)}" if value < bound else None,
            lambda bound: f"at least {show(bound)}",
        ),
        Keyword(
            "maximum",
            _number("maximum"),
            lambda bound, value: f"{clip(show(value))} is greater than the maximum {show(bound)}" if value > bound else None,
            lambda bound: f"at most {show(bound)}",
        ),
        Keyword(
            "minLength",
            _count("minLength"),
            lambda bound, value: f"{quoted(value)} is shorter than {bound} characters" if len(value) < bound else None,
            lambda bound: f"of at least {_characters(bound)}",
        ),
        Keyword(
            "maxLength",
            _count("maxLength"),
            lambda bound, value: f"{quoted(value)} is longer than {bound} characters" if len(value) > bound else None,
            lambda bound: f"of at most {_characters(bound)}",
        ),
        Keyword(
            "pattern",
            _read_pattern,
            _check_pattern,
            lambda matcher: f"matching {matcher.pattern}",
        ),
        Keyword(
            "format",
            _read_format,
            lambda entry, value: None if entry.check(value) else f"{quoted(value)} is not a valid {entry.name}",
            lambda entry: f"in {entry.name} format",
        ),
        Keyword(
            "minItems",
            _count("minItems"),
            lambda bound, value: f"selects {len(value)}; at least {bound} required" if len(value) < bound else None,
            lambda bound: f"at least {bound} of them",
        ),
        Keyword(
            "maxItems",
            _count("maxItems"),
            lambda bound, value: f"selects {len(value)}; at most {bound} allowed" if len(value) > bound else None,
            lambda bound: f"at most {bound} of them",
        ),
    )
}

PAIRS = (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"))
"""Lower and upper bounds that must not cross."""

_RANGES: Mapping[str, Callable[[Any, Any], str]] = {
    "minimum": lambda low, high: f"from {show(low)} to {show(high)}",
    "minLength": lambda low, high: f"of {low} to {_characters(high)}",
    "minItems": lambda low, high: f"{low} to {high} of them",
}


def _characters(count: int) -> str:
    return "1 character" if count == 1 else f"{count} characters"


def describe_bounds(bounds: Mapping[str, Any]) -> str:
    """Say a field's bounds in a few words, a lower and upper pair as one range."""
    words = []
    for key, bound in bounds.items():
        upper = dict(PAIRS).get(key)
        if upper in bounds:
            words.append(_RANGES[key](bound, bounds[upper]))
        elif key not in dict(PAIRS).values() or _lower_of(key) not in bounds:
            words.append(KEYWORDS[key].describe(bound))
    return " ".join(words)


def _lower_of(key: str) -> str:
    return next(low for low, high in PAIRS if high == key)
