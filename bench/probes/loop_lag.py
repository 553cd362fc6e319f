"""A timer probe on a benchmarked server's event loop: how late a 5 ms sleep wakes is how long the loop was held.

    python -m bench.probes.loop_lag DOCROOT PROJECT PORT LAG_FILE [PAGE_SIZE]

serves DOCROOT as `guide serve --transport http --host 127.0.0.1 --port PORT`
does, with the probe on its event loop. On SIGUSR1 the probe appends a summary
of the lags since the last one to LAG_FILE (JSON, one line) and starts afresh;
`probed_lags` sends the signal and reads the line back.
"""

from __future__ import annotations

import asyncio
import json
import signal
import statistics
import sys
from pathlib import Path

PROBE_EVERY = 0.005


class _Probe:
    """Sleeps `PROBE_EVERY` again and again on the server's loop and keeps how late each wake-up was; SIGUSR1 writes and resets."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lags: list[float] = []

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            began = loop.time()
            await asyncio.sleep(PROBE_EVERY)
            self.lags.append(loop.time() - began - PROBE_EVERY)

    def dump(self) -> None:
        lags, self.lags = self.lags, []
        with open(self.path, "a", encoding="utf-8") as file:
            file.write(json.dumps(lag_summary(lags)) + "\n")


class ProbedLoops(asyncio.DefaultEventLoopPolicy):
    """An event-loop policy whose first loop carries the probe, and SIGUSR1 asks it for the lags."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.probe: _Probe | None = _Probe(path)

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        loop = super().new_event_loop()
        probe, self.probe = self.probe, None
        if probe is not None:
            loop.add_signal_handler(signal.SIGUSR1, probe.dump)
            loop.call_soon(lambda: loop.create_task(probe.run()))
        return loop


def lag_summary(lags: list[float]) -> dict:
    """Max, p99 and median of event-loop lags, in ms."""
    if not lags:
        return {"samples": 0}
    ordered = sorted(lags)
    return {"samples": len(ordered), "max_ms": round(ordered[-1] * 1e3, 2), "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1e3, 2),
            "median_ms": round(statistics.median(ordered) * 1e3, 3)}


async def probed_lags(process, path: Path) -> dict:
    """Ask the server's probe for the lags since the last ask."""
    before = path.read_text(encoding="utf-8").count("\n") if path.exists() else 0
    process.send_signal(signal.SIGUSR1)
    for _ in range(400):
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        if len(lines) > before:
            return json.loads(lines[-1])
        await asyncio.sleep(0.05)
    raise RuntimeError("the server's event-loop probe did not answer")


def serve(docroot: str, project: str, port: int, lag_file: str, page_size: int = 0) -> None:
    """Serve as `guide serve --transport http --host 127.0.0.1` does, with the probe on the event loop."""
    from guide.server import http, logs
    from guide.server.app import create_server
    from guide.server.settings import read_settings

    settings = read_settings({"docroot": docroot, "project": project, "transport": "http", "port": port, "list_page_size": page_size})
    logs.configure(settings.log_level)
    server = create_server(settings=settings)
    asyncio.set_event_loop_policy(ProbedLoops(Path(lag_file)))
    server.run(transport="http", host=settings.host, port=settings.port, path="/mcp", show_banner=False, **http.run_options(settings))


if __name__ == "__main__":
    docroot, project, port, lag_file, *page = sys.argv[1:]
    serve(docroot, project, int(port), lag_file, int(page[0]) if page else 0)
