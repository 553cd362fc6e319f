"""Event-loop probe: how long one request holds the server's event loop right after an edit, at 5,000 entrypoints.

    python -m bench.probes.loop_probe                 # the recorded run (BENCHMARKS.md)
    python -m bench.probes.loop_probe --smoke         # a tiny version of the same run

One `guide serve --transport http` server on 127.0.0.1 (started as `guide serve`
starts it, with a timer probe on its event loop: `bench.probes.loop_lag`) serves a
generated docroot with its parses kept. For each request kind (a document read,
a command read, `skills/list`, help, a completion, a full resource listing, one
page of it), after each kind of edit (a command written in place, or a new file
renamed over it, as editors save) and at each moment (at once, before the watch
has seen the edit: "early"; and once it has settled), the probe is reset, the
request sent, and the longest the loop was held meanwhile read back. The figure
is the median over the repeats, against the probe's own longest lag on a quiet
server. Target: no read, `skills/list`, help or completion holds the loop for
more than 25 ms or 5x the quiet figure. Listings are reported, not judged: their
conversion to the wire is FastMCP's own work on the loop, one page at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from fastmcp import Client
from fastmcp.skills.client import SkillsClientExtension
from mcp_types import PromptReference

from bench.harness.common import child_env, log, quiet
from bench.harness.docroot_gen import generate
from bench.harness.procs import free_port, running
from bench.probes.loop_lag import probed_lags

TARGET_MS = 25.0
TARGET_RATIO = 5.0
PAGE = 200


@dataclass(frozen=True)
class Plan:
    """What one run measures."""

    entrypoints: int = 5000
    repeats: int = 3
    settle: float = 1.5
    """Seconds after an edit by which the watch has seen it and the listings were compared (its quiet is 0.3 s)."""
    edits: tuple[str, ...] = ("in place", "renamed over")
    kinds: tuple[str, ...] | None = None
    """The request kinds measured (None: all)."""
    pages: tuple[int, ...] = (0, PAGE)

    @classmethod
    def smoke(cls) -> Plan:
        return cls(entrypoints=60, repeats=1, settle=0.8, edits=("renamed over",), kinds=("command read", "help", "resources/list"), pages=(0,))


async def _requests(client: Client, info: dict) -> dict:
    async def document() -> None:
        await client.read_resource("guide://docs/d000/doc00000")

    async def command() -> None:
        await client.read_resource(info["static_uri"])

    async def skills() -> None:
        await client.list_skills()

    async def help_overview() -> None:
        await client.read_resource("guide://_help")

    async def completion() -> None:
        await client.complete(PromptReference(name="guide"), {"name": "command", "value": "_g00"})

    async def listing() -> None:
        await client.list_resources_mcp()

    return {"document read": document, "command read": command, "skills/list": skills, "help": help_overview, "completion": completion,
            "resources/list": listing}


def _edit(root: Path, info: dict, how: str, round_: int) -> None:
    target = root / info["static_command_path"]
    text = target.read_text(encoding="utf-8").split("\n<!-- edit")[0] + f"\n<!-- edit {round_} -->\n"
    if how == "in place":
        target.write_text(text, encoding="utf-8")
    else:  # as editors save: a new file, renamed over the old one
        fresh = target.with_name(f".{target.name}.tmp")
        fresh.write_text(text, encoding="utf-8")
        os.replace(fresh, target)


async def measure(url: str, server, lag_file: Path, root: Path, info: dict, plan: Plan, repeats: int) -> dict:
    """Every request kind after every edit and at every moment; the quiet figure first."""
    async with Client(url, mode="auto", extensions=[SkillsClientExtension()]) as client:
        requests = {name: request for name, request in (await _requests(client, info)).items() if plan.kinds is None or name in plan.kinds}
        for request in requests.values():
            await request()  # everything built once: what is measured is what an edit costs
        await asyncio.sleep(plan.settle)
        await probed_lags(server, lag_file)
        await asyncio.sleep(1.0)
        quiet_ms = (await probed_lags(server, lag_file)).get("max_ms", 0.0)
        results, round_ = {}, 0
        for how in plan.edits:
            for moment in ("early", "settled"):
                for name, request in requests.items():
                    held = []
                    for _ in range(repeats):
                        round_ += 1
                        _edit(root, info, how, round_)
                        await asyncio.sleep(plan.settle if moment == "settled" else 0)
                        await probed_lags(server, lag_file)
                        began = time.perf_counter()
                        await request()
                        took = time.perf_counter() - began
                        held.append(((await probed_lags(server, lag_file)).get("max_ms", 0.0), took))
                        await asyncio.sleep(plan.settle)  # the next round starts from a settled server
                    results[f"{name} | {how} | {moment}"] = {
                        "held_ms": round(statistics.median(h for h, _ in held), 1),
                        "request_ms": round(statistics.median(t for _, t in held) * 1e3, 1),
                    }
                    log(f"  loop probe: {name}, {how}, {moment}: {results[f'{name} | {how} | {moment}']}")
    return {"quiet_ms": quiet_ms, "cases": results}


async def run(plan: Plan, workdir: Path) -> dict:
    """Generate the docroot, keep its parses, serve it once per page size (one page, and pages of `PAGE`), and measure."""
    root = workdir / "docroot"
    info = generate(root, plan.entrypoints)
    env = {"GUIDE_CACHE_DIR": str(workdir / "cache")}
    await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "guide", "check", str(root)], env={**child_env(), **env}, capture_output=True)
    figures = {}
    for page in plan.pages:
        label = f"pages of {page}" if page else "one page"
        port, lag_file = free_port(), workdir / f"lags-{page}.jsonl"
        url = f"http://127.0.0.1:{port}/mcp"
        command = [sys.executable, "-m", "bench.probes.loop_lag", str(root), str(workdir), str(port), str(lag_file), str(page)]
        with running(command, workdir / f"server-{page}.log", env=env) as server:
            await _healthy(port, server)
            figures[label] = await measure(url, server, lag_file, root, info, plan, plan.repeats if page == 0 else 1)
    return {"entrypoints": info["entrypoints"], "repeats": plan.repeats, "figures": figures, "met": _met(figures["one page"])}


async def _healthy(port: int, server) -> None:
    """Wait until the server's health check says 200 (the docroot is loaded)."""
    for _ in range(600):
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("the server did not get healthy within a minute")


def _met(figure: dict) -> bool:
    limit = max(TARGET_MS, TARGET_RATIO * figure["quiet_ms"])
    return all(case["held_ms"] <= limit for name, case in figure["cases"].items() if not name.startswith("resources/list"))


def main(argv: list[str] | None = None) -> int:
    """Run the probe and print its table."""
    parser = argparse.ArgumentParser(prog="python -m bench.probes.loop_probe", description="How long one request holds the event loop after an edit.")
    parser.add_argument("--smoke", action="store_true", help="a tiny version of the run")
    parser.add_argument("--entrypoints", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="write every figure as JSON")
    options = parser.parse_args(argv)
    quiet()
    plan = Plan.smoke() if options.smoke else Plan(options.entrypoints, options.repeats)
    with tempfile.TemporaryDirectory(prefix="guide-loop-") as temp:
        result = asyncio.run(run(plan, Path(temp)))
    if options.out:
        options.out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    for label, figure in result["figures"].items():
        print(f"{label}: quiet {figure['quiet_ms']} ms")
        for name, case in figure["cases"].items():
            print(f"  {name}: loop held {case['held_ms']} ms (request {case['request_ms']} ms)")
    print(f"target (reads, skills/list, help, completion <= {TARGET_MS:g} ms or {TARGET_RATIO:g}x quiet): {'met' if result['met'] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
