"""The App form (C7.12 b) against native forms, in one run: `python -m bench.probes.app_form [--smoke] [--out DIR]`.

1. A round trip of one form, both eras: the App (a read that says to open the form,
   `open_form`, one `submit_form` that renders) against the same flow by native
   elicitation (one read, the client answering the form), interleaved; ratios per round.
2. The App page's size (bytes, and gzipped as a host may send it).
3. Its first load in Debian's Chromium (headless, Playwright): from handing the page to
   a sandboxed frame to the frame's load event, interleaved with the same for
   prefab-ui's bundled renderer page when prefab-ui is installed (the page FastMCP's
   apps would serve without a network); skipped when Chromium or Playwright is missing.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import tempfile
from pathlib import Path

from fastmcp import Client
from mcp.client import advertise

from bench.harness.common import ERAS, quiet
from bench.harness.measure import compare, interleave_async, summary
from guide.server.app import create_server
from guide.server.app_form.tools import page
from guide.server.channels.app import OPEN_TOOL, SUBMIT_TOOL

CHROMIUM = os.environ.get("GUIDE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"]
ONE_FORM = """\
---
description: One form.
elicitation:
  numbers:
    message: Set the numbers.
    schema:
      type: object
      properties:
        count: {type: integer, minimum: 1, maximum: 10, default: 2}
        verbose: {type: boolean, default: false}
      required: [count]
---
ONE count={{kwargs.count}} verbose={{kwargs.verbose}}
"""
URI = "guide://_one"
EXPECTED = "ONE count=7 verbose=true"


async def round_trip(rounds: int, inner: int) -> dict:
    """The App's round trip against native elicitation's, per era."""
    root = Path(tempfile.mkdtemp(prefix="guide-bench-app-"))
    (root / "_commands").mkdir()
    (root / "_commands" / "one.md").write_text(ONE_FORM, encoding="utf-8")
    server = create_server(root, project=root, watch=False)

    async def answer(message, response_type, params, context):
        return {"count": 7, "verbose": True}

    apps = advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})
    eras = {}
    for era in ERAS:
        async with Client(server, mode=era, extensions=[apps]) as app_client, Client(server, mode=era, elicitation_handler=answer) as native_client:

            async def by_app():
                said = (await app_client.read_resource(URI))[0].text
                assert OPEN_TOOL in said
                shown = (await app_client.call_tool(OPEN_TOOL, {"uri": URI})).structured_content
                answers = {"numbers": {"action": "accept", "content": {"count": 7, "verbose": True}}}
                done = await app_client.call_tool(SUBMIT_TOOL, {"uri": URI, "state": shown["state"], "answers": answers})
                assert done.structured_content["text"].strip() == EXPECTED

            async def by_native():
                assert (await native_client.read_resource(URI))[0].text.strip() == EXPECTED

            times = await interleave_async({"app": by_app, "native": by_native}, rounds=rounds, inner=inner)
        record = compare(times["app"], times["native"])
        eras[era] = {"unit": record["unit"], "app": record["guide"], "native": record["baseline"], "ratio_app_to_native": record["ratio"]}
    return eras


def sizes() -> dict:
    text = page().encode()
    found = {"guide_page_bytes": len(text), "guide_page_gzip_bytes": len(gzip.compress(text, 9))}
    prefab = _prefab_page()
    if prefab is not None:
        found["prefab_bundled_renderer_bytes"] = len(prefab.encode())
    return found


def _prefab_page() -> str | None:
    try:
        from prefab_ui.renderer import _get_bundled_html
    except ImportError:
        return None
    return _get_bundled_html()


async def first_load(rounds: int) -> dict:
    """Milliseconds from giving a sandboxed frame the page to its load event, in Chromium."""
    if not os.access(CHROMIUM, os.X_OK):
        return {"skipped": f"no Chromium at {CHROMIUM}"}
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        return {"skipped": "Playwright is not installed"}
    pages = {"guide": page()}
    prefab = _prefab_page()
    if prefab is not None:
        pages["prefab"] = prefab
    loads: dict[str, list[float]] = {name: [] for name in pages}
    timed = """(html) => new Promise((resolve) => {
        const frame = document.createElement("iframe");
        frame.setAttribute("sandbox", "allow-scripts allow-forms");
        document.body.replaceChildren(frame);
        const start = performance.now();
        frame.addEventListener("load", () => resolve(performance.now() - start), { once: true });
        frame.srcdoc = html;
    })"""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        tab = await browser.new_page()
        await tab.set_content("<!doctype html><body></body>")
        for html in pages.values():  # warm-up
            await tab.evaluate(timed, html)
        for index in range(rounds):
            for name in (list(pages) if index % 2 == 0 else list(reversed(pages))):
                loads[name].append(await tab.evaluate(timed, pages[name]))
        await browser.close()
    found = {name: summary(values) for name, values in loads.items()}
    if "prefab" in loads:
        found["ratio_guide_to_prefab"] = summary([g / p for g, p in zip(loads["guide"], loads["prefab"])])
    return found


async def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.probes.app_form", description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a few rounds only (checks that it runs)")
    parser.add_argument("--out", type=Path, help="a folder for app_form.json")
    options = parser.parse_args()
    quiet()
    rounds, inner, loads = (3, 2, 3) if options.smoke else (30, 10, 20)
    result = {"round_trip": await round_trip(rounds, inner), "sizes": sizes(), "first_load_ms": await first_load(loads)}
    text = json.dumps(result, indent=2)
    print(text)
    if options.out:
        options.out.mkdir(parents=True, exist_ok=True)
        (options.out / "app_form.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
