"""The App form's rounds are reads an operator sees (issue 28): counted at `/metrics` and given an access line, in channel `app`,
per era; and a read reads its client's declaration once."""

import copy
import logging

import httpx2
from e2e_support import read
from fastmcp import Client
from mcp.client import advertise
from prometheus_client.parser import text_string_to_metric_families

from guide.server.app import create_server
from guide.server.channels.app import OPEN_TOOL, SUBMIT_TOOL
from guide.server.channels.base import Declared

APP_MIME = "text/html;profile=mcp-app"
APPS = {"mimeTypes": [APP_MIME]}
APP_ELICITATION = {"mimeTypes": [APP_MIME], "elicitation": {}}


def _apps(settings) -> list:
    return [advertise("io.modelcontextprotocol/ui", copy.deepcopy(settings))]


async def _scrape(server) -> dict[tuple, float]:
    app = server.http_app(path="/mcp")
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url="http://127.0.0.1") as http:
        text = (await http.get("/metrics")).text
    return {(sample.name, *sorted(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


async def test_each_app_round_is_counted_and_logged_as_a_read_of_the_app_channel(docroot, mode, caplog):
    caplog.set_level(logging.INFO, logger="guide.access")
    server = create_server(docroot.root, project=docroot.project, watch=False, metrics=1)
    async with Client(server, mode=mode, extensions=_apps(APPS)) as client:
        shown = (await client.call_tool(OPEN_TOOL, {"uri": "guide://_review?depth=quick"})).structured_content
        assert shown["guide"] == "form" and [form["id"] for form in shown["forms"]] == ["target"]
        answers = {"target": {"action": "accept", "content": {"mode": "uncommitted"}}}
        done = await client.call_tool(SUBMIT_TOOL, {"uri": shown["uri"], "state": shown["state"], "answers": answers})
        assert done.structured_content["guide"] == "rendered"
        broken = await client.call_tool(SUBMIT_TOOL, {"uri": shown["uri"], "state": "not sealed", "answers": answers}, raise_on_error=False)
        assert broken.is_error
    samples = await _scrape(server)
    labels = (("channel", "app"), ("era", mode))

    def value(name: str, **more: str) -> float:
        return samples.get((name, *sorted((*labels, *more.items()))), 0.0)

    assert value("guide_reads_total", kind="command") == 2  # the round that asks and the one that renders
    assert value("guide_reads_total", kind="unknown") == 1  # the round whose state was refused before it read anything
    assert value("guide_read_failures_total", reason="refused") == 1
    assert value("guide_forms_total", event="asked") == 1
    assert value("guide_forms_total", event="answered") == 1
    lines = [record.getMessage() for record in caplog.records if record.name == "guide.access"]
    assert [line.split(" in ")[0] for line in lines] == [
        f"- read guide://_review?depth ({mode}, app): asked",
        f"- read guide://_review?depth ({mode}, app): ok",
        f"- read guide://_review?depth ({mode}, app): failed (refused)",
    ]


async def test_a_read_that_asks_reads_its_clients_declaration_once_per_request(server, elicitor, mode, monkeypatch):
    declared, original = [], Declared.of.__func__

    def counting(cls, ctx):
        declared.append(ctx)
        return original(cls, ctx)

    monkeypatch.setattr(Declared, "of", classmethod(counting))
    elicitor.answer(mode={"mode": "uncommitted"})
    async with Client(server, mode=mode, elicitation_handler=elicitor.handle, extensions=_apps(APP_ELICITATION)) as client:
        declared.clear()  # the handshake is not a read
        assert await read(client, "guide://_review") == "REVIEW mode=uncommitted reference= extra=\n"
    # Legacy asks inside its one request; 2026-07-28 answers input_required, then the retry renders.
    assert len(declared) == (2 if mode == "2026-07-28" else 1)
