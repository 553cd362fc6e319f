"""Soak: mixed reads and interactions over streamable HTTP for N minutes; is the server's memory flat?

    python -m bench.probes.soak --minutes 10            # the recorded run (BENCHMARKS.md)
    python -m bench.probes.soak --minutes 0.2 --clients 2   # a quick check

One `guide serve --transport http` process on 127.0.0.1 serves the bundled example
docroot. Clients in both protocol eras (FastMCP's `Client`, one HTTP session each)
loop over a weighted mix: document, member and help reads, listings, completions,
prompts, the tool, whole form interactions (some answered wrongly first, some
declined) and requests that must fail (unknown and over-long addresses, bad
keywords). Wrong answers go out unchecked, as from a client that does not
validate its answers, so the server asks again. The server's RSS is sampled every few seconds; the figure is the
least-squares slope of RSS over time after the warm-up, in MB per minute.
A request that fails with Guide's "failed unexpectedly" message is counted apart:
there must be none.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import fastmcp.client.elicitation as client_elicitation
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from mcp import MCPError
from mcp_types import PromptReference

from bench.harness.common import EXAMPLE_DOCROOT, quiet
from bench.harness.procs import free_port, http_serve_command, running
from guide.address import MAX_LENGTH
from guide.server.errors import UNEXPECTED

ERAS = ("legacy", "2026-07-28")
GOOD = {"email": "ann@example.com", "start": "2026-01-05", "label": "v1.2.3", "reference": "feature/soak", "focus": "tests", "highlights": "fast"}
BAD = {"email": "not an address", "start": "someday", "label": "latest", "reference": "two words", "attempts": 99, "tools": []}


def rss_mb(pid: int) -> float:
    """The resident set of a live process, in MB (10^6 bytes)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(f"no VmRSS for process {pid}")


def slope_per_minute(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) samples, in MB per minute."""
    count = len(samples)
    mean_t = sum(t for t, _ in samples) / count
    mean_m = sum(m for _, m in samples) / count
    spread = sum((t - mean_t) ** 2 for t, _ in samples)
    return 60 * sum((t - mean_t) * (m - mean_m) for t, m in samples) / spread if spread else 0.0


def answer_for(schema: dict, wrong: bool) -> dict:
    """Field values for a form of the example docroot: valid ones, or (when `wrong`) values it must refuse."""
    content = {}
    for name, field in schema["properties"].items():
        if wrong and name in BAD:
            content[name] = BAD[name]
        elif name in GOOD:
            content[name] = GOOD[name]
        elif "enum" in field:
            content[name] = random.choice(field["enum"])
        elif "oneOf" in field:
            content[name] = field["oneOf"][0]["const"]
        elif field.get("type") == "array":
            options = field["items"].get("enum") or [option["const"] for option in field["items"]["anyOf"]]
            content[name] = options[:1]
        elif field.get("type") == "boolean":
            content[name] = random.random() < 0.5
        elif field.get("type") in ("integer", "number"):
            content[name] = field.get("minimum", 1)
    return content


class Answerer:
    """An elicitation handler that answers, sometimes wrongly first, sometimes declines."""

    def __init__(self) -> None:
        self.wrong = False
        self.decline = False

    def plan(self) -> None:
        """Choose how the next interaction goes."""
        self.wrong, self.decline = random.random() < 0.2, random.random() < 0.05

    async def handle(self, message, response_type, params, context):
        if self.decline:
            return ElicitResult(action="decline")
        wrong, self.wrong = self.wrong, False
        return ElicitResult(action="accept", content=answer_for(params.requested_schema, wrong))


READS = ["guide://index", "guide://lang/python", "guide://$workflow-review/checklist.md", "guide://_help", "guide://_help/review",
         "guide://_review?help", "guide://_review?mode=uncommitted", "guide://_standup?focus=docs"]
INTERACTIONS = ["guide://_review", "guide://_onboard", "guide://_release", "guide://_standup", "guide://$workflow-review", "guide://_workflow/phase"]
FAILURES = ["guide://_nothing", "guide://lang/nothing", "guide://_review?mode=sideways", "guide://_" + "a/" * (MAX_LENGTH // 2), "guide:lang/python"]


async def one_request(client: Client, answerer: Answerer, tally: Counter) -> None:
    """One request of the mix; its outcome is counted in `tally`."""
    kind = random.choices(["read", "interaction", "failure", "list", "complete", "prompt", "tool"], weights=[30, 25, 10, 10, 10, 10, 5])[0]
    try:
        if kind == "read":
            await client.read_resource(random.choice(READS))
        elif kind == "interaction":
            answerer.plan()
            await client.read_resource(random.choice(INTERACTIONS))
        elif kind == "failure":
            await client.read_resource(random.choice(FAILURES))
        elif kind == "list":
            await random.choice([client.list_resources, client.list_prompts, client.list_resource_templates])()
        elif kind == "complete":
            await client.complete(PromptReference(name="guide"), {"name": "command", "value": random.choice(["_", ":r", ";w"])})
        elif kind == "prompt":
            await client.get_prompt("guide", {"command": random.choice(["_review --mode=uncommitted", ":standup --focus x", "_review --help"])})
        else:
            await client.call_tool("read_resource", {"uri": random.choice(READS)})
        tally["ok"] += 1
    except MCPError as error:
        tally["unexpected" if error.error.message == UNEXPECTED else "refused"] += 1
    except Exception as error:  # a tool error result raised by the client, or the transport failing
        tally["unexpected" if UNEXPECTED in str(error) else "refused"] += 1


async def worker(url: str, era: str, stop_at: float, tally: Counter) -> None:
    """One client session sending requests back to back until `stop_at`."""
    answerer = Answerer()
    async with Client(url, mode=era, elicitation_handler=answerer.handle, timeout=60) as client:
        while time.monotonic() < stop_at:
            await one_request(client, answerer, tally)


async def wait_ready(url: str, process: subprocess.Popen, timeout: float = 60.0) -> None:
    """Wait until the server answers a read."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        try:
            async with Client(url, timeout=5) as client:
                await client.read_resource("guide://index")
            return
        except Exception:  # not listening yet
            await asyncio.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


async def sample(pid: int, began: float, stop_at: float, every: float, samples: list[tuple[float, float]]) -> None:
    """Record (seconds since start, RSS MB) until `stop_at`."""
    while time.monotonic() < stop_at:
        samples.append((time.monotonic() - began, rss_mb(pid)))
        await asyncio.sleep(every)
    samples.append((time.monotonic() - began, rss_mb(pid)))


async def soak(minutes: float, clients: int, warmup: float, every: float, workdir: Path, eras: tuple[str, ...] = ERAS) -> dict:
    """Run the soak and return its figures."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    project = workdir / "project"
    project.mkdir(exist_ok=True)
    (project / ".guide.yaml").write_text("phase: implementation\n", encoding="utf-8")
    with running(http_serve_command(EXAMPLE_DOCROOT, project, port), workdir / "server.log") as server:
        await wait_ready(url, server)
        tally: Counter = Counter()
        samples: list[tuple[float, float]] = []
        began = time.monotonic()
        stop_at = began + minutes * 60
        await asyncio.gather(
            sample(server.pid, began, stop_at, every, samples),
            *(worker(url, eras[index % len(eras)], stop_at, tally) for index in range(clients)),
        )
        elapsed = time.monotonic() - began
    settled = [(t, mb) for t, mb in samples if t >= warmup * 60] or samples
    requests = sum(tally.values())
    return {
        "minutes": round(elapsed / 60, 2),
        "clients": clients,
        "eras": list(eras),
        "warmup_minutes": warmup,
        "requests": requests,
        "requests_per_second": round(requests / elapsed, 1),
        "outcomes": dict(tally),
        "rss_mb": {"start": round(samples[0][1], 1), "after_warmup": round(settled[0][1], 1), "end": round(samples[-1][1], 1),
                   "min_after_warmup": round(min(mb for _, mb in settled), 1), "max_after_warmup": round(max(mb for _, mb in settled), 1)},
        "slope_mb_per_minute": round(slope_per_minute(settled), 3),
        "samples": [(round(t, 1), round(mb, 2)) for t, mb in samples],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the soak; exit 1 if any request failed unexpectedly."""
    parser = argparse.ArgumentParser(prog="python -m bench.probes.soak", description="Mixed HTTP load for N minutes; reports the server's RSS slope.")
    parser.add_argument("--minutes", type=float, default=10.0, help="length of the run (default: 10)")
    parser.add_argument("--clients", type=int, default=4, help="concurrent client sessions, alternating eras (default: 4)")
    parser.add_argument("--warmup", type=float, default=None, help="minutes left out of the slope (default: a fifth of the run, at most 2)")
    parser.add_argument("--eras", default=",".join(ERAS), help="protocol eras the clients take in turn (default: legacy,2026-07-28)")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between RSS samples (default: 2)")
    parser.add_argument("--out", type=Path, default=None, help="write every figure and sample here as JSON")
    options = parser.parse_args(argv)
    quiet()
    # Answer like a client that does not check its answers first, so wrong ones reach the server and are asked again.
    client_elicitation._validate_form_content = lambda content, schema: None
    warmup = options.warmup if options.warmup is not None else min(2.0, options.minutes / 5)
    with tempfile.TemporaryDirectory(prefix="guide-soak-") as temp:
        eras = tuple(era.strip() for era in options.eras.split(",") if era.strip())
        result = asyncio.run(soak(options.minutes, options.clients, warmup, options.every, Path(temp), eras))
    if options.out:
        options.out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    rss = result["rss_mb"]
    print(f"{result['requests']} requests in {result['minutes']} min ({result['requests_per_second']}/s), outcomes {result['outcomes']}")
    print(f"RSS {rss['start']} MB at start, {rss['after_warmup']} after warm-up, {rss['end']} at the end "
          f"(range after warm-up {rss['min_after_warmup']}-{rss['max_after_warmup']}); slope {result['slope_mb_per_minute']} MB/min")
    return 1 if result["outcomes"].get("unexpected") else 0


if __name__ == "__main__":
    sys.exit(main())
