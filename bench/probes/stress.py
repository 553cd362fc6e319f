"""Stress: listen streams that never read, an edit storm, sessions waiting on forms and readers, all at once, on loopback.

    python -m bench.probes.stress            # the recorded run (BENCHMARKS.md)
    python -m bench.probes.stress --smoke    # a tiny version of the same run
    python -m bench.probes.stress --hostile  # the run twice: healthy, then with issues 25 and 33's hostile files (bench.probes.stress_hostile)

One `guide serve --transport http` server on 127.0.0.1 (started as `guide serve`
starts it, plus a timer probe on its event loop) serves a copy of the bundled
example docroot. Against it, at the same time:

- 200 `subscriptions/listen` streams (2026-07-28) over raw sockets: half read
  every frame; half read their acknowledgement and then never read again, with
  a 4 KiB receive buffer;
- 50 legacy sessions each reading `guide://_review` and never answering its first form;
- 8 clients (both eras) reading a document, a command that completes without
  asking and help, and listing, back to back from before the storm to after it;
- an edit storm: 10,000 file writes in 10 s (500 documents written again and
  again, and one write in ten to one of 50 commands, whose description changes).

The figures: failed reads of the readers (there must be none), the server's RSS
before the storm, at its peak and after (target: after within 1.2x of before),
its event-loop lag before the storm, during it and after it, with the same
readers on the larger docroot the storm left (the probe sleeps 5 ms and
records how late it wakes: max and p99), what the listen streams were told, and
the server's own lines about announcements and dropped streams.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import shutil
import socket
import sys
import tempfile
import time
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from mcp import MCPError

from bench.harness.common import EXAMPLE_DOCROOT, log, quiet
from bench.harness.procs import free_port, running
from bench.probes.loop_lag import probed_lags, serve
from bench.probes.soak import rss_mb, wait_ready
from bench.probes.stress_hostile import CEILING_MB, compare, limit_address_space, print_comparison, restore, store_env, with_attacker, write_hostile

RSS_TARGET = 1.2
HOSTILE_BOUND = 600.0
"""Seconds each run of `--hostile` may take (a hostile docroot that freezes the server must not keep the run going)."""
HOSTILE_BOUND_SMOKE = 240.0
READY_BOUND = 120.0
"""Seconds a started server has to answer its first read."""
READS = (("guide://lang/python", "Python"), ("guide://_review?mode=uncommitted&depth=quick", "uncommitted"), ("guide://_help", "Guide"))


@dataclass(frozen=True)
class Load:
    """How much of everything one run puts on the server."""

    streams: int = 200
    writes: int = 10_000
    seconds: float = 10.0
    waiting: int = 50
    readers: int = 8

    @classmethod
    def smoke(cls) -> Load:
        return cls(streams=10, writes=200, seconds=1.0, waiting=3, readers=2)


# ---------------------------------------------------------------- the server side: a timer probe on the event loop


# ---------------------------------------------------------------- the clients


def listen_request(port: int, request_id: int) -> bytes:
    """A raw 2026-07-28 `subscriptions/listen` POST for both list changes."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen",
                       "params": {"notifications": {"resourcesListChanged": True, "promptsListChanged": True}, "_meta": meta}}).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode() + body


def client_address(request_id: int) -> str:
    """The loopback address stream `request_id` connects from: one client each, as Guide counts listen shares by address."""
    return f"127.0.{request_id // 250}.{request_id % 250 + 2}"


async def reading_stream(port: int, request_id: int, told: Counter) -> None:
    """A listen stream that reads every frame, counting the acknowledgement and each list change."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(client_address(request_id), 0))
    writer.write(listen_request(port, request_id))
    try:
        while line := await reader.readline():
            for kind in (b"subscriptions/acknowledged", b"resources/list_changed", b"prompts/list_changed"):
                if kind in line:
                    told[kind.decode()] += 1
    finally:
        writer.close()


def stalled_stream(port: int, request_id: int) -> socket.socket:
    """A listen stream that takes its acknowledgement and then never reads again, through a 4 KiB receive buffer."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(30)
    sock.bind((client_address(request_id), 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(listen_request(port, request_id))
    taken = b""
    while b"subscriptions/acknowledged" not in taken:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError("stress: a listen stream was closed before its acknowledgement")
        taken += chunk
    return sock


async def waiting_session(url: str, asked: asyncio.Semaphore, done: asyncio.Event) -> None:
    """A legacy session reading a command whose first form it does not answer until the run is `done` (then it cancels it)."""

    async def answer_when_done(message, response_type, params, context):
        asked.release()
        await done.wait()
        return ElicitResult(action="cancel")

    async with Client(url, mode="legacy", elicitation_handler=answer_when_done, timeout=3600) as client:
        with suppress(MCPError):  # the cancelled form ends the read
            await client.read_resource("guide://_review")


async def reader(url: str, era: str, stop: asyncio.Event, tally: Counter, failures: list[str]) -> None:
    """A client reading and listing back to back until `stop`; each read that fails or reads the wrong text is kept."""
    async with Client(url, mode=era, timeout=120) as client:
        while not stop.is_set():
            for uri, expected in READS:
                try:
                    text = (await client.read_resource(uri))[0].text
                    tally["ok" if expected in text else "wrong"] += 1
                    if expected not in text:
                        failures.append(f"{uri}: read {text[:60]!r}")
                except Exception as error:  # what the run counts
                    tally["failed"] += 1
                    failures.append(f"{uri}: {error}")
            try:
                await client.list_resources()
                tally["ok"] += 1
            except Exception as error:
                tally["failed"] += 1
                failures.append(f"listing: {error}")


def storm(root: Path, writes: int, seconds: float) -> dict:
    """Write `writes` files in `seconds`, paced in steps of 10 ms; say how long it took and the longest pause between two writes."""
    (root / "notes").mkdir(exist_ok=True)
    (root / "_commands" / "storm").mkdir(exist_ok=True)
    began = last = time.monotonic()
    longest = 0.0
    per_step = max(1, round(writes * 0.01 / seconds))
    for index in range(writes):
        if index % 10 == 0:
            path, text = root / "_commands" / "storm" / f"c{index // 10 % 50}.md", f"---\ndescription: storm {index}\n---\nSTORM {index}\n"
        else:
            path, text = root / "notes" / f"n{index % 500:03}.md", f"note {index}\n"
        path.write_text(text, encoding="utf-8")
        now = time.monotonic()
        longest, last = max(longest, now - last), now
        if index % per_step == per_step - 1:
            time.sleep(max(0.0, began + (index + 1) * seconds / writes - time.monotonic()))
    return {"seconds": round(time.monotonic() - began, 2), "longest_pause_s": round(longest, 3)}


# ---------------------------------------------------------------- the run


async def _sample(pid: int, stop: asyncio.Event, samples: list[float]) -> None:
    while not stop.is_set():
        samples.append(rss_mb(pid))
        await asyncio.sleep(0.25)


async def connect_all(url: str, port: int, load: Load, told: Counter, done: asyncio.Event) -> tuple[list, list[socket.socket], list]:
    """Open the listen streams and the waiting sessions; return once every stream is acknowledged and every form asked."""
    listening = [asyncio.create_task(reading_stream(port, index + 1, told)) for index in range(load.streams // 2)]
    stalled = [await asyncio.to_thread(stalled_stream, port, 10_000 + index) for index in range(load.streams - load.streams // 2)]
    log("stress: the streams that never read are open")
    asked = asyncio.Semaphore(0)
    waiting = [asyncio.create_task(waiting_session(url, asked, done)) for _ in range(load.waiting)]
    for _ in range(load.waiting):
        await asyncio.wait_for(asked.acquire(), 120)
    while told["subscriptions/acknowledged"] < len(listening):
        await asyncio.sleep(0.05)
    return listening, stalled, waiting


def serve_command(root: Path, project: Path, port: int, lag_file: Path, ceiling_mb: int = 0) -> list[str]:
    """The probed server over `root` on 127.0.0.1:`port` (with an address-space ceiling in MiB unless 0)."""
    return [sys.executable, "-m", "bench.probes.stress", "--serve", str(root), str(project), str(port), str(lag_file), str(ceiling_mb)]


async def run(load: Load, workdir: Path, *, hostile: bool = False, ceiling_mb: int = 0) -> dict:
    """Put the whole load on one server and return the figures; `hostile`: with issue 25's hostile files present (and a second server)."""
    root = workdir / "docroot"
    shutil.copytree(EXAMPLE_DOCROOT, root)
    notes = write_hostile(root, workdir) if hostile else []
    port, lag_file = free_port(), workdir / "lags.jsonl"
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        with running(serve_command(root, workdir, port, lag_file, ceiling_mb), workdir / "server.log", store_env(workdir) if ceiling_mb else None) as server:
            await asyncio.wait_for(wait_ready(url, server), READY_BOUND)  # a server frozen by its docroot may take connections and never answer
            log(f"stress: the server answers{' (hostile docroot)' if hostile else ''}")
            measured = _Run(load, url, port, server, lag_file).measure(root, workdir / "server.log")
            if not hostile:
                return await measured
            return await with_attacker(measured, url, workdir, notes, functools.partial(serve_command, ceiling_mb=ceiling_mb), reader)
    finally:
        restore(root)


class _Run:
    """One stress run against a started server: the clients it keeps, and what it counts."""

    def __init__(self, load: Load, url: str, port: int, server, lag_file: Path) -> None:
        self.load, self.url, self.port, self.server, self.lag_file = load, url, port, server, lag_file
        self.told: Counter = Counter()
        self.tally: Counter = Counter()
        self.failures: list[str] = []
        self.done, self.stop = asyncio.Event(), asyncio.Event()

    async def measure(self, root: Path, server_log: Path) -> dict:
        """Connect everything, take the baseline, run the storm, let it settle, and let every client go."""
        load, pid = self.load, self.server.pid
        listening, stalled, waiting = await connect_all(self.url, self.port, load, self.told, self.done)
        log(f"stress: {load.streams} listen streams open, {load.waiting} sessions waiting on a form")
        readers = [asyncio.create_task(reader(self.url, ("legacy", "2026-07-28")[index % 2], self.stop, self.tally, self.failures))
                   for index in range(load.readers)]
        while self.tally["ok"] < 10 * load.readers:  # every reader is reading
            await asyncio.sleep(0.05)
        await probed_lags(self.server, self.lag_file)  # what connecting cost is no baseline
        await asyncio.sleep(load.seconds)
        rss = {"before_storm": rss_mb(pid)}
        lags = {"before_storm": await probed_lags(self.server, self.lag_file)}
        log(f"stress: {load.readers} readers reading; the storm begins")
        sampling, samples = asyncio.Event(), []
        sampler = asyncio.create_task(_sample(pid, sampling, samples))
        wrote = await asyncio.to_thread(storm, root, load.writes, load.seconds)
        lags["storm"] = await probed_lags(self.server, self.lag_file)
        log(f"stress: the storm took {wrote['seconds']} s")
        await asyncio.sleep(3.0)  # the last burst is announced, and what it built settles
        rss["after_storm"] = rss_mb(pid)
        sampling.set()
        await sampler
        await probed_lags(self.server, self.lag_file)
        await asyncio.sleep(load.seconds / 2)  # the same readers on the docroot the storm left: its listing is 550 entries longer
        lags["after_storm"] = await probed_lags(self.server, self.lag_file)
        rss["peak"] = max([*samples, rss["after_storm"]])
        await self._leave(readers, waiting, listening, stalled)
        rss["after_clients_left"] = rss_mb(pid)
        return self.figures(wrote, rss, lags, server_log.read_text(encoding="utf-8", errors="replace").splitlines())

    async def _leave(self, readers: list, waiting: list, listening: list, stalled: list[socket.socket]) -> None:
        self.stop.set()
        await asyncio.gather(*readers)
        self.done.set()
        await asyncio.gather(*waiting)
        for task in listening:
            task.cancel()
        await asyncio.gather(*listening, return_exceptions=True)
        for sock in stalled:
            sock.close()
        await asyncio.sleep(1.0)

    def figures(self, wrote: dict, rss: dict, lags: dict, lines: list[str]) -> dict:
        """Everything the run measured, as one JSON object."""
        ratio = rss["after_storm"] / rss["before_storm"]
        return {
            "load": self.load.__dict__,
            "storm": wrote,
            "reads": dict(self.tally), "failed_reads": self.tally["failed"] + self.tally["wrong"], "failures": self.failures[:10],
            "rss_mb": {**{key: round(value, 1) for key, value in rss.items()}, "ratio_after_over_before": round(ratio, 3)},
            "rss_target": f"after / before <= {RSS_TARGET}", "rss_met": ratio <= RSS_TARGET,
            "loop_lag": lags,
            "listen_streams_told": dict(self.told),
            "server_log": {"announcements": sum("listings changed" in line for line in lines),
                           "dropped_streams": sum("was dropped" in line for line in lines),
                           "legacy_sessions_told_no_more": sum("told no more" in line for line in lines),
                           "errors": [line for line in lines if " ERROR " in line][:5]},
        }


def main(argv: list[str] | None = None) -> int:
    """Run the stress load and print its figures; exit 1 if a reader's read failed."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        if len(argv) > 5 and int(argv[5]):
            limit_address_space(int(argv[5]))
        serve(argv[1], argv[2], int(argv[3]), argv[4])  # the probed server (bench.probes.loop_lag)
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.probes.stress", description="Listen streams, an edit storm, waiting sessions and readers at once.")
    parser.add_argument("--smoke", action="store_true", help="a tiny version of the run")
    parser.add_argument("--hostile", action="store_true", help="run twice, healthy and with issues 25 and 33's hostile files, and compare (stress_hostile.py)")
    parser.add_argument("--out", type=Path, default=None, help="write every figure as JSON")
    options = parser.parse_args(argv)
    quiet()
    load = Load.smoke() if options.smoke else Load()
    if options.hostile:
        return hostile_main(load, options.out)
    with tempfile.TemporaryDirectory(prefix="guide-stress-") as temp:
        result = asyncio.run(run(load, Path(temp)))
    if options.out:
        options.out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print_result(result)
    return 1 if result["failed_reads"] else 0


def hostile_main(load: Load, out: Path | None) -> int:
    """The healthy run, then the hostile one, each bounded in time and under the same address-space ceiling; exit 1 unless the targets are met."""
    bound = HOSTILE_BOUND_SMOKE if load == Load.smoke() else HOSTILE_BOUND
    results = {}
    for name, hostile in (("healthy", False), ("hostile", True)):
        with tempfile.TemporaryDirectory(prefix=f"guide-stress-{name}-") as temp:
            try:
                results[name] = asyncio.run(asyncio.wait_for(run(load, Path(temp), hostile=hostile, ceiling_mb=CEILING_MB), bound))
            except TimeoutError:
                print(f"{name} run: not over within {bound:.0f} s; stopped (the last stage it reached is the last 'stress:' line above)")
                return 1
        print(f"{name} run:")
        print_result(results[name])
    results["comparison"] = compare(results["healthy"], results["hostile"], RSS_TARGET)
    if out:
        out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print_comparison({**results["hostile"], "comparison": results["comparison"]}, RSS_TARGET)
    return 0 if results["comparison"]["met"] else 1


def print_result(result: dict) -> None:
    """The figures, one line each."""
    rss, lag = result["rss_mb"], result["loop_lag"]
    print(f"reads {result['reads']} ({result['failed_reads']} failed); storm of {result['load']['writes']} writes took {result['storm']['seconds']} s "
          f"(longest pause between two writes {result['storm']['longest_pause_s']} s)")
    print(f"RSS {rss['before_storm']} MB before the storm, peak {rss['peak']}, {rss['after_storm']} after "
          f"({rss['ratio_after_over_before']}x; target {RSS_TARGET}x: {'met' if result['rss_met'] else 'not met'}), "
          f"{rss['after_clients_left']} once the clients left")
    for phase, figures in lag.items():
        print(f"event-loop lag {phase}: max {figures.get('max_ms')} ms, p99 {figures.get('p99_ms')} ms, median {figures.get('median_ms')} ms "
              f"({figures.get('samples')} samples)")
    print(f"listen streams told {result['listen_streams_told']}; server log {result['server_log']}")


if __name__ == "__main__":
    sys.exit(main())
