"""The catalog's cost (issue 26): a full listing with and without the catalog, at 5,000 entrypoints, in one run.

`python -m bench.catalog_cost [--size N] [--rounds R]`: generates a docroot of N
entrypoints (`bench.docroot_gen`), then for R rounds, alternating which goes
first, connects a FastMCP client (in memory, legacy handshake) to a fresh server
with no parse store and times, at the client, the handshake plus one full listing
(resources, templates, prompts, tools: the cold listing that builds the
docroot), then a second full listing (warm). The server without the catalog is
the same server with the catalog taken out of its middleware. Prints one JSON object:
medians and per-round ratios (with / without), and the catalog's size.

The client-side figures include FastMCP's conversion of 25,000 components and
vary with the machine's load; `parts` times Guide's own part in one thread,
alternating per round: on a fresh build of the docroot (no store), the listing
components (resources, templates, prompts) alone, against the catalog and then
the same components.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

from fastmcp import Client

from bench.docroot_gen import generate, static_docroot
from bench.measure import interleave_async, ratio_summary, summary
from guide.docroot.folder import Docroot
from guide.routes.catalog import catalog
from guide.server.app import create_server
from guide.server.catalog import Catalog
from guide.server.hooks import Hooks
from guide.server.provider import DocrootProvider
from guide.server.service import Service

STATIC = "guide://_static"
"""B1's command: a read every request pays the middleware for."""


def without_catalog(server) -> None:
    """Take the catalog out of the server's middleware (`guide.server.hooks`)."""
    hooks = Hooks.of(server)
    for part in hooks.parts("tools/list"):
        if isinstance(part, Catalog):
            hooks.remove(part)


async def listing(client: Client) -> None:
    """One full listing, as a client that browses everything asks for it."""
    await client.list_resources()
    await client.list_resource_templates()
    await client.list_prompts()
    await client.list_tools()


async def session(root: Path, project: Path, with_catalog: bool) -> dict:
    server = create_server(root, project, watch=False)
    if not with_catalog:
        without_catalog(server)
    began = time.perf_counter()
    async with Client(server, mode="legacy") as client:
        await listing(client)
        cold = time.perf_counter() - began
        middle = time.perf_counter()
        await listing(client)
        warm = time.perf_counter() - middle
        tool = next(tool.description for tool in await client.list_tools() if tool.name == "read_resource")
        instructions = client.instructions or ""
    return {"cold_s": cold, "warm_s": warm, "tool_chars": len(tool), "instructions_chars": len(instructions)}


def listing_part(root: Path, with_catalog: bool) -> dict:
    """Guide's part of a first listing on a fresh build, in this thread: the catalog (if asked) then the components."""
    docroot = Docroot(root)
    provider = DocrootProvider(Service(docroot))
    began = time.perf_counter()
    built = docroot.current()
    scanned = time.perf_counter()
    made = catalog(built) if with_catalog else ""
    middle = time.perf_counter()
    count = len(provider._resources(built)) + len(provider._templates(built)) + len(provider._prompts(built))
    ended = time.perf_counter()
    return {"total_s": ended - began, "catalog_s": middle - scanned, "components": count, "chars": len(made)}


async def warm_requests(rounds: int) -> dict:
    """A warm `tools/list` and handshake (the catalog already made) with and without the catalog, on the bundled example."""
    from guide.examples import DOCROOT

    results = {}
    with tempfile.TemporaryDirectory() as project:
        servers = {side: create_server(DOCROOT, Path(project), watch=False) for side in ("with", "without")}
        without_catalog(servers["without"])
        async with Client(servers["with"], mode="legacy") as with_client, Client(servers["without"], mode="legacy") as without_client:
            listed = await interleave_async({"with": with_client.list_tools, "without": without_client.list_tools}, rounds=rounds, inner=50)
        results["tools_list"] = {"with_ms": summary([v * 1000 for v in listed["with"]]), "ratio": ratio_summary(listed["with"], listed["without"])}

        async def handshake(side: str) -> None:
            async with Client(servers[side], mode="legacy"):
                pass

        shaken = await interleave_async({side: (lambda side=side: handshake(side)) for side in servers}, rounds=rounds, inner=10)
        results["handshake"] = {"with_ms": summary([v * 1000 for v in shaken["with"]]), "ratio": ratio_summary(shaken["with"], shaken["without"])}
        static = static_docroot(Path(project) / "static")
        readers = {side: create_server(static, Path(project), watch=False) for side in ("with", "without")}
        without_catalog(readers["without"])
        async with Client(readers["with"], mode="legacy") as with_client, Client(readers["without"], mode="legacy") as without_client:
            read = await interleave_async(
                {"with": lambda: with_client.read_resource(STATIC), "without": lambda: without_client.read_resource(STATIC)}, rounds=rounds * 3, inner=50
            )
        results["static_read"] = {"with_ms": summary([v * 1000 for v in read["with"]]), "ratio": ratio_summary(read["with"], read["without"])}
    return results


def parts(root: Path, rounds: int) -> dict:
    runs: dict[str, list[dict]] = {"with": [], "without": []}
    listing_part(root, True)  # warm-up: imports, compiled patterns
    listing_part(root, False)
    for index in range(rounds):
        for side in ("with", "without") if index % 2 == 0 else ("without", "with"):
            runs[side].append(listing_part(root, side == "with"))
    totals = {side: [run["total_s"] for run in runs[side]] for side in runs}
    return {
        "listing_with_catalog_s": summary(totals["with"]),
        "listing_without_catalog_s": summary(totals["without"]),
        "ratio": ratio_summary(totals["with"], totals["without"]),
        "catalog_share": summary([run["catalog_s"] / run["total_s"] for run in runs["with"]]),
        "components": runs["with"][0]["components"],
        "catalog_chars": runs["with"][0]["chars"],
    }


async def run(size: int, rounds: int) -> dict:
    os.environ["GUIDE_NO_CACHE"] = "1"  # every server parses from scratch: the cold listing is the one that builds
    with tempfile.TemporaryDirectory() as folder:
        root, project = Path(folder) / "docroot", Path(folder) / "project"
        project.mkdir()
        generate(root, size)
        guide_part = parts(root, rounds)
        await session(root, project, True)  # warm the interpreter's own imports and caches once
        runs: dict[str, list[dict]] = {"with": [], "without": []}
        for index in range(rounds):
            for side in ("with", "without") if index % 2 == 0 else ("without", "with"):
                runs[side].append(await session(root, project, side == "with"))
    figures = {}
    for key in ("cold_s", "warm_s"):
        figures[key] = {
            "with": summary([run[key] for run in runs["with"]]),
            "without": summary([run[key] for run in runs["without"]]),
            "ratio": ratio_summary([run[key] for run in runs["with"]], [run[key] for run in runs["without"]]),
        }
    sizes = {key: runs["with"][0][key] for key in ("tool_chars", "instructions_chars")}
    plain = {key: runs["without"][0][key] for key in ("tool_chars", "instructions_chars")}
    return {"size": size, "rounds": rounds, "guide_part": guide_part, "figures": figures, "with_catalog_chars": sizes, "without_catalog_chars": plain}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--parts-only", action="store_true", help="time Guide's own part only (no client)")
    parser.add_argument("--warm-only", action="store_true", help="time a warm tools/list and handshake only")
    options = parser.parse_args()
    if options.warm_only:
        print(json.dumps(asyncio.run(warm_requests(options.rounds)), indent=2))
        return
    if options.parts_only:
        os.environ["GUIDE_NO_CACHE"] = "1"
        with tempfile.TemporaryDirectory() as folder:
            generate(Path(folder), options.size)
            print(json.dumps({"size": options.size, "rounds": options.rounds, "guide_part": parts(Path(folder), options.rounds)}, indent=2))
        return
    print(json.dumps(asyncio.run(run(options.size, options.rounds)), indent=2))


if __name__ == "__main__":
    main()
