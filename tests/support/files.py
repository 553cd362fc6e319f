"""Writing docroot files, and comparing parsed values strictly."""

import math
from pathlib import Path


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


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write each file (path relative to `root`: text) as UTF-8, making its folders; return `root`."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
