"""What a server keeps after listing a large docroot, by owner and by type: `python -m bench.probes.heap_profile [--size N]`.

Experiment behind B8's RSS figure. A Guide server (in memory, no watch, start
check held back) lists everything twice under tracemalloc; each block still
held afterwards is charged to the innermost Guide frame that asked for it
(its owner: the parsed frontmatter, the declared forms, the rest of the
docroot's records, or the FastMCP components Guide made), else to the library
that allocated it. The B8 baseline (FastMCP listing the same items ready-made)
is profiled the same way in a child process. Live objects are also counted by
type. Figures are bytes tracemalloc sees, not RSS: no allocator slack, no code.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

from bench.harness.common import REPO, child_env

OWNERS = (  # (what a block is, the Guide module paths whose frames asked for it), the first match wins
    ("Guide: parsed frontmatter (YAML mappings)", ("docroot/frontmatter.py", "docroot/yaml_loader.py")),
    ("Guide: FastMCP components of the listings", ("server/provider.py",)),
    ("Guide: declared forms (Form, Field, FormSet)", ("forms/",)),
    ("Guide: entrypoints, per-file work, snapshot, kept parses", ("docroot/", "address.py")),
    ("Guide: other", ("",)),
)


def owner(traceback: tracemalloc.Traceback) -> str:
    """The owner of a block: its innermost Guide frame's part, else the library that allocated it."""
    for frame in reversed(traceback):
        if "/guide/" in frame.filename:
            path = frame.filename.rsplit("/guide/", 1)[1]
            return next(name for name, parts in OWNERS if any(path.startswith(part) for part in parts))
    top = traceback[-1].filename
    for library in ("pydantic_core", "pydantic", "fastmcp", "mcp_types", "mcp", "anyio"):
        if f"/{library}/" in top:
            return f"no Guide frame: {library}"
    return "no Guide frame: other"


async def listed_twice(client) -> None:
    for _ in range(2):
        await client.list_resources()
        await client.list_resource_templates()
        await client.list_prompts()


async def profile_guide(size: int, items_file: Path) -> dict:
    """Guide's side: what a server holds after two full listings of a generated docroot of `size` entrypoints."""
    from fastmcp import Client

    from bench.suite.b8_listing import items_of
    from guide.server import startup
    from guide.server.app import create_server

    startup.START_QUIET = startup.START_LONGEST = 1e9  # B8 reads its figure before the start check: leave it out here too
    with tempfile.TemporaryDirectory(prefix="heap-", ignore_cleanup_errors=True) as temp:
        return await _profile_guide(size, items_file, Path(temp), create_server, items_of, Client)


async def _profile_guide(size: int, items_file: Path, work: Path, create_server, items_of, Client) -> dict:
    from bench.harness.docroot_gen import generate

    os.environ["GUIDE_CACHE_DIR"] = str(work / "cache")
    root, project = work / "docroot", work / "project"
    generate(root, size)
    project.mkdir()
    (project / ".guide.yaml").write_text("phase: implementation\n", encoding="utf-8")
    server = create_server(root, project, watch=False)
    gc.collect()
    counted = collections.Counter(type(o).__name__ for o in gc.get_objects())
    tracemalloc.start(30)
    before = tracemalloc.take_snapshot()
    async with Client(server) as client:
        await listed_twice(client)
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        types = collections.Counter(type(o).__name__ for o in gc.get_objects()) - counted
        listing = {"resources": await client.list_resources(), "templates": await client.list_resource_templates(),
                   "prompts": await client.list_prompts()}
        items_file.write_text(json.dumps(items_of(listing)), encoding="utf-8")
    owners: collections.Counter = collections.Counter()
    for stat in after.compare_to(before, "traceback"):
        if stat.size_diff > 0:
            owners[owner(stat.traceback)] += stat.size_diff
    return {"held": held, "peak": peak, "owners": dict(owners), "types": dict(types.most_common(25))}


async def profile_baseline(items_file: Path) -> dict:
    """The baseline's side: a FastMCP server with the same items ready-made, after two full listings."""
    from fastmcp import Client

    from bench.harness.listing_server import ready_server

    gc.collect()
    counted = collections.Counter(type(o).__name__ for o in gc.get_objects())
    items = json.loads(items_file.read_text(encoding="utf-8"))
    tracemalloc.start(30)
    server = ready_server(items)
    del items
    async with Client(server) as client:
        await listed_twice(client)
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
        types = collections.Counter(type(o).__name__ for o in gc.get_objects()) - counted
    return {"held": held, "peak": peak, "types": dict(types.most_common(25))}


def child(side: str, size: int, items_file: Path) -> dict:
    command = [sys.executable, "-m", "bench.probes.heap_profile", "--side", side, "--size", str(size), "--items", str(items_file)]
    done = subprocess.run(command, cwd=REPO, env=child_env(), capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def report(size: int, guide: dict, baseline: dict) -> str:
    mb = 1e6
    lines = [f"after two full listings of {size} entrypoints (tracemalloc, MB held / peak):",
             f"  Guide    {guide['held'] / mb:7.1f} / {guide['peak'] / mb:7.1f}  ({guide['held'] / size:,.0f} bytes an entrypoint)",
             f"  baseline {baseline['held'] / mb:7.1f} / {baseline['peak'] / mb:7.1f}  ({baseline['held'] / size:,.0f} bytes an entrypoint)",
             "Guide's blocks by owner:"]
    lines += [f"  {value / mb:7.2f} MB  {name}" for name, value in sorted(guide["owners"].items(), key=lambda item: -item[1]) if value >= mb / 100]
    lines.append("live objects made by the listings, by type (Guide | baseline):")
    for name in sorted(set(guide["types"]) | set(baseline["types"]), key=lambda n: -guide["types"].get(n, 0))[:25]:
        lines.append(f"  {name:24} {guide['types'].get(name, 0):8} | {baseline['types'].get(name, 0):8}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.probes.heap_profile", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=3000, help="entrypoints in the generated docroot (default 3000)")
    parser.add_argument("--side", choices=("guide", "baseline"), help=argparse.SUPPRESS)
    parser.add_argument("--items", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.side == "guide":
        print(json.dumps(asyncio.run(profile_guide(options.size, options.items))))
    elif options.side == "baseline":
        print(json.dumps(asyncio.run(profile_baseline(options.items))))
    else:
        with tempfile.TemporaryDirectory(prefix="heap-items-") as temp:
            items_file = Path(temp) / "items.json"
            guide = child("guide", options.size, items_file)
            print(report(options.size, guide, child("baseline", options.size, items_file)))


if __name__ == "__main__":
    main()
