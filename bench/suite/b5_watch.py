"""B5: one file edited in the largest generated docroot: time until a read serves the new text.

A real `python -m guide serve` process (stdio, watching) serves the docroot; the
benchmark rewrites one command file with a new marker, then reads that command
back to back until the marker appears. The latency runs from the moment the write
is closed to the first read that returns the new text. The docroot is checked
once first (`guide check`), as after any earlier run: the server's start check is
then read from the kept report instead of linting the whole docroot on the edits'
time (B4 and B9 measure that first start).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from fastmcp import Client

from bench.harness.common import Config, project_dir
from bench.harness.measure import summary
from bench.harness.procs import serve_transport, timed_run

TARGET_MS = 200.0
POLL_LIMIT_S = 60.0  # a guard against an edit never served, far above any latency (a busy machine must not fail it)


async def run(config: Config, workdir: Path, docroot: Path, info: dict) -> dict:
    path = docroot / info["static_command_path"]
    original = path.read_text(encoding="utf-8")
    uri = info["static_uri"]
    latencies = []
    polls = []
    await timed_run([sys.executable, "-m", "guide", "check", str(docroot)])
    try:
        async with Client(serve_transport(docroot, project_dir(workdir), workdir / "serve-b5.log")) as client:
            await client.read_resource(uri)
            for edit in range(config.edits):
                marker = f"edit-marker-{edit}-{time.time_ns()}"
                await asyncio.sleep(0.4)  # let the watcher settle after the previous edit
                path.write_text(original.replace("# ", f"# {marker} ", 1), encoding="utf-8")
                written = time.perf_counter()
                reads = 0
                while True:
                    text = (await client.read_resource(uri))[0].text
                    reads += 1
                    if marker in text:
                        break
                    if time.perf_counter() - written > POLL_LIMIT_S:
                        raise AssertionError(f"B5: the edit was not served within {POLL_LIMIT_S} s")
                latencies.append((time.perf_counter() - written) * 1e3)
                polls.append(reads)
    finally:
        path.write_text(original, encoding="utf-8")
    stats = summary(latencies)
    return {
        "id": "B5",
        "what": f"one command file edited in the {info['entrypoints']}-entrypoint docroot: time until a read serves the new text",
        "target": f"<= {TARGET_MS:g} ms",
        "unit": "ms",
        "figure": stats["median"],
        "latency_ms": stats,
        "reads_per_edit": polls,
        "met": stats["median"] <= TARGET_MS,
    }
