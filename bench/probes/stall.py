"""Stall: does a client sending the largest address Guide accepts slow down everybody else?

    python -m bench.probes.stall               # the recorded run (BENCHMARKS.md)
    python -m bench.probes.stall --smoke       # a few rounds

One `guide serve --transport http` process on 127.0.0.1 serves the bundled
example docroot. A victim client reads `guide://lang/python` again and again and
times each read, under three loads that alternate round by round:

- none: the victim alone;
- normal: one other client reading a normal document back to back;
- largest: one other client sending, back to back, the largest input Guide
  accepts: an address of `address.MAX_LENGTH` characters with thousands of path
  segments, the same length of prompt text, and the tool with that address.

The figures are ratios of the victim's median read time in the same run:
largest / none (the issue's "small multiple") and largest / normal (what the
largest input costs beyond any other load). Before issue 10, one such address
held every other client for seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fastmcp import Client
from mcp import MCPError

from bench.harness.common import EXAMPLE_DOCROOT, quiet
from bench.harness.measure import summary
from bench.harness.procs import free_port, http_serve_command, running
from bench.probes.soak import wait_ready
from guide.address import MAX_LENGTH

VICTIM = "guide://lang/python"
NORMAL = "guide://lang/typescript"
LONGEST = "guide://_help" + "/a" * ((MAX_LENGTH - len("guide://_help")) // 2)
LONGEST_LINE = "_" + "a/" * (MAX_LENGTH // 2 - 1)
TARGET = 3.0
"""largest / none, median: another client's read stays within this multiple of its time alone."""


async def attacker(url: str, kind: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    """One client sending `kind` requests back to back until `stop` is set."""
    async with Client(url, mode="2026-07-28", timeout=120) as client:
        index = 0
        while not stop.is_set():
            index += 1
            try:
                if kind == "normal":
                    await client.read_resource(NORMAL)
                elif index % 3 == 0:
                    await client.get_prompt("guide", {"command": LONGEST_LINE})
                elif index % 3 == 1:
                    await client.call_tool("read_resource", {"uri": LONGEST}, raise_on_error=False)
                else:
                    await client.read_resource(LONGEST)
            except MCPError:
                pass  # the largest inputs name nothing: refusing them is the point
            counts[kind] = counts.get(kind, 0) + 1


async def victim_reads(client: Client, reads: int) -> list[float]:
    """Seconds per read of the victim's document."""
    times = []
    for _ in range(reads):
        began = time.perf_counter()
        text = (await client.read_resource(VICTIM))[0].text
        times.append(time.perf_counter() - began)
        if not text:
            raise AssertionError("stall: the victim read an empty document")
    return times


async def run(rounds: int, reads: int, workdir: Path) -> dict:
    """Time the victim under each load, rounds alternating the order of the loads."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    medians: dict[str, list[float]] = {"none": [], "normal": [], "largest": []}
    counts: dict[str, int] = {}
    with running(http_serve_command(EXAMPLE_DOCROOT, workdir, port), workdir / "server.log") as server:
        await wait_ready(url, server)
        async with Client(url, mode="2026-07-28", timeout=120) as victim:
            await victim_reads(victim, reads)  # warm up
            for index in range(rounds):
                loads = ["none", "normal", "largest"]
                for load in loads if index % 2 == 0 else loads[::-1]:
                    medians[load].append(statistics.median(await _under(url, load, victim, reads, counts)))
    pairs = {"largest_over_none": ("largest", "none"), "largest_over_normal": ("largest", "normal"), "normal_over_none": ("normal", "none")}
    per_round = {name: [top / bottom for top, bottom in zip(medians[upper], medians[lower])] for name, (upper, lower) in pairs.items()}
    ratio = summary(per_round["largest_over_none"])
    return {
        "id": "stall",
        "what": "a victim's read while one other client sends the largest accepted address, prompt text and tool call",
        "address_length": len(LONGEST),
        "victim_ms": {load: summary([m * 1e3 for m in values]) for load, values in medians.items()},
        "ratios": {name: summary(values) for name, values in per_round.items()},
        "attacker_requests": counts,
        "target": f"largest / none <= {TARGET}",
        "met": ratio["median"] <= TARGET,
    }


async def _under(url: str, load: str, victim: Client, reads: int, counts: dict[str, int]) -> list[float]:
    if load == "none":
        return await victim_reads(victim, reads)
    stop = asyncio.Event()
    task = asyncio.create_task(attacker(url, load, stop, counts))
    before = counts.get(load, 0)
    while counts.get(load, 0) < before + 3:  # the attacker is connected and sending
        await asyncio.sleep(0.01)
        if task.done():
            await task
    try:
        return await victim_reads(victim, reads)
    finally:
        stop.set()
        await task


def main(argv: list[str] | None = None) -> int:
    """Run the stall benchmark and print its ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench.probes.stall", description="A victim's read time while another client sends the largest input.")
    parser.add_argument("--smoke", action="store_true", help="two short rounds")
    parser.add_argument("--rounds", type=int, default=None, help="rounds of the three loads (default: 12)")
    parser.add_argument("--reads", type=int, default=None, help="victim reads per load per round (default: 40)")
    parser.add_argument("--out", type=Path, default=None, help="write every figure as JSON")
    options = parser.parse_args(argv)
    quiet()
    rounds = options.rounds or (2 if options.smoke else 12)
    reads = options.reads or (5 if options.smoke else 40)
    with tempfile.TemporaryDirectory(prefix="guide-stall-") as temp:
        result = asyncio.run(run(rounds, reads, Path(temp)))
    if options.out:
        options.out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    victim = result["victim_ms"]
    ratios = result["ratios"]
    print(f"victim read, median ms: alone {victim['none']['median']:.2f}, beside a normal reader {victim['normal']['median']:.2f}, "
          f"beside the largest input {victim['largest']['median']:.2f}")
    for name, stats in ratios.items():
        print(f"{name}: {stats['median']:.2f} (IQR {stats['p25']:.2f}-{stats['p75']:.2f})")
    print(f"target {result['target']}: {'met' if result['met'] else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
