"""Run every benchmark: `python -m bench [--smoke] [--out DIR] [--only B1,B3]`.

Writes DIR/results.json (every figure, the spread and the run's context),
DIR/table.md (the summary table) and DIR/b4_scale.png (the B4 sweep), and prints
the table. Exit status 1 if a benchmark could not run; a missed target is a
result, not an error.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench.harness.common import REPO, Config, log, quiet

IDS = ("B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B12", "B13")


def _machine() -> dict:
    import fastmcp

    import guide

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "fastmcp": fastmcp.__version__,
        "guide": guide.__version__,
        "commit": git("rev-parse", "--short", "HEAD"),
        "dirty_src": bool(git("status", "--porcelain", "--", "src")),
        "src_diff_sha256": hashlib.sha256(git("diff", "HEAD", "--", "src").encode()).hexdigest()[:12],
        "loadavg_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


async def _run_all(config: Config, out: Path, only: set[str]) -> dict[str, dict]:
    from guide.server.settings import SETTING

    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="guide-bench-") as temp:
        workdir = Path(temp)
        os.environ[SETTING["cache_dir"].variable] = str(workdir / "cache")  # servers and checks of this run never touch the user's cache
        for bench_id, make in _steps(config, workdir, out):
            if bench_id in only:
                results[bench_id] = await _timed(bench_id, make)
    return results


def _steps(config: Config, workdir: Path, out: Path) -> list[tuple[str, Callable[[], Awaitable[dict]]]]:
    """Each benchmark of `python -m bench` in the order it runs; the generated docroots are made once and shared."""
    from bench.harness.docroot_gen import generate
    from bench.suite import b1_static, b2_flow, b3_core, b4_scale, b5_watch, b6_state, b7_http, b8_listing, b9_start, b10_restart, b12_sources, b13_scenarios

    docroots: dict[int, tuple[Path, dict]] = {}

    def docroot_for(size: int) -> tuple[Path, dict]:
        """The generated docroot of `size` entrypoints, made once per run and shared by B4, B5 and B8-B10."""
        if size not in docroots:
            began = time.perf_counter()
            docroots[size] = (workdir / f"docroot-{size}", generate(workdir / f"docroot-{size}", size))
            log(f"  generated {size} entrypoints in {time.perf_counter() - began:.1f} s")
        return docroots[size]

    async def b4() -> dict:
        result, made = await b4_scale.run(config, workdir, out)
        docroots.update(made)
        return result

    return [
        ("B3", lambda: b3_core.run(config, workdir)),
        ("B1", lambda: b1_static.run(config, workdir)),
        ("B2", lambda: b2_flow.run(config, workdir)),
        ("B6", lambda: b6_state.run(config, workdir)),
        ("B4", b4),
        ("B5", lambda: b5_watch.run(config, workdir, *docroot_for(config.sizes[-1]))),
        ("B8", lambda: b8_listing.run(config, workdir, docroot_for)),
        ("B9", lambda: b9_start.run(config, workdir, docroot_for)),
        ("B10", lambda: b10_restart.run(config, workdir, docroot_for)),
        ("B7", lambda: b7_http.run(config, workdir)),
        ("B12", lambda: b12_sources.run(config, workdir)),
        ("B13", lambda: b13_scenarios.run(config, workdir)),
    ]


async def _timed(bench_id: str, make: Callable[[], Awaitable[dict]]) -> dict:
    """One benchmark's result with its duration; an error is recorded as the result, so one broken benchmark hides no other."""
    began = time.perf_counter()
    log(f"{bench_id} ...")
    try:
        result = await make()
    except Exception as error:
        traceback.print_exc()
        result = {"id": bench_id, "error": f"{type(error).__name__}: {error}", "met": None}
    result["seconds"] = round(time.perf_counter() - began, 2)
    log(f"{bench_id} done in {result['seconds']:.1f} s")
    return result


# ---------------------------------------------------------------- table


def _yes(met: bool | None) -> str:
    return "n/a" if met is None else ("yes" if met else "**no**")


def _num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}"


def _ratio(stats: dict, digits: int = 2) -> str:
    return f"{stats['median']:.{digits}f} (IQR {stats['p25']:.{digits}f}-{stats['p75']:.{digits}f})"


def table(results: dict[str, dict]) -> list[list[str]]:
    """The summary table's rows: id, figure, baseline, ratio, target, met."""
    rows = []
    for bench_id in IDS:
        r = results.get(bench_id)
        if r is None:
            continue
        if r.get("error"):
            rows.append([bench_id, f"error: {r['error']}", "", "", "", "n/a"])
            continue
        rows += ROWS[bench_id](bench_id, r)
    return rows


def _eras_rows(bench_id: str, r: dict) -> list[list[str]]:
    return [[f"{bench_id} {era}", f"{e['guide']['median']:.3f} ms", f"{e['baseline']['median']:.3f} ms", _ratio(e["ratio"]),
             r["target"].replace(" each era", ""), _yes(e["met"])] for era, e in r["eras"].items()]


def _b3_rows(bench_id: str, r: dict) -> list[list[str]]:
    return [[bench_id, f"{r['figure']:.1f} us (slowest of {len(r['steps'])} steps; all-step median {r['all_steps_median']:.1f} us)",
             "-", "-", r["target"], _yes(r["met"])]]


def _b4_rows(bench_id: str, r: dict) -> list[list[str]]:
    top = r["sizes"][-1]
    n = top["size"]
    base = r["baseline_import_fastmcp_s"]["median"]
    parts = r["met_parts"]
    listed = f"{top['rss_listed_mb']['median']:.0f} MB after listing everything (list took {top['list_s']['median']:.1f} s)"
    slopes = ", ".join(f"{k} {_num(v)}" for k, v in r["growth_loglog_slope"].items())
    return [
        [f"B4 start @{n}", f"{top['start_s']['median']:.2f} s", f"{base:.2f} s (import fastmcp)", f"{top['start_s']['median'] / base:.1f}x", "<= 2 s",
         _yes(parts["start"])],
        [f"B4 RSS @{n}", f"{top['rss_first_mb']['median']:.0f} MB at first answer", "-", "-", "<= 300 MB", _yes(parts["rss"])],
        [f"B4 RSS @{n}, listed", listed, "-", "-", "(informational)", "-"],
        [f"B4 check @{n}", f"{top['check_s']['median']:.2f} s", "-", "-", "<= 5 s", _yes(parts["check"])],
        ["B4 growth", f"log-log slope: {slopes}", "-", "-", f"<= {r['growth_limit']} (1 = linear)", _yes(parts["growth"])],
    ]


def _b5_rows(bench_id: str, r: dict) -> list[list[str]]:
    s = r["latency_ms"]
    return [[bench_id, f"{s['median']:.0f} ms (min {s['min']:.0f}, max {s['max']:.0f})", "-", "-", r["target"], _yes(r["met"])]]


def _b6_rows(bench_id: str, r: dict) -> list[list[str]]:
    return [[bench_id, f"{r['figure']} bytes", "-", "-", r["target"], _yes(r["met"])]]


def _b7_rows(bench_id: str, r: dict) -> list[list[str]]:
    rows = [[bench_id, f"{r['guide']['median']:.0f} req/s", f"{r['baseline']['median']:.0f} req/s", _ratio(r["ratio"]), r["target"], _yes(r["met"])]]
    if r.get("server_cpu_ratio"):
        cpu = r["server_cpu_ms_per_request"]
        rows.append(["B7 server CPU", f"{cpu['guide']['median']:.2f} ms/request", f"{cpu['baseline']['median']:.2f} ms/request",
                     _ratio(r["server_cpu_ratio"]), "(informational)", "-"])
    return rows


def _b9_rows(bench_id: str, r: dict) -> list[list[str]]:
    rows = []
    for case in r["cases"]:
        target = "(informational)" if case["target"] is None else f"ratio <= {case['target']}"
        rows.append([f"B9 {case['case']}", f"{case['guide_s']['median']:.2f} s", f"{case['baseline_s']['median']:.2f} s (minimal server)",
                     _ratio(case["ratio"]), target, _yes(case["met"]) if case["target"] is not None else "-"])
    return rows


def _b10_rows(bench_id: str, r: dict) -> list[list[str]]:
    parts = r["met_parts"]
    return [
        [f"B10 restart @{r['size']}", f"first listing {r['restart_first_s']['median']:.2f} s", f"second listing {r['restart_second_s']['median']:.2f} s",
         _ratio(r["ratio"]), r["target"].split(";")[0], _yes(parts["restart"])],
        [f"B10 check @{r['size']}", f"{r['check_unchanged_s']['median']:.2f} s unchanged", "-", "-", r["target"].split("; ")[1], _yes(parts["check"])],
        [f"B10 check @{r['size']}, one edit", f"{r['check_one_edit_s']['median']:.2f} s", "-", "-", "(informational)", "-"],
    ]


def _b12_rows(bench_id: str, r: dict) -> list[list[str]]:
    from bench.suite.b12_sources import TARGET

    return [
        [label, f"{e['guide']['median']:.2f} ms (live sources)", f"{e['baseline']['median']:.2f} ms (fixed enums)", _ratio(e["ratio"]),
         r["target"].replace(" each", ""), _yes(e["ratio"]["median"] <= TARGET)]
        for label, e in (("B12 form delivered (2026-07-28)", r["delivery_2026"]), ("B12 whole read (legacy)", r["legacy_read"]))
    ]


def _b13_rows(bench_id: str, r: dict) -> list[list[str]]:
    rows = []
    for name, figures in r["docroots"].items():
        rate, share = figures["scenarios_per_s"], figures["reads_share"]
        rows.append([f"B13 {name.replace('_', ' ')}", f"{rate['median']:.1f} scenarios/s ({figures['scenarios']} scenarios, "
                     f"{figures['ms_per_channel_run']['median']:.1f} ms per channel run)", f"start {figures['start_s']['median']:.2f} s",
                     f"reads {share['median']:.2f} of the run", r["target"].split(": ")[1], _yes(share["median"] >= 0.5)])
    return rows


def _b8_rows(bench_id: str, r: dict) -> list[list[str]]:
    from bench.suite.b8_listing import TARGET_FIRST, TARGET_RSS, TARGET_SECOND

    rows = []
    labels = {"first_s": ("first listing", "s", TARGET_FIRST), "second_s": ("second listing", "s", TARGET_SECOND),
              "rss_mb": ("RSS after listing", "MB", TARGET_RSS)}
    for size in r["sizes"]:
        for key, (label, unit, target) in labels.items():
            figure = size[key]
            digits = 0 if unit == "MB" else 2
            rows.append([f"B8 {label} @{size['size']}", f"{figure['guide']['median']:.{digits}f} {unit}",
                         f"{figure['baseline']['median']:.{digits}f} {unit}", _ratio(figure["ratio"]), f"ratio <= {target}",
                         _yes(figure["ratio"]["median"] <= target)])
    slopes = r["growth_loglog_slope"]
    text = ", ".join(f"{k} {_num(v)}" for k, v in slopes.items())
    rows.append(["B8 growth", f"log-log slope: {text}", "-", "-", f"first listing <= {r['growth_limit']} (1 = linear)", _yes(r["met_parts"]["growth"])])
    return rows


ROWS = {"B1": _eras_rows, "B2": _eras_rows, "B3": _b3_rows, "B4": _b4_rows, "B5": _b5_rows, "B6": _b6_rows, "B7": _b7_rows,
        "B8": _b8_rows, "B9": _b9_rows, "B10": _b10_rows, "B12": _b12_rows, "B13": _b13_rows}
"""Each benchmark's rows of the summary table, from its result."""


def markdown(rows: list[list[str]]) -> str:
    head = ["id", "figure", "baseline", "ratio (median, IQR)", "target", "met"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Guide's benchmark suite (see BENCHMARKS.md).")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes and few iterations (under a minute)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results", help="result folder (default: bench/results/)")
    parser.add_argument("--only", default=",".join(IDS), help="comma-separated benchmark ids (default: all)")
    options = parser.parse_args(argv)
    only = {item.strip().upper() for item in options.only.split(",") if item.strip()}
    unknown = only - set(IDS)
    if unknown:
        parser.error(f"unknown benchmark ids: {', '.join(sorted(unknown))}")
    quiet()
    config = Config.make(options.smoke)
    out = options.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    machine = _machine()
    results = asyncio.run(_run_all(config, out, only))
    machine["loadavg_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    after = _machine()
    machine["src_changed_during_run"] = (after["commit"], after["src_diff_sha256"]) != (machine["commit"], machine["src_diff_sha256"])
    if machine["src_changed_during_run"]:
        log(f"warning: src changed during the run ({machine['commit']} -> {after['commit']}); figures mix code versions")
    rows = table(results)
    document = {
        "machine": machine,
        "config": config.__dict__,
        "command": "python -m bench" + (" --smoke" if options.smoke else ""),
        "total_seconds": round(time.perf_counter() - began, 1),
        "benchmarks": results,
        "table": rows,
    }
    (out / "results.json").write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    (out / "table.md").write_text(markdown(rows), encoding="utf-8")
    print(markdown(rows))
    print(f"results: {out / 'results.json'} ({document['total_seconds']} s)")
    return 1 if any(r.get("error") for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
