"""The benchmark suite's smoke run: every benchmark runs at tiny sizes and reports numbers.

It never asserts on targets: a slow machine must not fail the tests.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IDS = ("B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10")


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
        cwd=REPO, capture_output=True, text=True, timeout=120,
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
    assert (tmp_path / "table.md").read_text(encoding="utf-8").count("| B") >= len(IDS)
