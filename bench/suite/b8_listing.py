"""B8: listing a large docroot, against a FastMCP server listing the same items ready-made.

For each size a Guide server (`python -m guide serve`, stdio, a fresh process
and an empty parse cache each time) and the baseline (`python -m
bench.harness.listing_server`, whose provider returns the same components built before
the first request) are started in alternating order. A client lists resources,
templates and prompts twice; each full listing is timed at the client, and the
server's peak RSS (VmHWM) is read after the second. Each round gives one ratio
per figure. The first round starts with Guide: its first listing is written out
as the baseline's items, and the baseline's first listing is checked equal to it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from fastmcp import Client

from bench.harness.common import Config, log, project_dir
from bench.harness.measure import ratio_summary, summary
from bench.harness.procs import child_pid, peak_rss_mb, python_transport, serve_transport
from bench.suite.b4_scale import growth
from guide.docroot.store.disk import CACHE_DIR_VARIABLE

TARGET_FIRST = 1.2
TARGET_SECOND = 1.0
TARGET_RSS = 1.25
GROWTH_LIMIT = 1.15  # log-log slope of Guide's first listing between the two largest sizes; 1.0 is linear
KINDS = ("resources", "templates", "prompts")
DocrootFor = Callable[[int], tuple[Path, dict]]


async def list_all(client: Client) -> dict[str, list]:
    """One full listing: resources, resource templates and prompts."""
    return {
        "resources": await client.list_resources(),
        "templates": await client.list_resource_templates(),
        "prompts": await client.list_prompts(),
    }


def items_of(listing: dict[str, list]) -> dict[str, list[dict]]:
    """A listing as JSON-ready dictionaries, as they came over the wire."""
    return {kind: [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in listing[kind]] for kind in KINDS}


async def listing_session(transport, marker: str) -> dict:
    """Connect, list everything twice, and read the server's peak RSS; the listings are kept from the first."""
    async with Client(transport) as client:
        began = time.perf_counter()
        first = await list_all(client)
        middle = time.perf_counter()
        await list_all(client)
        ended = time.perf_counter()
        rss = peak_rss_mb(child_pid(marker))
    return {"first_s": middle - began, "second_s": ended - middle, "rss_mb": rss, "listing": first}


def guide_cache_env(workdir: Path, label: str) -> dict[str, str]:
    """An environment giving a Guide server its own, empty parse cache folder."""
    folder = workdir / "caches" / label
    folder.mkdir(parents=True, exist_ok=True)
    return {CACHE_DIR_VARIABLE: str(folder)}


async def _size(config: Config, workdir: Path, size: int, docroot_for: DocrootFor) -> dict:
    root, info = docroot_for(size)
    project = project_dir(workdir)
    serve_log = workdir / "serve-b8.log"
    items_file = workdir / f"b8-items-{size}.json"
    runs: dict[str, list[dict]] = {"guide": [], "baseline": []}
    for r in range(config.list_rounds):
        for side in ("guide", "baseline") if r % 2 == 0 else ("baseline", "guide"):
            if side == "guide":
                run = await listing_session(serve_transport(root, project, serve_log, guide_cache_env(workdir, f"b8-{size}-{r}")), str(root))
                if r == 0:
                    write_items(items_file, run["listing"], info)
            else:
                transport = python_transport(["-m", "bench.harness.listing_server", str(items_file)], workdir / "baseline-b8.log")
                run = await listing_session(transport, str(items_file))
                stored = json.loads(items_file.read_text(encoding="utf-8"))
                if r == 0 and items_of(run["listing"]) != {kind: stored[kind] for kind in KINDS}:
                    raise AssertionError("B8: the baseline lists different items than Guide")
            run.pop("listing")
            runs[side].append(run)
        log(f"  B8 @{size}: round {r + 1}/{config.list_rounds} done")
    row: dict = {"size": size, "entrypoints": info["entrypoints"], "items": json.loads(items_file.read_text(encoding="utf-8"))["counts"]}
    for figure in ("first_s", "second_s", "rss_mb"):
        guide = [run[figure] for run in runs["guide"]]
        base = [run[figure] for run in runs["baseline"]]
        row[figure] = {"guide": summary(guide), "baseline": summary(base), "ratio": ratio_summary(guide, base)}
    return row


def write_items(path: Path, listing: dict[str, list], info: dict) -> None:
    """Write Guide's first listing as the baseline's items (round 0 always starts with Guide)."""
    items = items_of(listing)
    if len(items["resources"]) < info["entrypoints"]:
        raise AssertionError(f"B8: Guide listed {len(items['resources'])} resources for {info['entrypoints']} entrypoints")
    path.write_text(json.dumps({**items, "counts": {kind: len(items[kind]) for kind in KINDS}}), encoding="utf-8")


async def run(config: Config, workdir: Path, docroot_for: DocrootFor) -> dict:
    rows = []
    for size in config.list_sizes:
        began = time.perf_counter()
        rows.append(await _size(config, workdir, size, docroot_for))
        log(f"  B8 @{size}: {time.perf_counter() - began:.1f} s")
    sizes = [row["size"] for row in rows]
    slope = growth(sizes, [row["first_s"]["guide"]["median"] for row in rows])
    rss_slope = growth(sizes, [row["rss_mb"]["guide"]["median"] for row in rows])
    top = rows[-1]
    met = {
        "first": all(row["first_s"]["ratio"]["median"] <= TARGET_FIRST for row in rows),
        "second": all(row["second_s"]["ratio"]["median"] <= TARGET_SECOND for row in rows),
        "rss": all(row["rss_mb"]["ratio"]["median"] <= TARGET_RSS for row in rows),
        "growth": None if slope is None else slope <= GROWTH_LIMIT,
    }
    return {
        "id": "B8",
        "what": "full listing (resources + templates + prompts) of generated docroots over stdio, against a FastMCP server listing the same items ready-made",
        "target": f"every size: first listing ratio <= {TARGET_FIRST}, second <= {TARGET_SECOND}, RSS <= {TARGET_RSS}; growth slope <= {GROWTH_LIMIT}",
        "sizes": rows,
        "growth_loglog_slope": {"first_listing": slope, "rss": rss_slope},
        "growth_limit": GROWTH_LIMIT,
        "figure": top["first_s"]["ratio"]["median"],
        "met_parts": met,
        "met": all(v for v in met.values() if v is not None),
    }
