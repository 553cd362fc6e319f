"""The fuzzing of issue 33 at full size: over 100,000 cases, each test in a child process under an address-space ceiling.

    python -m bench.probes.fuzz_round5               # the recorded run (BENCHMARKS.md), about 15 minutes on 2 cores
    python -m bench.probes.fuzz_round5 --smoke       # a few cases of each

It runs `tests/robustness/test_fuzz_round5.py` one test at a time with its own
count of cases (`GUIDE_FUZZ_EXAMPLES`): patterns compiled and matched, patterns
read through a real client in both eras, what sources offer of names of every
length and character (pure, real files, real `packed-refs`), git's output cut
however it arrives, and log records of any text. The figures: passing and
failing cases as Hypothesis counts them, each child's peak resident memory
(under `CEILING_MB`, so a case that grew without bound fails instead of taking
the machine down), and the time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FILE = "tests/robustness/test_fuzz_round5.py"
CEILING_MB = 2048
"""The address space each child may take, in MiB."""
CASES = (
    ("patterns compiled and matched", "compiles_within", 40_000),
    ("patterns read by a client, both eras", "read_of_a_pattern", 750),
    ("what a source offers", "offers_stays", 20_000),
    ("git's output cut in any chunks", "cut_line_by_line", 10_000),
    ("file names of every length and character", "file_names", 1_500),
    ("branch names in packed-refs", "packed_refs", 500),
    ("logged values", "one_short_line", 25_000),
    ("tracebacks", "traceback_never", 5_000),
)
"""(what, the test's `-k` expression, cases); a test run in both eras counts its cases twice."""
_COUNTS = re.compile(r"- (\d+) passing, (\d+) failing")


def _limit() -> None:
    ceiling = CEILING_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))


def run_one(expression: str, cases: int) -> dict:
    """Run the tests `expression` picks with `cases` cases each: passing, failing, the child's peak RSS (MB) and seconds."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", FILE, "-k", expression, "--hypothesis-show-statistics"]
    env = {**os.environ, "GUIDE_FUZZ_EXAMPLES": str(cases), "PYTHONHASHSEED": "0"}
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=_limit)
    with child.stdout:  # type: ignore[union-attr]
        output = child.stdout.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(child.pid, 0)  # reaped here, so its own peak is known (not every child's so far)
    child.returncode = os.waitstatus_to_exitcode(status)
    counts = [tuple(map(int, found)) for found in _COUNTS.findall(output)]
    return {
        "passing": sum(passing for passing, _ in counts),
        "failing": sum(failing for _, failing in counts),
        "tests": len(counts),
        "exit": child.returncode,
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "seconds": round(time.perf_counter() - started, 1),
        "tail": output[-1500:] if child.returncode else "",
    }


def main(argv: list[str] | None = None) -> int:
    """Run every fuzz test of issue 33 with its count and print the totals."""
    parser = argparse.ArgumentParser(prog="python -m bench.probes.fuzz_round5", description="Issue 33's fuzzing at full size.")
    parser.add_argument("--smoke", action="store_true", help="a few cases of each test")
    parser.add_argument("--out", type=Path, default=None, help="write every figure as JSON")
    options = parser.parse_args(argv)
    results = {}
    for what, expression, cases in CASES:
        results[what] = run_one(expression, max(2, cases // 1000) if options.smoke else cases)
        found = results[what]
        print(f"{what}: {found['passing']:,} passing, {found['failing']:,} failing, peak {found['peak_rss_mb']} MB, {found['seconds']} s",
              flush=True)
    total = {key: sum(found[key] for found in results.values()) for key in ("passing", "failing")}
    peak = max(found["peak_rss_mb"] for found in results.values())
    ok = total["failing"] == 0 and all(found["exit"] == 0 for found in results.values())
    print(f"in all: {total['passing']:,} passing cases, {total['failing']:,} failing; the largest child peaked at {peak} MB "
          f"(ceiling {CEILING_MB} MiB): {'clean' if ok else 'FAILURES'}")
    if options.out:
        options.out.write_text(json.dumps({"cases": results, "total": total, "peak_rss_mb": peak, "clean": ok}, indent=2), encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
