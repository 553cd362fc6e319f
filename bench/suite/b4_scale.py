"""B4: docroots of growing size: start to first answered request, peak RSS, `guide check` time.

For each size a docroot is generated once. Each repetition starts
`python -m guide serve --docroot GEN` over stdio for every size, in alternating
order, together with the baseline `python -c "import fastmcp"`; a client times
process start to the first answered read of a command with forms, then lists
resources, templates and prompts (which builds every entrypoint) and reads the
child's peak RSS (VmHWM, in MB of 10^6 bytes) at the first answer and again after the listing. `python -m guide check GEN` is timed the same way.
Every start and check runs with Guide's caches off (`GUIDE_NO_CACHE=1`), so each
does the whole work; B9 and B10 measure what the parse cache and the kept check
report save.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from fastmcp import Client

from bench.harness.common import Config, log, project_dir
from bench.harness.docroot_gen import generate
from bench.harness.measure import summary
from bench.harness.procs import child_pid, peak_rss_mb, serve_transport, timed_run
from guide.docroot.store.disk import NO_CACHE_VARIABLE

TARGET_START_S = 2.0
TARGET_RSS_MB = 300.0
TARGET_CHECK_S = 5.0
NO_CACHE = {NO_CACHE_VARIABLE: "1"}
GROWTH_LIMIT = 1.15  # log-log slope of the size-dependent part; 1.0 is linear


async def start_once(docroot: Path, info: dict, project: Path, log_file: Path) -> dict:
    transport = serve_transport(docroot, project, log_file, NO_CACHE)
    start = time.perf_counter()
    async with Client(transport) as client:
        text = (await client.read_resource(info["probe_uri"]))[0].text
        first = time.perf_counter() - start
        pid = child_pid(str(docroot))
        rss_first = peak_rss_mb(pid)
        listed = time.perf_counter()
        resources = await client.list_resources()
        await client.list_resource_templates()
        await client.list_prompts()
        listing = time.perf_counter() - listed
        rss_all = peak_rss_mb(pid)
    if "attempts: 2" not in text or len(resources) < info["entrypoints"]:
        raise AssertionError(f"B4: unexpected answer from {docroot}")
    return {"start_s": first, "rss_first_mb": rss_first, "list_s": listing, "rss_listed_mb": rss_all}


def growth(sizes: list[int], values: list[float]) -> float | None:
    """Log-log slope of (value - value at the smallest size) between the two largest sizes."""
    if len(sizes) < 3:
        return None
    base = values[0]
    a, b = values[-2] - base, values[-1] - base
    if a <= 0 or b <= 0:
        return None
    return math.log(b / a) / math.log((sizes[-1] - sizes[0]) / (sizes[-2] - sizes[0]))


def _plot(path: Path, rows: list[dict], import_s: float) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    sizes = [r["size"] for r in rows]
    fig, left = plt.subplots(figsize=(7.5, 4.5))
    left.plot(sizes, [r["start_s"]["median"] for r in rows], "o-", color="tab:blue", label="start to first answer (s)")
    left.plot(sizes, [r["check_s"]["median"] for r in rows], "D-", color="tab:green", label="guide check (s)")
    left.axhline(import_s, color="tab:blue", linestyle=":", label='python -c "import fastmcp" (s)')
    left.axhline(TARGET_START_S, color="tab:blue", linestyle="--", linewidth=0.6, label=f"start target ({TARGET_START_S:g} s)")
    left.axhline(TARGET_CHECK_S, color="tab:green", linestyle="--", linewidth=0.6, label=f"check target ({TARGET_CHECK_S:g} s)")
    left.set_xlabel("entrypoints in the docroot")
    left.set_ylabel("seconds")
    left.set_ylim(bottom=0)
    right = left.twinx()
    right.plot(sizes, [r["rss_first_mb"]["median"] for r in rows], "s--", color="tab:red", label="peak RSS at first answer (MB)")
    right.plot(sizes, [r["rss_listed_mb"]["median"] for r in rows], "^:", color="tab:orange", label="peak RSS after full listing (MB)")
    right.axhline(TARGET_RSS_MB, color="tab:red", linestyle="--", linewidth=0.6, label=f"RSS target ({TARGET_RSS_MB:g} MB)")
    right.set_ylabel("MB")
    right.set_ylim(bottom=0)
    handles = left.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    labels = left.get_legend_handles_labels()[1] + right.get_legend_handles_labels()[1]
    left.legend(handles, labels, loc="upper left", fontsize=7)
    left.set_title("Guide B4: docroot size vs start time, check time and memory")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


async def run(config: Config, workdir: Path, out: Path) -> tuple[dict, dict[int, tuple[Path, dict]]]:
    """Generate each size's docroot, time starts and checks in alternating order, and judge the largest size and the growth."""
    docroots = _generated(config, workdir)
    starts, imports = await _starts(config, docroots, project_dir(workdir), workdir / "serve.log")
    checks = await _checks(config, docroots)
    import_s = summary(imports)["median"]
    rows = [_row(size, docroots[size][1], starts[size], checks[size], import_s) for size in config.sizes]
    return _result(rows, summary(imports), _plot(out / "b4_scale.png", rows, import_s)), docroots


def _generated(config: Config, workdir: Path) -> dict[int, tuple[Path, dict]]:
    docroots: dict[int, tuple[Path, dict]] = {}
    for size in config.sizes:
        root = workdir / f"docroot-{size}"
        began = time.perf_counter()
        docroots[size] = (root, generate(root, size))
        log(f"  B4: generated {size} entrypoints in {time.perf_counter() - began:.1f} s")
    return docroots


async def _starts(config: Config, docroots: dict[int, tuple[Path, dict]], project: Path, serve_log: Path) -> tuple[dict[int, list[dict]], list[float]]:
    """Each repetition: the baseline import, then one start per size (the order flips every repetition)."""
    starts: dict[int, list[dict]] = {size: [] for size in config.sizes}
    imports: list[float] = []
    for rep in range(config.starts):
        order = list(config.sizes) if rep % 2 == 0 else list(reversed(config.sizes))
        seconds, _status, _ = await timed_run([sys.executable, "-c", "import fastmcp"])
        imports.append(seconds)
        for size in order:
            starts[size].append(await start_once(*docroots[size], project, serve_log))
        log(f"  B4: start repetition {rep + 1}/{config.starts} done")
    return starts, imports


async def _checks(config: Config, docroots: dict[int, tuple[Path, dict]]) -> dict[int, list[float]]:
    """`guide check` of each size with caches off, the order flipping every repetition; the generated docroots must check clean."""
    checks: dict[int, list[float]] = {size: [] for size in config.sizes}
    for rep in range(config.checks):
        order = list(config.sizes) if rep % 2 == 0 else list(reversed(config.sizes))
        for size in order:
            seconds, status, output = await timed_run([sys.executable, "-m", "guide", "check", str(docroots[size][0])], env=NO_CACHE)
            if status != 0:
                raise AssertionError(f"B4: guide check found errors in the generated docroot:\n{output.decode()[-2000:]}")
            checks[size].append(seconds)
        log(f"  B4: check repetition {rep + 1}/{config.checks} done")
    return checks


def _row(size: int, info: dict, runs: list[dict], checks: list[float], import_s: float) -> dict:
    row = {
        "entrypoints": info["entrypoints"],
        "size": size,
        "start_s": summary([r["start_s"] for r in runs]),
        "rss_first_mb": summary([r["rss_first_mb"] for r in runs if r["rss_first_mb"] is not None]),
        "rss_listed_mb": summary([r["rss_listed_mb"] for r in runs if r["rss_listed_mb"] is not None]),
        "list_s": summary([r["list_s"] for r in runs]),
        "check_s": summary(checks),
    }
    row["start_per_entrypoint_ms"] = (row["start_s"]["median"] - import_s) / size * 1e3
    row["check_per_entrypoint_ms"] = row["check_s"]["median"] / size * 1e3
    return row


def _result(rows: list[dict], imports: dict, plot: str | None) -> dict:
    sizes = [r["size"] for r in rows]
    slopes = {key: growth(sizes, [r[field]["median"] for r in rows]) for key, field in (("start", "start_s"), ("rss", "rss_first_mb"), ("check", "check_s"))}
    top = rows[-1]
    met = {
        "start": top["start_s"]["median"] <= TARGET_START_S,
        "rss": top["rss_first_mb"]["median"] <= TARGET_RSS_MB,
        "check": top["check_s"]["median"] <= TARGET_CHECK_S,
        "growth": None if all(s is None for s in slopes.values()) else all(s is None or s <= GROWTH_LIMIT for s in slopes.values()),
    }
    return {
        "id": "B4",
        "what": "generated docroots: start to first answered request, peak RSS, guide check time",
        "target": f"at {sizes[-1]}: start <= {TARGET_START_S:g} s, RSS <= {TARGET_RSS_MB:g} MB, check <= {TARGET_CHECK_S:g} s; growth no worse than linear",
        "baseline_import_fastmcp_s": imports,
        "sizes": rows,
        "growth_loglog_slope": slopes,
        "growth_limit": GROWTH_LIMIT,
        "rss_is": "VmHWM (peak RSS) of the server at its first answer; rss_listed_mb: after the client then lists resources, templates and prompts",
        "listing_after_first_answer_within_target": top["rss_listed_mb"]["median"] <= TARGET_RSS_MB,
        "plot": plot,
        "met_parts": met,
        "met": all(v for v in met.values() if v is not None),
    }
