"""Issue 36, clients as they really behave: what Guide knows of a client beyond its declaration, and a decline no person made.

Each test runs in both eras, with a real FastMCP client naming itself in its `clientInfo`. The server is given a clock of the
test's own, and the client's handler moves it before it answers: how long a form was with the client is what the test says
(`support.clocks`), never how fast the machine is.
"""

import asyncio
import logging

import httpx2
from e2e_support import eventually, missing_keywords_error, read, read_error
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from mcp.client import advertise
from mcp_types import Implementation
from prometheus_client.parser import text_string_to_metric_families
from support.clocks import Clock

from guide.server.app import create_server
from guide.server.channels.app import OPEN_TOOL, SUBMIT_TOOL

APPS = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})]
DECLINED = "form target was declined; to go on without the form, supply its fields as keywords: mode (string, required; one of: uncommitted, branch, pull-request)"


class Declining:
    """A client's form handler that declines each form `after` seconds by the server's clock, and counts the forms it got."""

    def __init__(self, clock: Clock, after: float) -> None:
        self.clock, self.after, self.forms = clock, after, []

    async def __call__(self, message, response_type, params, context):
        self.forms.append(message)
        self.clock.advance(self.after)
        return ElicitResult(action="decline")


def named(name: str, version: str = "1.0.0") -> Implementation:
    return Implementation(name=name, version=version)


async def scrape(server) -> dict[tuple, float]:
    app = server.http_app(path="/mcp")
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url="http://127.0.0.1") as http:
        text = (await http.get("/metrics")).text
    return {(sample.name, *sorted(sample.labels.items())): sample.value for family in text_string_to_metric_families(text) for sample in family.samples}


async def asked_and_answered_by_the_agent(client: Client, mode: str) -> None:
    """The read fails with the agent's questions (as for a client without forms), and reading the address they give renders."""
    error = await read_error(client, "guide://_review")
    missing_keywords_error(error, mode, "mode")
    assert error.error.data["retry"] == "guide://_review?mode=<uncommitted|branch|pull-request>"
    assert await read(client, "guide://_review?mode=uncommitted") == "REVIEW mode=uncommitted reference= extra=\n"


async def test_a_decline_sooner_than_a_person_reads_gets_the_agent_questions(docroot, mode, caplog):
    caplog.set_level(logging.INFO, logger="guide")
    clock = Clock()
    server = create_server(docroot.root, project=docroot.project, watch=False, clock=clock, metrics=1)
    declining = Declining(clock, after=0.2)
    async with Client(server, mode=mode, elicitation_handler=declining, client_info=named("probe-agent", "0.3")) as client:
        await asked_and_answered_by_the_agent(client, mode)
    assert len(declining.forms) == 1  # the form went out, came back declined at once, and was not asked again
    said = [record.getMessage() for record in caplog.records if "sooner than a person reads a form" in record.getMessage()]
    assert said == ["client probe-agent 0.3 declined form target of guide://_review 0.20 s after it was asked, sooner than a person reads a "
                    "form (1.5 s); the read goes on as for a client without forms (the agent's questions)"]
    assert (await scrape(server))[("guide_unread_declines_total", ("client", "other"), ("era", mode))] == 1


async def test_a_decline_past_the_bound_stays_a_decline(docroot, mode):
    clock = Clock()
    server = create_server(docroot.root, project=docroot.project, watch=False, clock=clock, metrics=1)
    async with Client(server, mode=mode, elicitation_handler=Declining(clock, after=2.0), client_info=named("probe-agent")) as client:
        error = await read_error(client, "guide://_review")
    assert error.error.message == DECLINED and error.error.data["reason"] == "declined"
    assert ("guide_unread_declines_total", ("client", "other"), ("era", mode)) not in await scrape(server)


async def test_the_bound_is_a_setting_and_zero_keeps_every_decline(docroot, mode):
    clock = Clock()
    server = create_server(docroot.root, project=docroot.project, watch=False, clock=clock, unread_decline=0)
    async with Client(server, mode=mode, elicitation_handler=Declining(clock, after=0.0), client_info=named("probe-agent")) as client:
        assert (await read_error(client, "guide://_review")).error.message == DECLINED


async def test_claude_code_s_declines_within_four_seconds_are_no_person_s(docroot, mode):
    """Guide's own row: Claude Code declares forms, but in some sessions its SDK declines every form unshown (docs/clients.md)."""
    clock = Clock()
    server = create_server(docroot.root, project=docroot.project, watch=False, clock=clock, metrics=1)
    async with Client(server, mode=mode, elicitation_handler=Declining(clock, after=3.0), client_info=named("claude-code", "2.1.144")) as client:
        await asked_and_answered_by_the_agent(client, mode)
    assert (await scrape(server))[("guide_unread_declines_total", ("client", "claude-code"), ("era", mode))] == 1


async def test_a_slow_human_decline_stays_a_decline_whoever_the_client(docroot, mode):
    clock = Clock()
    server = create_server(docroot.root, project=docroot.project, watch=False, clock=clock)
    async with Client(server, mode=mode, elicitation_handler=Declining(clock, after=5.0), client_info=named("claude-code", "2.1.144")) as client:
        error = await read_error(client, "guide://_review")
    assert error.error.message == DECLINED


async def test_codex_is_asked_through_its_agent_not_a_form_it_would_not_show(docroot, mode):
    """Guide's own row: Codex declares form elicitation but declines forms itself or shows no fields (docs/clients.md)."""
    clock = Clock()
    declining = Declining(clock, after=0.0)
    server = create_server(docroot.root, project=docroot.project, watch=False, clock=clock)
    async with Client(server, mode=mode, elicitation_handler=declining, client_info=named("codex-mcp-client", "0.154.0")) as client:
        await asked_and_answered_by_the_agent(client, mode)
    assert declining.forms == []


async def test_a_client_the_operator_says_shows_no_forms_but_renders_apps_gets_the_app_form(docroot, mode):
    docroot.write("guide.yaml", "clients:\n  - {name: acme-*, versions: '>=2', forms: hidden, apps: true}\n")
    clock = Clock()
    declining = Declining(clock, after=0.0)
    server = create_server(docroot.root, project=docroot.project, watch=False, clock=clock)
    async with Client(server, mode=mode, elicitation_handler=declining, client_info=named("Acme-Desk", "2.4")) as client:
        told = await read(client, "guide://_review")
        assert f"Guide's `{OPEN_TOOL}` tool" in told and "guide://_review" in told
        assert {OPEN_TOOL, SUBMIT_TOOL} <= {tool.name for tool in await client.list_tools()}  # listed to it as to an Apps client
        shown = (await client.call_tool(OPEN_TOOL, {"uri": "guide://_review"})).structured_content
        answers = {"target": {"action": "accept", "content": {"mode": "uncommitted"}}}
        done = await client.call_tool(SUBMIT_TOOL, {"uri": shown["uri"], "state": shown["state"], "answers": answers})
    assert done.structured_content["text"] == "REVIEW mode=uncommitted reference= extra=\n" and declining.forms == []
    async with Client(server, mode=mode, elicitation_handler=declining, client_info=named("acme-desk", "1.9")) as client:
        assert {tool.name for tool in await client.list_tools()} == {"read_resource"}  # an older version: its declaration stands
        await asked_and_answered_by_the_agent(client, mode)  # it declares forms: it declines at once, so the agent asks
    assert len(declining.forms) == 1


async def test_an_apps_host_the_operator_says_shows_no_forms_gets_the_app_form_not_native_forms(docroot, mode):
    docroot.write("guide.yaml", "clients:\n  - {name: both-host, forms: hidden}\n")
    server = create_server(docroot.root, project=docroot.project, watch=False)
    declining = Declining(Clock(), after=0.0)
    async with Client(server, mode=mode, elicitation_handler=declining, extensions=APPS, client_info=named("both-host")) as client:
        assert f"Guide's `{OPEN_TOOL}` tool" in await read(client, "guide://_review")
    assert declining.forms == []


async def test_an_operator_s_row_counts_from_the_next_read_without_a_restart(docroot, mode, caplog):
    caplog.set_level(logging.DEBUG, logger="guide")
    clock = Clock()
    server = create_server(docroot.root, project=docroot.project, clock=clock)  # watching its files, as `guide serve` does
    judged = lambda: len([r for r in caplog.records if r.name == "guide" and ("listings changed" in r.message or "unchanged" in r.message)])  # noqa: E731
    async with Client(server, mode=mode, elicitation_handler=Declining(clock, after=2.0), client_info=named("acme-agent")) as client:
        assert (await read_error(client, "guide://_review")).error.message == DECLINED  # 2 s: a person's, by the default bound
        await eventually(lambda: asyncio.sleep(0, judged() > 0), timeout=30)  # the server watches once it has answered
        before = judged()
        docroot.write("guide.yaml", "clients:\n  - {name: acme-agent, declines: automatic}\n")
        await eventually(lambda: asyncio.sleep(0, judged() > before), timeout=30)
        await asked_and_answered_by_the_agent(client, mode)  # the same decline, the same session: now no person's


async def test_a_client_that_shows_no_choice_titles_reads_them_in_the_message(docroot, mode):
    docroot.write("guide.yaml", "clients:\n  - {name: plain-forms, titles: false}\n")
    server = create_server(docroot.root, project=docroot.project, watch=False)
    seen = []

    async def answer(message, response_type, params, context):
        seen.append((message, params.requested_schema))
        return ElicitResult(action="cancel")

    for name in ("plain-forms", "titled-forms"):
        async with Client(server, mode=mode, elicitation_handler=answer, client_info=named(name)) as client:
            await client.read_resource("guide://_schema")
    (plain, plain_schema), (titled, titled_schema) = seen
    assert titled == "Fill in everything." and plain_schema == titled_schema  # the schema stays the author's (C7.9)
    assert plain == "Fill in everything.\n\nsize: s = Small; l = Large\npicks: p = Pea; q = Queue"
