"""B1: reading a command without forms (40-line template, one partial), in-memory, against a bare resource."""

from __future__ import annotations

from pathlib import Path

from fastmcp import Client

from bench.harness.baselines import static_server
from bench.harness.common import ERAS, Config, project_dir
from bench.harness.docroot_gen import static_docroot
from bench.harness.measure import compare, interleave_async
from guide.server.app import create_server

URI = "guide://_static"
TARGET = 1.20


async def run(config: Config, workdir: Path) -> dict:
    root = static_docroot(workdir / "b1-docroot")
    guide = create_server(root, project_dir(workdir))
    async with Client(guide) as client:
        text = (await client.read_resource(URI))[0].text
    baseline = static_server(text)
    eras = {}
    for era in ERAS:
        async with Client(guide, mode=era) as g, Client(baseline, mode=era) as b:
            got = [(await g.read_resource(URI))[0].text, (await b.read_resource(URI))[0].text]
            if got[0] != got[1] or got[0] != text:
                raise AssertionError("B1: Guide and the baseline return different text")

            async def guide_read():
                await g.read_resource(URI)

            async def baseline_read():
                await b.read_resource(URI)

            times = await interleave_async({"guide": guide_read, "baseline": baseline_read}, rounds=config.rounds, inner=config.inner)
        record = compare(times["guide"], times["baseline"])
        record["met"] = record["ratio"]["median"] <= TARGET
        eras[era] = record
    return {
        "id": "B1",
        "what": "read of a command without forms (40-line template, one partial), in-memory client",
        "target": f"ratio <= {TARGET}",
        "text_lines": text.count("\n"),
        "eras": eras,
        "met": all(e["met"] for e in eras.values()),
    }
