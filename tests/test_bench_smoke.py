"""The benchmark suite's smoke run: every benchmark runs at tiny sizes and reports numbers.

It never asserts on targets or durations: a slow or busy machine must not fail it.
Every figure comes from a fixed number of operations (B7's timed windows also last
until each client has made a few reads), so none can be zero however
slowly they run, and the time limit only guards against a hang.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

REPO = Path(__file__).resolve().parent.parent
IDS = ("B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B12", "B13")
HANG_GUARD_S = 900  # about a minute on an idle machine; only a hang gets near this


def _numbers(result: dict) -> list[float]:
    """The headline figures of one benchmark result."""
    bench_id = result["id"]
    if bench_id in ("B1", "B2"):
        return [value for era in result["eras"].values() for value in (era["guide"]["median"], era["baseline"]["median"], era["ratio"]["median"])]
    if bench_id == "B4":
        top = result["sizes"][-1]
        return [top["start_s"]["median"], top["rss_first_mb"]["median"], top["check_s"]["median"], result["baseline_import_fastmcp_s"]["median"]]
    if bench_id == "B7":
        return [result["guide"]["median"], result["baseline"]["median"], result["ratio"]["median"]]
    return [result["figure"]]


def test_smoke_run_reports_every_benchmark(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--out", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=HANG_GUARD_S,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    results = document["benchmarks"]
    assert set(results) == set(IDS)
    for bench_id in IDS:
        result = results[bench_id]
        assert "error" not in result, result
        figures = _numbers(result)
        assert figures and all(isinstance(x, (int, float)) and math.isfinite(x) and x > 0 for x in figures), (bench_id, figures)
    b7 = results["B7"]
    assert b7["min_requests_per_client"] >= 1
    for run in b7["runs"]["guide"] + b7["runs"]["baseline"]:
        assert run["requests"] >= b7["clients"] * b7["min_requests_per_client"], run
    assert (tmp_path / "table.md").read_text(encoding="utf-8").count("| B") >= len(IDS)
