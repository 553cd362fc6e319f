"""B6: size of the sealed continuation state of the 12-form interaction over 2026-07-28.

The interaction is driven by hand (`allow_input_required=True`) so every round's
sealed `requestState` can be measured; the figure is the largest, which is the
last round's (it carries the most accepted values).
"""

from __future__ import annotations

from pathlib import Path

from fastmcp import Client
from mcp_types import ElicitResult, InputRequiredResult

from bench.harness.common import Config, project_dir
from bench.harness.docroot_gen import RICH_ANSWERS, rich_docroot
from guide.server.app import create_server

URI = "guide://_rich"
TARGET_BYTES = 2048


async def run(config: Config, workdir: Path) -> dict:
    root = rich_docroot(workdir / "b6-docroot")
    server = create_server(root, project_dir(workdir), watch=False)
    rounds = []
    async def unused_handler(message, response_type, params, context):  # declares form elicitation; rounds are driven by hand
        raise AssertionError("B6 drives the rounds itself")

    async with Client(server, mode="2026-07-28", elicitation_handler=unused_handler) as client:
        result = await client.session.read_resource(URI, allow_input_required=True)
        while isinstance(result, InputRequiredResult):
            forms = list(result.input_requests or {})
            rounds.append({"forms": forms, "sealed_bytes": len(result.request_state.encode())})
            responses = {form: ElicitResult(action="accept", content=RICH_ANSWERS[form]) for form in forms}
            result = await client.session.read_resource(
                URI, input_responses=responses, request_state=result.request_state, allow_input_required=True
            )
    text = result.contents[0].text
    asked = sum(len(r["forms"]) for r in rounds)
    if asked != 12 or "Labels: regression, customer." not in text:
        raise AssertionError(f"B6: the interaction asked {asked} forms and rendered {text!r}")
    largest = max(r["sealed_bytes"] for r in rounds)
    return {
        "id": "B6",
        "what": "sealed continuation state of the 12-field interaction (largest round)",
        "target": f"<= {TARGET_BYTES} bytes (2 KiB)",
        "unit": "bytes",
        "figure": largest,
        "rounds": rounds,
        "met": largest <= TARGET_BYTES,
    }
