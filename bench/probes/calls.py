"""Count the function calls of one read against its hand-written baseline: `python -m bench.probes.calls [--top N] [--case CASE]`.

The figure depends on the code path only, never on the machine's load: B1's
static read, B2's two-form flow and B12's form with live sources, each in both
protocol eras, on Guide and on the baseline FastMCP server the suite compares it
with, both in memory. Each Guide server is read once and left until its start
check is over (its start line logged: the check runs in the background and would
otherwise be counted by chance), without a watch of its docroot; each case is
warmed up, then `REPEAT` reads are profiled with cProfile (client and server in
one process: the client's share is the same on both sides; the event loop's
thread only, where a warm read runs) and the calls per read are printed. `--top N` also lists the N
functions whose calls per read differ most between the two sides.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

from fastmcp import Client

from bench.harness.baselines import review_server, static_server
from bench.harness.common import ERAS, EXAMPLE_DOCROOT, project_dir, quiet
from bench.harness.docroot_gen import static_docroot
from bench.probes.module_stays import _StartCheck
from bench.suite import b2_flow, b12_sources
from guide.forms.sources import FILES, GIT_BRANCHES, Source
from guide.project.sources import read_source
from guide.server.app import create_server

REPEAT = 50
CASES = ("B1", "B2", "B12")


def _profiled(read: Callable[[], Awaitable[object]]) -> tuple[float, dict[str, float]]:
    """Calls per read of `read` and calls per read of each function, after warming up."""

    async def run() -> tuple[int, pstats.Stats]:
        for _ in range(5):
            await read()
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(REPEAT):
            await read()
        profile.disable()
        return profile

    profile = asyncio.get_event_loop().run_until_complete(run())
    stats = pstats.Stats(profile)
    per = {f"{Path(file).name}:{line}({name})": calls / REPEAT for (file, line, name), (_, calls, *_rest) in stats.stats.items()}
    return stats.total_calls / REPEAT, per


def _started(server, uri: str, handler=None) -> None:
    """Read `uri` once on a new Guide server, then wait until its start check is over (at most a minute)."""
    with _StartCheck().watched() as started:
        asyncio.get_event_loop().run_until_complete(_read_then(server, uri, handler, started))


async def _read_then(server, uri: str, handler, started: _StartCheck) -> None:
    async with Client(server, elicitation_handler=handler) as client:
        await client.read_resource(uri)
        await started.wait()


def _b1(workdir: Path) -> dict[str, Callable[[str], Client]]:
    root = static_docroot(workdir / "b1-docroot")
    guide = create_server(root, project_dir(workdir), watch=False)
    _started(guide, "guide://_static")
    text = asyncio.get_event_loop().run_until_complete(_text(guide, "guide://_static"))
    baseline = static_server(text)
    return {"guide": lambda era: (Client(guide, mode=era), "guide://_static"), "baseline": lambda era: (Client(baseline, mode=era), "guide://_static")}


def _b2(workdir: Path) -> dict[str, Callable[[str], Client]]:
    guide = create_server(EXAMPLE_DOCROOT, project_dir(workdir), watch=False)
    _started(guide, b2_flow.URI, b2_flow._handler())
    baseline = review_server()
    return {side: (lambda era, server=server: (Client(server, mode=era, elicitation_handler=b2_flow._handler()), b2_flow.URI))
            for side, server in (("guide", guide), ("baseline", baseline))}


def _b12(workdir: Path) -> dict[str, Callable[[str], Client]]:
    repo = b12_sources.settled(b12_sources.project(workdir / "b12-project"))
    branches = list(read_source(Source(GIT_BRANCHES), repo))
    docs = list(read_source(Source(FILES, "docs/*.md"), repo))
    server = create_server(b12_sources.docroot(workdir / "b12-docroot", branches, docs), repo, watch=False)
    _started(server, "guide://_fixed", b12_sources._answering)
    return {side: (lambda era, uri=uri: (Client(server, mode=era, elicitation_handler=b12_sources._answering), uri))
            for side, uri in (("guide", "guide://_live"), ("baseline", "guide://_fixed"))}


async def _text(server, uri: str) -> str:
    async with Client(server) as client:
        return (await client.read_resource(uri))[0].text


def _count(make: Callable[[str], tuple[Client, str]], era: str) -> tuple[float, dict[str, float]]:
    client, uri = make(era)

    async def enter():
        await client.__aenter__()

    loop = asyncio.get_event_loop()
    loop.run_until_complete(enter())
    try:
        return _profiled(lambda: client.read_resource(uri))
    finally:
        loop.run_until_complete(client.__aexit__(None, None, None))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.probes.calls", description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=0, help="list the N functions whose calls per read differ most")
    parser.add_argument("--case", action="append", choices=CASES, help="only these cases (default: all)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    quiet()
    asyncio.set_event_loop(asyncio.new_event_loop())
    makers = {"B1": _b1, "B2": _b2, "B12": _b12}
    figures = {}
    with tempfile.TemporaryDirectory(prefix="guide-calls-") as temp:
        for case in options.case or CASES:
            sides = makers[case](Path(temp) / case)
            for era in ERAS:
                (guide, guide_per), (base, base_per) = (_count(sides[side], era) for side in ("guide", "baseline"))
                figures[f"{case} {era}"] = {"guide": round(guide), "baseline": round(base), "extra": round(guide) - round(base)}
                if not options.json:
                    print(f"{case} {era}: Guide {guide:,.0f} calls per read, baseline {base:,.0f}, {guide - base:+,.0f}")
                if options.top:
                    names = set(guide_per) | set(base_per)
                    diff = sorted(names, key=lambda n: -abs(guide_per.get(n, 0) - base_per.get(n, 0)))[: options.top]
                    for name in diff:
                        print(f"    {guide_per.get(name, 0) - base_per.get(name, 0):+8.1f}  {name}")
    if options.json:
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
