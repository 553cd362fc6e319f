"""What an upstream FastMCP/SDK change would buy a large listing: a local experiment, not a benchmark.

    python -m bench.upstream_listing [--size 10000] [--rounds 3]

B8's floor is the baseline: FastMCP listing ready-made components. This starts
that baseline over stdio in four variants, each a fresh process, in alternating
order, and times a first and a second full listing (resources, templates and
prompts) of what Guide lists for a generated docroot of `--size` entrypoints:

- `plain`: FastMCP as released (B8's baseline).
- `memo`: FastMCP keeps each list result while its components are the same
  objects, instead of converting every component to an SDK object per request.
- `memo+trusted`: as `memo`, and the SDK does not validate a result it was
  handed already typed before writing it.
- `wire`: the handler returns the result already dumped; only JSON encoding is left.

The variants patch FastMCP and SDK internals inside the child process only: they
show what such hooks would be worth, and Guide itself uses none of them. Each
variant's listing is checked equal to the plain one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

from fastmcp.server.mixins.mcp_operations import MCPOperationsMixin
from mcp_types import methods

from bench.b8_listing import guide_cache_env, items_of, listing_session, write_items
from bench.common import project_dir
from bench.docroot_gen import generate
from bench.listing_server import ready_server
from bench.procs import python_transport, serve_transport

VARIANTS = ("plain", "memo", "memo+trusted", "wire")
LISTS = {"resources/list", "resources/templates/list", "prompts/list"}
HANDLERS = ("_on_list_resources", "_on_list_resource_templates", "_on_list_prompts")


def serve(variant: str, items_file: Path) -> None:
    """Run the B8 baseline over stdio, patched as `variant` says."""
    if variant != "plain":
        kept: dict[str, object] = {}
        for name in HANDLERS:
            original = getattr(MCPOperationsMixin, name)

            async def keeping(self, ctx, params, _original=original, _name=name):
                if _name not in kept:
                    result = await _original(self, ctx, params)
                    kept[_name] = result.model_dump(by_alias=True, mode="json", exclude_none=True) if variant == "wire" else result
                found = kept[_name]
                return dict(found) if isinstance(found, dict) else found

            setattr(MCPOperationsMixin, name, keeping)
    if variant in ("memo+trusted", "wire"):
        validate = methods.serialize_server_result
        methods.serialize_server_result = lambda method, version, data, **options: (
            data if method in LISTS else validate(method, version, data, **options)
        )
    ready_server(json.loads(items_file.read_text(encoding="utf-8"))).run(transport="stdio", show_banner=False)


async def measure(size: int, rounds: int) -> dict[str, dict[str, float]]:
    """Median first and second listing time per variant, over `rounds` interleaved rounds."""
    with tempfile.TemporaryDirectory(prefix="guide-upstream-") as temp:
        work = Path(temp)
        root = work / "docroot"
        info = generate(root, size)
        items_file = work / "items.json"
        guide = await listing_session(serve_transport(root, project_dir(work), work / "guide.log", guide_cache_env(work, "guide")), str(root))
        write_items(items_file, guide["listing"], info)
        reference = items_of(guide["listing"])
        times: dict[str, list[dict]] = {variant: [] for variant in VARIANTS}
        for r in range(rounds):
            for variant in VARIANTS if r % 2 == 0 else VARIANTS[::-1]:
                transport = python_transport(["-m", "bench.upstream_listing", "--serve", variant, str(items_file)], work / "variant.log")
                run = await listing_session(transport, str(items_file))
                if items_of(run.pop("listing")) != reference:
                    raise AssertionError(f"variant {variant} lists different items")
                times[variant].append(run)
            print(f"round {r + 1} of {rounds}", file=sys.stderr)
    return {
        variant: {key: statistics.median(run[key] for run in runs) for key in ("first_s", "second_s")}
        for variant, runs in times.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.upstream_listing", description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10000, help="entrypoints in the generated docroot (default: 10000)")
    parser.add_argument("--rounds", type=int, default=3, help="starts per variant (default: 3)")
    parser.add_argument("--serve", nargs=2, metavar=("VARIANT", "ITEMS"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.serve[0], Path(options.serve[1]))
        return
    figures = asyncio.run(measure(options.size, options.rounds))
    plain = figures["plain"]
    print("| variant | first listing (s) | second listing (s) | second / plain second |\n|---|---|---|---|")
    for variant, figure in figures.items():
        print(f"| {variant} | {figure['first_s']:.2f} | {figure['second_s']:.2f} | {figure['second_s'] / plain['second_s']:.2f} |")


if __name__ == "__main__":
    main()
