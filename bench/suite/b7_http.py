"""B7: streamable HTTP, 8 concurrent clients reading a static command: requests per second.

Two real server processes run side by side on 127.0.0.1: `python -m guide serve
--transport http` over the B1 docroot, and `python -m bench.harness.bare_server`, a bare
FastMCP server whose one resource returns the same text. Each client is its own
HTTP connection sending stateless 2026-07-28 `resources/read` requests back to
back (raw JSON-RPC, so the load generator stays light); runs of a fixed length,
extended until each client has made a few reads, alternate between the two
servers and the ratio of each Guide run to the bare run next to it is reported.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx2

from bench.harness.common import REPO, Config, child_env, project_dir
from bench.harness.docroot_gen import static_docroot
from bench.harness.measure import summary
from bench.harness.procs import cpu_seconds, free_port, http_serve_command, stop

URI = "guide://_static"
TARGET = 0.85
# A run lasts its window *and* until every client has made this many timed reads, so a
# machine too busy to serve one read in the window still yields a rate (it cannot be 0).
MIN_REQUESTS = 3
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "resources/read",
    "Mcp-Name": URI,
}


def _text(response: httpx2.Response) -> str:
    body = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        body = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")][-1]
    message = json.loads(body)
    if "result" not in message:
        raise AssertionError(f"B7: error response {message}")
    return message["result"]["contents"][0]["text"]


def _body(request_id: int) -> bytes:
    payload = {"jsonrpc": "2.0", "id": request_id, "method": "resources/read", "params": {"uri": URI, "_meta": META}}
    return json.dumps(payload).encode()


async def read_once(client: httpx2.AsyncClient, url: str, request_id: int = 1) -> str:
    response = await client.post(url, content=_body(request_id), headers={**HEADERS, "Content-Type": "application/json"})
    return _text(response)


async def wait_ready(url: str, process: subprocess.Popen, timeout: float = 180.0) -> None:
    deadline = time.perf_counter() + timeout
    async with httpx2.AsyncClient(timeout=5.0) as client:
        while time.perf_counter() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"B7: server exited early with status {process.returncode}")
            try:
                await read_once(client, url)
                return
            except (httpx2.HTTPError, AssertionError, ValueError, KeyError, IndexError):
                await asyncio.sleep(0.1)
    raise AssertionError(f"B7: {url} did not answer within {timeout} s")


async def load(url: str, clients: int, seconds: float, expected: str, pid: int | None = None, min_requests: int = MIN_REQUESTS) -> dict:
    """Each client reads back to back for `seconds` and at least `min_requests` times: requests per second, latency, server CPU."""
    counts = [0] * clients
    latencies: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def worker(index: int) -> None:
        limits = httpx2.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx2.AsyncClient(timeout=30.0, limits=limits) as client:
            if await read_once(client, url) != expected:
                raise AssertionError("B7: wrong text served")
            request_id = 2
            while True:
                began = time.perf_counter()
                if began >= stop_at and counts[index] >= min_requests:
                    return
                response = await client.post(url, content=_body(request_id), headers={**HEADERS, "Content-Type": "application/json"})
                if response.status_code != 200:
                    raise AssertionError(f"B7: HTTP {response.status_code}")
                latencies.append(time.perf_counter() - began)
                counts[index] += 1
                request_id += 1

    cpu_before = cpu_seconds(pid)
    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(clients)))
    elapsed = time.perf_counter() - started
    cpu_after = cpu_seconds(pid)
    requests = sum(counts)
    cpu_ms = (cpu_after - cpu_before) / (requests + clients) * 1e3 if cpu_before is not None and cpu_after is not None else None
    return {"rps": requests / elapsed, "requests": requests, "seconds": elapsed,
            "latency_ms_median": summary(latencies)["median"] * 1e3, "server_cpu_ms_per_request": cpu_ms}


async def run(config: Config, workdir: Path) -> dict:
    """Start Guide and the bare server on the same text, warm both up, then alternate runs of the load between them."""
    root = static_docroot(workdir / "b7-docroot")
    guide_port, bare_port = free_port(), free_port()
    logs = open(workdir / "b7-servers.log", "ab")
    guide = subprocess.Popen(http_serve_command(root, project_dir(workdir), guide_port), cwd=str(REPO), env=child_env(), stdout=logs, stderr=logs)
    bare = None
    try:
        guide_url = f"http://127.0.0.1:{guide_port}/mcp"
        await wait_ready(guide_url, guide)
        async with httpx2.AsyncClient() as client:
            text = await read_once(client, guide_url)
        text_file = workdir / "b7-static.txt"
        text_file.write_text(text, encoding="utf-8")
        bare = subprocess.Popen(
            [sys.executable, "-m", "bench.harness.bare_server", "--text-file", str(text_file), "--port", str(bare_port)],
            cwd=str(REPO), env=child_env(), stdout=logs, stderr=logs,
        )
        bare_url = f"http://127.0.0.1:{bare_port}/mcp"
        await wait_ready(bare_url, bare)
        runs = await _alternated(config, {"guide": guide_url, "baseline": bare_url}, {"guide": guide.pid, "baseline": bare.pid}, text)
    finally:
        for process in (guide, bare):
            if process is not None:
                stop(process)
        logs.close()
    return _result(config, runs)


async def _alternated(config: Config, urls: dict[str, str], pids: dict[str, int], text: str) -> dict[str, list[dict]]:
    for name in urls:  # warm both servers up
        await load(urls[name], config.http_clients, min(1.0, config.http_seconds), text)
    runs: dict[str, list[dict]] = {"guide": [], "baseline": []}
    for index in range(config.http_runs):
        for name in (["guide", "baseline"] if index % 2 == 0 else ["baseline", "guide"]):
            runs[name].append(await load(urls[name], config.http_clients, config.http_seconds, text, pids[name]))
    return runs


def _result(config: Config, runs: dict[str, list[dict]]) -> dict:
    guide_rps = [r["rps"] for r in runs["guide"]]
    bare_rps = [r["rps"] for r in runs["baseline"]]
    ratio = summary([g / b for g, b in zip(guide_rps, bare_rps)])
    cpu = {name: [r["server_cpu_ms_per_request"] for r in runs[name] if r["server_cpu_ms_per_request"] is not None] for name in runs}
    cpu_ratio = summary([g / b for g, b in zip(cpu["guide"], cpu["baseline"])]) if cpu["guide"] and cpu["baseline"] else None
    return {
        "id": "B7",
        "what": f"streamable HTTP, {config.http_clients} concurrent clients, static command, requests per second",
        "target": f"ratio >= {TARGET}",
        "unit": "req/s",
        "guide": summary(guide_rps),
        "baseline": summary(bare_rps),
        "ratio": ratio,
        "server_cpu_ms_per_request": {name: summary(values) for name, values in cpu.items()},
        "server_cpu_ratio": cpu_ratio,
        "server_cpu_note": "server process CPU (user+sys) per request; guide/bare > 1 means Guide spends more CPU per read",
        "run_seconds": config.http_seconds,
        "clients": config.http_clients,
        "min_requests_per_client": MIN_REQUESTS,
        "runs": runs,
        "met": ratio["median"] >= TARGET,
    }
