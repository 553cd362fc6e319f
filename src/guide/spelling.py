"""What an author probably meant: the known name an unknown one misses (C5, C6), and keys YAML misread.

A name is a near miss of a known one when the two are equal ignoring case, one
edit apart (insert, delete, replace, or swap two neighbours), or two edits apart
when both have at least six characters, so that short names like `id` do not
swallow every short word.
"""

from collections.abc import Iterable

LONG_NAME = 6


def edits(a: str, b: str, limit: int = 2) -> int:
    """The edits (insert, delete, replace, swap of neighbours) between two names, or `limit + 1` if more."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous: list[int] | None = None
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if previous is not None and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous, row = row, current
    return min(row[-1], limit + 1)


def is_near_miss(name: str, known: str) -> bool:
    """Whether `name` is a near miss of `known` (and not the same name)."""
    if name == known:
        return False
    if name.lower() == known.lower():
        return True
    allowed = 2 if min(len(name), len(known)) >= LONG_NAME else 1
    return edits(name, known, allowed) <= allowed


def near_miss(name: str, known: Iterable[str]) -> str | None:
    """The known name `name` most resembles, if it is a near miss of one (fewest edits, then alphabetical)."""
    candidates = [(_distance(name, other), other) for other in known if isinstance(other, str) and is_near_miss(name, other)]
    return min(candidates)[1] if candidates else None


def _distance(name: str, known: str) -> int:
    return 0 if name.lower() == known.lower() else edits(name, known)


def boolean_key_hint(key: object) -> str:
    """Advice for a key YAML read as a boolean (an unquoted `on`, `yes`, `off`...), else nothing."""
    if isinstance(key, bool):
        return "; YAML reads an unquoted on, off, yes, no, true or false as a boolean: quote the name, e.g. 'on'"
    return ""
