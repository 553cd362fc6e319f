"""How large a `pattern` grows when the backtracking engine compiles it, measured before it does.

The `regex` engine copies the body of a counted repeat once per count, so
`(?:(?:a{1000}){1000}){1000})` compiles to a billion copies (many gigabytes).
Parsing does not expand repeats, only compiling does: `expanded_size` parses the
pattern with Python's own parser and multiplies nested repeat counts by their
bodies' sizes without building anything.
"""

import re
from re import _constants as constants  # type: ignore[attr-defined]
from re import _parser as parser  # type: ignore[attr-defined]
from typing import Any

PATTERN_EXPANSION_LIMIT = 100_000
"""Units (characters, classes, anchors) a pattern may expand to once its counted repeats are copied out; past it the pattern is refused."""

_REPEATS = {constants.MAX_REPEAT, constants.MIN_REPEAT, getattr(constants, "POSSESSIVE_REPEAT", constants.MAX_REPEAT)}
_COUNT = re.compile(r"\{(\d*)(,?)(\d*)\}")


def expanded_size(pattern: str) -> int:
    """The units `pattern` expands to when its counted repeats are copied out (an upper bound when Python's parser cannot read it)."""
    try:
        return _size(parser.parse(pattern))
    except (re.error, RecursionError, OverflowError, ValueError):
        return _rough_size(pattern)


def _count(low: int, high: int) -> int:
    """The copies a repeat `{low,high}` makes: `high` when bounded, else `low` and one loop."""
    return max(1, high if high != constants.MAXREPEAT else low + 1)


def _size(items: Any) -> int:
    """The expanded units of a parsed sequence: each item's size, repeats multiplied out."""
    total = 0
    for op, argument in items:
        if op in _REPEATS:
            low, high, body = argument
            total += _count(low, high) * _size(body)
        elif op is constants.SUBPATTERN:
            total += _size(argument[-1])
        elif op is constants.BRANCH:
            total += sum(_size(branch) for branch in argument[1])
        elif op in (constants.ASSERT, constants.ASSERT_NOT):
            total += _size(argument[1])
        elif op is getattr(constants, "ATOMIC_GROUP", None):
            total += _size(argument)
        elif op is constants.GROUPREF_EXISTS:
            total += _size(argument[1]) + (_size(argument[2]) if argument[2] else 0)
        else:
            total += 1
    return total


def _rough_size(pattern: str) -> int:
    """An upper bound for a pattern only `regex` reads (`\\p{L}`, fuzzy matching): its length times every counted repeat, nested or not."""
    total = max(1, len(pattern))
    for low, comma, high in _COUNT.findall(pattern):
        total *= max(1, int(high[:10]) if high else int(low[:10] or 0) + (1 if comma else 0))
        if total > PATTERN_EXPANSION_LIMIT:
            break
    return total
