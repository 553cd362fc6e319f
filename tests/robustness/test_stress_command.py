"""The stress command runs its whole load in a tiny version and reports every figure (the figures are judged in BENCHMARKS.md, never here)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

REPO = Path(__file__).resolve().parents[2]


def test_the_stress_command_reports_reads_rss_and_event_loop_lag(tmp_path):
    out = tmp_path / "stress.json"
    done = subprocess.run([sys.executable, "-m", "bench.probes.stress", "--smoke", "--out", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]  # 1 would mean a reader's read failed
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["reads"]["ok"] > 0 and result["failed_reads"] == 0
    assert set(result["rss_mb"]) == {"before_storm", "peak", "after_storm", "after_clients_left", "ratio_after_over_before"}
    for phase in ("before_storm", "storm"):
        assert result["loop_lag"][phase]["samples"] > 0 and result["loop_lag"][phase]["max_ms"] >= result["loop_lag"][phase]["p99_ms"]
    assert result["listen_streams_told"]["subscriptions/acknowledged"] == result["load"]["streams"] // 2
    assert "event-loop lag storm" in done.stdout
