"""B2: the C5 branch flow of the bundled review command, both eras, against a hand-written FastMCP resource.

The bundled `review.md` asks `target`, then `reference` (its `when` waits on
`mode`), and includes the partial `review-depth` whose `depth` form is supplied as a
keyword, so the exchange is two rounds on 2026-07-28 and two elicitations on legacy.
"""

from __future__ import annotations

from pathlib import Path

from fastmcp import Client

from bench.harness.baselines import review_server
from bench.harness.common import ERAS, EXAMPLE_DOCROOT, Config, project_dir
from bench.harness.measure import compare, interleave_async
from guide.server.app import create_server

URI = "guide://_review?depth=thorough"
ANSWERS = {"mode": {"mode": "branch"}, "reference": {"reference": "feature/search-index"}}
TARGET = 1.25


def _handler(log: list | None = None):
    async def handler(message, response_type, params, context):
        schema = params.requested_schema
        if log is not None:
            log.append((message, schema))
        return ANSWERS[next(iter(schema["properties"]))]

    return handler


async def run(config: Config, workdir: Path) -> dict:
    guide = create_server(EXAMPLE_DOCROOT, project_dir(workdir))
    baseline = review_server()
    eras = {}
    for era in ERAS:
        seen: dict[str, list] = {"guide": [], "baseline": []}
        async with Client(guide, mode=era, elicitation_handler=_handler(seen["guide"])) as check_g, \
                Client(baseline, mode=era, elicitation_handler=_handler(seen["baseline"])) as check_b:
            texts = [(await check_g.read_resource(URI))[0].text, (await check_b.read_resource(URI))[0].text]
        if texts[0] != texts[1]:
            raise AssertionError(f"B2 {era}: different text\n{texts[0]!r}\n{texts[1]!r}")
        if seen["guide"] != seen["baseline"] or len(seen["guide"]) != 2:
            raise AssertionError(f"B2 {era}: different questions\n{seen}")
        async with Client(guide, mode=era, elicitation_handler=_handler()) as g, \
                Client(baseline, mode=era, elicitation_handler=_handler()) as b:

            async def guide_flow():
                await g.read_resource(URI)

            async def baseline_flow():
                await b.read_resource(URI)

            times = await interleave_async({"guide": guide_flow, "baseline": baseline_flow}, rounds=config.rounds, inner=max(1, config.inner // 2))
        record = compare(times["guide"], times["baseline"])
        record["met"] = record["ratio"]["median"] <= TARGET
        record["exchange"] = "2 rounds (target, reference)" if era != "legacy" else "2 elicitation/create (target, reference)"
        eras[era] = record
    return {
        "id": "B2",
        "what": "C5 branch flow of the bundled review command (depth as keyword), whole interaction",
        "target": f"ratio <= {TARGET} each era",
        "uri": URI,
        "eras": eras,
        "met": all(e["met"] for e in eras.values()),
    }
