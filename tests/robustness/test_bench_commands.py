"""The soak, stall, loop-probe, round-5 fuzz, calls and profiles commands run and report figures (their targets are checked in BENCHMARKS.md, never here)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_the_soak_command_reports_an_rss_slope_and_no_unexpected_failure(tmp_path):
    out = tmp_path / "soak.json"
    done = _run("bench.probes.soak", "--minutes", "0.05", "--clients", "2", "--every", "0.5", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["outcomes"]["ok"] > 0 and "unexpected" not in result["outcomes"]
    assert result["outcomes"]["refused"] > 0  # the mix holds requests that must fail
    assert math.isfinite(result["slope_mb_per_minute"]) and result["rss_mb"]["end"] > 0
    assert "slope" in done.stdout


def test_the_stall_command_reports_ratios(tmp_path):
    out = tmp_path / "stall.json"
    done = _run("bench.probes.stall", "--smoke", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    for name in ("largest_over_none", "largest_over_normal", "normal_over_none"):
        assert math.isfinite(result["ratios"][name]["median"]) and result["ratios"][name]["median"] > 0
    assert result["attacker_requests"]["largest"] > 0


def test_the_loop_probe_command_reports_how_long_each_request_held_the_loop(tmp_path):
    out = tmp_path / "loop.json"
    done = _run("bench.probes.loop_probe", "--smoke", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    figure = result["figures"]["one page"]
    assert figure["cases"] and all(math.isfinite(case["held_ms"]) and case["request_ms"] > 0 for case in figure["cases"].values())


def test_the_round_5_fuzz_command_counts_cases_and_peak_memory(tmp_path):
    out = tmp_path / "fuzz.json"
    done = _run("bench.probes.fuzz_round5", "--smoke", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["clean"] and result["total"]["failing"] == 0 and result["total"]["passing"] >= 100
    assert all(case["passing"] > 0 and case["peak_rss_mb"] > 0 for case in result["cases"].values())


def test_the_calls_command_counts_the_calls_of_a_read_on_both_sides():
    done = _run("bench.probes.calls", "--case", "B1", "--json")
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    figures = json.loads(done.stdout)
    assert set(figures) == {"B1 legacy", "B1 2026-07-28"}
    for figure in figures.values():
        assert figure["guide"] > 0 and figure["baseline"] > 0 and figure["extra"] == figure["guide"] - figure["baseline"]


def test_the_profiles_command_writes_every_segment_of_every_process(tmp_path):
    pytest.importorskip("pyinstrument", reason="the profiles probe needs the bench extra: pip install -e '.[bench]' (.ci/run installs it)")
    done = _run("bench.probes.profiles", "--size", "20", "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    segments = {process: len(list((tmp_path / process).glob("segment-*.pyisession"))) for process in ("guide-listing", "baseline-listing", "guide-help", "check")}
    assert segments == {"guide-listing": 4, "baseline-listing": 4, "guide-help": 2, "check": 1}  # the cuts the driver makes, and one at exit
    listing = json.loads((tmp_path / "guide-listing" / "segment-1-workers.json").read_text(encoding="utf-8"))
    assert listing["pieces"] > 0 and listing["self_s_by_library"].get("guide", 0) > 0  # the first listing's work in Guide's worker threads
