"""Helpers shared by the docroot tests.

Import them with `from docroot.conftest import ...` (pytest puts `tests/` on the path for this package).
"""

import math


def same(a, b) -> bool:
    """Equal values of equal types all the way down (True is not 1, a date is not a string, order counts)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(k, j) for k, j in zip(a, b)) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b
