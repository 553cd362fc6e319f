"""What Guide's middleware costs a read: the same server through a FastMCP layer per part (as before issue 28) or through
the one `Hooks` layer, B1's read and B2's flow, rounds alternating, timed by the process's CPU time.

`python -m bench.middleware_cost [--rounds N] [--inner N] [--watching]`. Prints one line per case: the one layer over a
layer per part (median and IQR of the per-round ratios), and each against the bare FastMCP server of B1/B2 in the same
rounds. `--watching` keeps start-up's first-answer watcher (a layer of its own before), as in a server's first seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from fastmcp import Client
from fastmcp.server.middleware import Middleware

from bench.b2_flow import URI as FLOW_URI
from bench.b2_flow import _handler
from bench.baselines import review_server, static_server
from bench.common import EXAMPLE_DOCROOT, project_dir
from bench.docroot_gen import static_docroot
from guide.server.app import create_server
from guide.server.hooks import Hooks

ORDER = ("LegacySessions", "Catalog", "ListingSizes", "ForAppClients")
"""The parts as the middleware stack held them before, outermost first."""


class Layer(Middleware):
    """One part as its own middleware: answer, then look at the method."""

    def __init__(self, part):
        self.part = part

    async def __call__(self, context, call_next):
        result = await call_next(context)
        return result if context.method not in self.part.methods else await self.part.answered(context, result)


class Watching(Middleware):
    """Start-up's watcher as its own middleware."""

    def __init__(self, watcher):
        self.watcher = watcher

    async def __call__(self, context, call_next):
        self.watcher.began(context)
        try:
            return await call_next(context)
        finally:
            self.watcher.ended(context)


def stacks(server, watching: bool) -> dict[str, list]:
    """The server's middleware as it is (one layer) and as a layer per part."""
    hooks = Hooks.of(server)
    watchers = hooks.watchers
    if not watching:
        for watcher in watchers:
            hooks.unwatch(watcher)
    parts = {type(part).__name__: part for method in ("initialize", "tools/list", "resources/list", "prompts/list") for part in hooks.parts(method)}
    layers: list = [Layer(parts[name]) for name in ORDER if name in parts]
    if watching and watchers:
        layers.insert(2, Watching(watchers[0]))
    fastmcp_own = [layer for layer in server.middleware if not isinstance(layer, Hooks)]
    return {"one layer": [*fastmcp_own, hooks], "a layer per part": [*fastmcp_own, *layers]}


async def compare(guide, bare, uri: str, era: str, handler, rounds: int, inner: int, watching: bool) -> dict[str, list[float]]:
    """CPU seconds per read of each stack and of the bare server, one value per round."""
    variants = stacks(guide, watching)
    times: dict[str, list[float]] = {name: [] for name in (*variants, "bare")}
    async with Client(guide, mode=era, elicitation_handler=handler) as g, Client(bare, mode=era, elicitation_handler=handler) as b:
        for _ in range(20):
            await g.read_resource(uri)
            await b.read_resource(uri)
        names = list(times)
        for round_index in range(rounds):
            for name in names if round_index % 2 == 0 else names[::-1]:
                if name != "bare":
                    guide.middleware = variants[name]
                client = b if name == "bare" else g
                start = time.process_time()
                for _ in range(inner):
                    await client.read_resource(uri)
                times[name].append((time.process_time() - start) / inner)
    guide.middleware = variants["one layer"]
    return times


def _ratios(a: list[float], b: list[float]) -> tuple[float, float, float]:
    values = [x / y for x, y in zip(a, b)]
    low, _, high = statistics.quantiles(values, n=4)
    return statistics.median(values), low, high


async def main(rounds: int, inner: int, watching: bool) -> None:
    work = Path(tempfile.mkdtemp(prefix="guide-middleware-"))
    static = create_server(static_docroot(work / "b1"), project_dir(work), watch=False)
    async with Client(static) as client:
        text = (await client.read_resource("guide://_static"))[0].text
    cases = [("B1", static, static_server(text), "guide://_static", None)]
    if not watching:
        cases.append(("B2", create_server(EXAMPLE_DOCROOT, project_dir(work), watch=False), review_server(), FLOW_URI, _handler()))
    for name, guide, bare, uri, handler in cases:
        for era in ("legacy", "2026-07-28"):
            t = await compare(guide, bare, uri, era, handler, rounds, inner, watching)
            one, per = t["one layer"], t["a layer per part"]
            median, low, high = _ratios(one, per)
            print(f"{name} {era}: one layer / a layer per part {median:.3f} (IQR {low:.3f}-{high:.3f}); to the bare server: "
                  f"a layer per part {_ratios(per, t['bare'])[0]:.3f}, one layer {_ratios(one, t['bare'])[0]:.3f}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.middleware_cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--inner", type=int, default=20)
    parser.add_argument("--watching", action="store_true", help="keep start-up's watcher (B1 only)")
    options = parser.parse_args()
    asyncio.run(main(options.rounds, options.inner, options.watching))
