"""B11: requests/s of one replica vs three replicas behind nginx (deploy/nginx-guide.conf), same machine.

Not part of `python -m bench` (it needs nginx): run `python -m bench.suite.b11_replicas`.
Three `guide serve --transport http` replicas on the B1 docroot and nginx with the
documented configuration start once (the deployment tests' harness, so the figure is
for exactly the tested setup). Runs of a fixed length alternate between one replica
addressed directly and nginx in front of all three; the load is B7's (C clients, one
connection each, raw 2026-07-28 `resources/read` of `guide://_static`). Every process
shares the machine's cores with the load generator, so the CPU each side used is
reported next to the rate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

import httpx2

from bench.harness.common import REPO, child_env
from bench.harness.docroot_gen import static_docroot
from bench.harness.measure import summary
from bench.harness.procs import cpu_seconds
from bench.suite.b7_http import load, read_once

sys.path.insert(0, str(REPO / "tests" / "deploy"))
from deploy_cluster import Nginx, cluster  # noqa: E402  (the tests' harness: the same configuration file, the same processes)


def _family(pid: int) -> list[int]:
    """A process and its children (nginx's master and its workers)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return [pid, *map(int, children)]


def _cpu(pids: dict[str, list[int]]) -> dict[str, float]:
    used = {name: sum(cpu_seconds(pid) or 0.0 for pid in group) for name, group in pids.items()}
    return {**used, "load generator": time.process_time()}


async def _measure(urls: dict[str, str], processes: dict[str, list[int]], clients: int, seconds: float, runs: int) -> dict[str, list[dict]]:
    async with httpx2.AsyncClient() as client:
        text = await read_once(client, urls["1 replica"])
        for url in urls.values():
            assert await read_once(client, url) == text
    for url in urls.values():  # warm up every replica (round-robin reaches all three) and nginx's connections
        await load(url, clients, min(1.0, seconds), text)
    pids = {name: [child for pid in group for child in _family(pid)] for name, group in processes.items()}  # nginx has forked its workers by now
    results: dict[str, list[dict]] = {name: [] for name in urls}
    for index in range(runs):
        for name in list(urls) if index % 2 == 0 else list(urls)[::-1]:
            before = _cpu(pids)
            run = await load(urls[name], clients, seconds, text)
            after = _cpu(pids)
            run["cpu_ms_per_request"] = {part: (after[part] - before[part]) / run["requests"] * 1e3 for part in after}
            run["cores_busy"] = sum(after[part] - before[part] for part in after) / run["seconds"]
            results[name].append(run)
    return results


def main(argv: list[str] | None = None) -> int:
    """Run B11 and print its table; `--out FILE` also writes the figures as JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.suite.b11_replicas", description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    results = _setups_measured(options.clients, options.seconds, options.runs)
    rps = {name: summary([run["rps"] for run in runs]) for name, runs in results.items()}
    ratio = summary([three["rps"] / one["rps"] for one, three in zip(results["1 replica"], results["3 replicas + nginx"])])
    hop_ratio = summary([three["rps"] / one["rps"] for one, three in zip(results["1 replica + nginx"], results["3 replicas + nginx"])])
    load_after = os.getloadavg()[0]
    print(f"B11: {options.clients} clients, {options.runs} alternating {options.seconds:g}-second runs each, {os.cpu_count()} cores, "
          f"load average {load_before:.1f} at the start and {load_after:.1f} at the end")
    parts = ("replicas", "nginx", "load generator")
    print("| setup | req/s (median, IQR) | CPU ms per request: " + " / ".join(parts) + " | cores busy |\n|---|---|---|---|")
    for name, runs in results.items():
        cpu = " / ".join(f"{summary([run['cpu_ms_per_request'][part] for run in runs])['median']:.2f}" for part in parts)
        cores = summary([run["cores_busy"] for run in runs])["median"]
        print(f"| {name} | {rps[name]['median']:.0f} ({rps[name]['p25']:.0f}-{rps[name]['p75']:.0f}) | {cpu} | {cores:.2f} |")
    print(f"ratio 3 replicas + nginx / 1 replica: {ratio['median']:.2f} (IQR {ratio['p25']:.2f}-{ratio['p75']:.2f}); "
          f"/ 1 replica + nginx: {hop_ratio['median']:.2f}")
    if options.out:
        figures = {"id": "B11", "rps": rps, "ratio": ratio, "ratio_same_hop": hop_ratio, "runs": results, "cpus": os.cpu_count(),
                   "loadavg": [load_before, load_after]}
        options.out.write_text(json.dumps(figures, indent=2))
    return 0


def _setups_measured(clients: int, seconds: float, runs: int) -> dict[str, list[dict]]:
    """Start the cluster and the one-replica hop, and run the load against the three setups in turn."""
    env = {**child_env(), "GUIDE_STATE_KEYS": secrets.token_hex(32)}
    with tempfile.TemporaryDirectory(prefix="guide-b11-") as temp:
        workdir = Path(temp)
        docroot = static_docroot(workdir / "docroot")
        with cluster(workdir / "cluster", env, docroot=docroot) as (front, replicas):
            # The same file with all three upstream lines naming the first replica: the cost of the hop alone.
            hop = Nginx(workdir / "hop", [replicas[0]] * 3).start()
            try:
                urls = {"1 replica": replicas[0].url, "1 replica + nginx": hop.url, "3 replicas + nginx": front.url}
                processes = {"replicas": [replica.process.pid for replica in replicas], "nginx": [front.process.pid, hop.process.pid]}
                return asyncio.run(_measure(urls, processes, clients, seconds, runs))
            finally:
                hop.stop()


if __name__ == "__main__":
    raise SystemExit(main())
