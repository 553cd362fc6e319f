"""B9: start + first read, against a minimal FastMCP server started and read the same way.

Each case spawns `python -m guide serve` over stdio and times from the spawn to
the first answered read: a command read with every form supplied, or
`guide://_help`, on the bundled example and on the largest generated docroot.
The baseline is `python -m bench.harness.bare_server --transport stdio` (one resource),
started and read the same way right before or after (the order flips), so each
pair gives one ratio. Guide's parse cache is primed once per docroot by
`guide check` (a restarted server is the common case); the `cold` case starts
with an empty cache each time, as the very first start on a docroot does.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from fastmcp import Client

from bench.harness.common import EXAMPLE_DOCROOT, Config, log, project_dir
from bench.harness.measure import ratio_summary, summary
from bench.harness.procs import python_transport, serve_transport, timed_run
from bench.suite.b8_listing import guide_cache_env

EXAMPLE_URI = "guide://_release?label=v1.2.0&notes=none"
HELP_URI = "guide://_help"
BASE_URI = "guide://_static"
TARGET_EXAMPLE = 1.10
TARGET_LARGE = 1.3
DocrootFor = Callable[[int], tuple[Path, dict]]


async def first_read(transport, uri: str, expect: str) -> float:
    """Seconds from spawning the server to the answer of its first read."""
    began = time.perf_counter()
    async with Client(transport) as client:
        text = (await client.read_resource(uri))[0].text
        seconds = time.perf_counter() - began
    if expect not in text:
        raise AssertionError(f"B9: unexpected answer to {uri}: {text[:200]!r}")
    return seconds


def _cases(config: Config, docroot_for: DocrootFor) -> list[dict]:
    size = config.list_sizes[-1]
    root, info = docroot_for(size)
    return [
        {"name": "example read", "root": EXAMPLE_DOCROOT, "uri": EXAMPLE_URI, "expect": "# Release v1.2.0", "target": TARGET_EXAMPLE},
        {"name": "example _help", "root": EXAMPLE_DOCROOT, "uri": HELP_URI, "expect": "guide://_release", "target": TARGET_EXAMPLE},
        {"name": f"{size} read", "root": root, "uri": info["probe_uri"], "expect": "attempts: 2", "target": TARGET_LARGE},
        {"name": f"{size} _help", "root": root, "uri": HELP_URI, "expect": "guide://_rich", "target": TARGET_LARGE},
        {"name": f"{size} _help, cold", "root": root, "uri": HELP_URI, "expect": "guide://_rich", "target": None, "cold": True},
    ]


async def run(config: Config, workdir: Path, docroot_for: DocrootFor) -> dict:
    project = project_dir(workdir)
    text_file = workdir / "b9-static.md"
    text_file.write_text("# Static\n\nOne resource.\n", encoding="utf-8")
    warm = {}
    for case in _cases(config, docroot_for):
        root = case["root"]
        if root not in warm:
            warm[root] = guide_cache_env(workdir, f"b9-{len(warm)}")
            await timed_run([sys.executable, "-m", "guide", "check", str(root)], env=warm[root])
    cases = _cases(config, docroot_for)
    times: dict[str, dict[str, list[float]]] = {case["name"]: {"guide": [], "baseline": []} for case in cases}
    for r in range(config.start_rounds):
        for index, case in enumerate(cases):
            env = guide_cache_env(workdir, f"b9-cold-{r}") if case.get("cold") else warm[case["root"]]
            sides = ("guide", "baseline") if (r + index) % 2 == 0 else ("baseline", "guide")
            for side in sides:
                if side == "guide":
                    transport = serve_transport(case["root"], project, workdir / "serve-b9.log", env)
                    seconds = await first_read(transport, case["uri"], case["expect"])
                else:
                    args = ["-m", "bench.harness.bare_server", "--transport", "stdio", "--text-file", str(text_file)]
                    seconds = await first_read(python_transport(args, workdir / "baseline-b9.log"), BASE_URI, "One resource")
                times[case["name"]][side].append(seconds)
        log(f"  B9: round {r + 1}/{config.start_rounds} done")
    rows = []
    for case in cases:
        guide, base = times[case["name"]]["guide"], times[case["name"]]["baseline"]
        ratio = ratio_summary(guide, base)
        met = None if case["target"] is None else ratio["median"] <= case["target"]
        rows.append({"case": case["name"], "uri": case["uri"], "cold_cache": bool(case.get("cold")), "guide_s": summary(guide),
                     "baseline_s": summary(base), "ratio": ratio, "target": case["target"], "met": met})
    return {
        "id": "B9",
        "what": "spawn over stdio to the first answered read, against a minimal FastMCP server (one resource)",
        "target": f"ratio <= {TARGET_EXAMPLE} on the bundled example, <= {TARGET_LARGE} at {config.list_sizes[-1]} (a command read and _help)",
        "cases": rows,
        "figure": max(row["ratio"]["median"] for row in rows if row["target"] is not None),
        "met": all(row["met"] for row in rows if row["met"] is not None),
    }
