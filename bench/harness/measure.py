"""Interleaved timing and robust statistics.

Each comparative benchmark runs its cases in rounds: one round times `inner`
calls of every case back to back, and the order of the cases flips every round
(A B, B A, A B, ...), so slow phases of a shared, noisy machine hit both sides.
A round yields one mean time per call for each case; the ratio of a round is
Guide's mean over the baseline's mean in that same round. Reported figures are
medians over rounds, with the spread as the inter-quartile range and min-max.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) with linear interpolation."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(values: Sequence[float]) -> dict:
    """Median, quartiles, min, max and count of a sample."""
    values = list(values)
    return {
        "median": statistics.median(values) if values else math.nan,
        "p25": quantile(values, 0.25),
        "p75": quantile(values, 0.75),
        "min": min(values) if values else math.nan,
        "max": max(values) if values else math.nan,
        "n": len(values),
    }


def ratio_summary(guide: Sequence[float], baseline: Sequence[float]) -> dict:
    """Per-round ratios guide/baseline, summarised."""
    return summary([g / b for g, b in zip(guide, baseline)])


def _order(names: list[str], round_index: int) -> list[str]:
    return names if round_index % 2 == 0 else list(reversed(names))


async def interleave_async(
    cases: Mapping[str, Callable[[], Awaitable[object]]], *, rounds: int, inner: int, warmup: int = 3
) -> dict[str, list[float]]:
    """Mean seconds per call of each async case, one value per round, the cases alternating."""
    names = list(cases)
    for name in names:
        for _ in range(warmup):
            await cases[name]()
    results: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        gc.collect()
        for name in _order(names, r):
            call = cases[name]
            start = time.perf_counter()
            for _ in range(inner):
                await call()
            results[name].append((time.perf_counter() - start) / inner)
    return results


def interleave_sync(cases: Mapping[str, Callable[[], object]], *, rounds: int, inner: int, warmup: int = 50) -> dict[str, list[float]]:
    """Mean seconds per call of each synchronous case, one value per round, the cases alternating."""
    names = list(cases)
    for name in names:
        for _ in range(warmup):
            cases[name]()
    results: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in _order(names, r):
            call = cases[name]
            start = time.perf_counter()
            for _ in range(inner):
                call()
            results[name].append((time.perf_counter() - start) / inner)
    return results


def repeat_sync(call: Callable[[], object], *, rounds: int, inner: int, warmup: int = 50) -> list[float]:
    """Mean seconds per call of a synchronous function, one value per round."""
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(inner):
            call()
        samples.append((time.perf_counter() - start) / inner)
    return samples


def compare(guide: Sequence[float], baseline: Sequence[float], *, scale: float = 1e3, unit: str = "ms") -> dict:
    """The record of one Guide/baseline comparison: both summaries (in `unit`) and the ratio."""
    return {
        "unit": unit,
        "guide": {k: (v * scale if k != "n" else v) for k, v in summary(guide).items()},
        "baseline": {k: (v * scale if k != "n" else v) for k, v in summary(baseline).items()},
        "ratio": ratio_summary(guide, baseline),
    }
