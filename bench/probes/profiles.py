"""Profile what B8-B10 time: `python -m bench.probes.profiles [--size N] [--docroot DIR] [--out DIR]`.

Four profiles of real processes over stdio (pyinstrument, through
`bench.probes.profiled`), each cut into segments at the phases the benchmarks time:

- guide-listing: segment 0 start to connected, 1 first full listing, 2 second listing (B8, B10)
- baseline-listing: the same for `bench.harness.listing_server` with Guide's items (B8's floor)
- guide-help: segment 0 start to the answer of a first `guide://_help` read (B9)
- check: `guide check` (B10)

Every Guide process gets an empty parse cache (with `--primed`, the listing and
help servers get the parses a `guide check` kept, as after a restart). Each segment's files are
described in `bench/probes/profiled.py`; the sums by library are printed at the end,
for the main thread (the event loop: FastMCP's part of a listing) and for the
work Guide's requests ran in worker threads (Guide's part).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from fastmcp import Client

from bench.harness.common import REPO, log, project_dir, quiet
from bench.harness.docroot_gen import generate
from bench.harness.procs import child_pid, python_transport, timed_run
from bench.suite.b8_listing import guide_cache_env, items_of, list_all

MODE = "legacy"
"""The era the profiled clients speak. Legacy, whose handshake is answered only once the child is up (its SIGUSR1 handler set;
a 2026-07-28 client connects without a request). Named, since an auto client's era probe can time out against a server
slowed by the profiler, and then the handshake it falls back to is refused."""


async def _cut(out: Path) -> None:
    """End the profiled child's current segment and wait until it is written."""
    written = len(list(out.glob("segment-*.pyisession")))
    os.kill(child_pid(str(out)), signal.SIGUSR1)
    for _ in range(600):
        await asyncio.sleep(0.1)
        if len(list(out.glob("segment-*.pyisession"))) > written:
            return
    raise TimeoutError(f"the profiled process did not write segment {written} to {out}")


async def _listing(out: Path, module_args: list[str], env: dict[str, str], log_file: Path) -> dict:
    args = ["-m", "bench.probes.profiled", str(out), *module_args]
    async with Client(python_transport(args, log_file, env), mode=MODE) as client:
        await _cut(out)
        listing = await list_all(client)
        await _cut(out)
        await list_all(client)
        await _cut(out)
    return listing


async def _help(out: Path, module_args: list[str], env: dict[str, str], log_file: Path) -> None:
    async with Client(python_transport(["-m", "bench.probes.profiled", str(out), *module_args], log_file, env), mode=MODE) as client:
        await client.read_resource("guide://_help")
        await _cut(out)


async def profile(root: Path, out: Path, workdir: Path, primed: bool = False) -> None:
    for name in ("guide-listing", "baseline-listing", "guide-help", "check"):
        shutil.rmtree(out / name, ignore_errors=True)
    project = project_dir(workdir)
    serve = ["guide", "serve", "--docroot", str(root), "--project", str(project)]
    if primed:
        for label in ("listing", "help"):
            await timed_run([sys.executable, "-m", "guide", "check", str(root)], env=guide_cache_env(workdir, label))
    log("profiling Guide's listing ...")
    listing = await _listing(out / "guide-listing", serve, guide_cache_env(workdir, "listing"), workdir / "serve.log")
    items = workdir / "items.json"
    items.write_text(json.dumps(items_of(listing)), encoding="utf-8")
    log("profiling the baseline's listing ...")
    await _listing(out / "baseline-listing", ["bench.harness.listing_server", str(items)], {}, workdir / "baseline.log")
    log("profiling start + first _help ...")
    await _help(out / "guide-help", serve, guide_cache_env(workdir, "help"), workdir / "serve.log")
    log("profiling guide check ...")
    await timed_run([sys.executable, "-m", "bench.probes.profiled", str(out / "check"), "guide", "check", str(root)], env=guide_cache_env(workdir, "check"))
    for summary in sorted(out.glob("*/segment-*.json")):
        data = json.loads(summary.read_text(encoding="utf-8"))
        if summary.stem.endswith("-workers") and not data["pieces"]:
            continue
        top = ", ".join(f"{name} {seconds:.2f}" for name, seconds in list(data["self_s_by_library"].items())[:6])
        where = f"{data['pieces']} pieces in worker threads, {data['worker_wall_s']:.2f} s" if "pieces" in data else "main thread"
        print(f"{summary.parent.name}/{summary.stem} ({where}): {data['total_s']:.2f} s (imports {data['importing_s']:.2f} s); self time: {top}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.probes.profiles", description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000, help="entrypoints of the generated docroot (default: 10000)")
    parser.add_argument("--docroot", type=Path, help="profile this docroot instead of generating one")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "profiles", help="output folder")
    parser.add_argument("--primed", action="store_true", help="the listing and help servers start from the parses a `guide check` kept (a restart)")
    options = parser.parse_args()
    quiet()
    with tempfile.TemporaryDirectory(prefix="guide-profile-") as temp:
        workdir = Path(temp)
        root = options.docroot or workdir / "docroot"
        if options.docroot is None:
            generate(root, options.size)
        asyncio.run(profile(root.resolve(), options.out.resolve(), workdir, options.primed))


if __name__ == "__main__":
    main()
