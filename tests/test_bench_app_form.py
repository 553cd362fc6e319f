"""`python -m bench.probes.app_form --smoke` runs and reports finite, positive figures (never judged on speed)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_app_form_bench_reports_its_figures(tmp_path):
    completed = subprocess.run([sys.executable, "-m", "bench.probes.app_form", "--smoke", "--out", str(tmp_path)],
                               cwd=REPO, capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = json.loads((tmp_path / "app_form.json").read_text(encoding="utf-8"))
    for era in ("legacy", "2026-07-28"):
        figures = result["round_trip"][era]
        assert all(math.isfinite(value) and value > 0 for value in (figures["app"]["median"], figures["native"]["median"], figures["ratio_app_to_native"]["median"]))
    assert 1_000 < result["sizes"]["guide_page_bytes"] < 100_000
    loads = result["first_load_ms"]
    assert "skipped" in loads or loads["guide"]["median"] > 0
