"""docs/clients.md says, for each client the tests drive, which channel it got and whether the answer reached the
rendered text: each row is checked here by driving that client (both eras where it speaks both). Its table of the clients
people use (issue 36) says what each declares and what Guide gives it: each row Guide can drive is checked by a client
naming itself and declaring as the row says.

A probe reads `guide://_review` from the bundled example, answering `mode=branch` and `reference=feature/search`:
by its form handler when Guide asks one (the native form), or, when the read fails with the agent channel's
questions, by reading the address the failure gives with those answers. It returns (channel, reached).
"""

import json
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e_support import Elicitor
from fastmcp import Client
from inspector_support import inspect
from inspector_support import missing as inspector_missing
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client import advertise
from mcp.client.stdio import stdio_client
from mcp_types import ElicitRequest, ElicitResult, InputRequiredResult
from node_support import missing as node_missing
from node_support import run_node_client

from guide.examples import DOCROOT

DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
ANSWERS = {"mode": "branch", "reference": "feature/search", "depth": "quick"}
REACHED = "Compare `feature/search` with the main branch"
NATIVE, AGENT, APP = "native form", "agent questions", "App form"
NODE_V1, NODE_V2 = (Path(__file__).resolve().parent / name for name in ("node", "node-v2"))


def rows() -> dict[str, tuple[str, str]]:
    """Each client's row in docs/clients.md, by id: (channel, reached)."""
    found = {}
    for line in DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"`[a-z0-9-]+`", cells[1]):
            found[cells[1].strip("`")] = (cells[3], cells[4])
    return found


def filled(retry: str) -> str:
    """The address an agent reads once the person answered: each blank the failure left, filled."""
    for name, value in ANSWERS.items():
        retry = re.sub(rf"([?&]{name}=)<[^>]*>", lambda found, value=value: found.group(1) + value.replace("/", "%2F"), retry)
    return retry + ("&reference=feature%2Fsearch" if "reference=" not in retry else "")


def agent_questions(data: dict) -> bool:
    """Whether a failure is the agent channel's: the questions, the follow-up with its condition, and an address."""
    asked = {question["form"]: question["when"] for question in data.get("questions", [])}
    return data.get("reason") == "missing" and asked.get("reference") == {"mode": ["branch", "pull-request"]} and data["retry"].startswith("guide://")


async def fastmcp_probe(mode: str, tmp_path: Path, with_handler: bool) -> tuple[str, bool]:
    from guide.server.app import create_server

    server = create_server(DOCROOT, project=tmp_path, watch=False)
    elicitor = Elicitor().answer(**{name: {name: value} for name, value in ANSWERS.items()})
    options = {"elicitation_handler": elicitor.handle} if with_handler else {}
    async with Client(server, mode=mode, **options) as client:
        try:
            text = (await client.read_resource("guide://_review"))[0].text
        except MCPError as error:
            assert agent_questions(error.error.data), error.error.data
            return AGENT, REACHED in (await client.read_resource(filled(error.error.data["retry"])))[0].text
    assert elicitor.keys, "rendered without asking"
    return NATIVE, REACHED in text


async def apps_probe(mode: str, tmp_path: Path) -> tuple[str, bool]:
    """A client that declares only MCP Apps, calling Guide's App tools as a host does for the model and for the page."""
    from guide.server.app import create_server
    from guide.server.channels.app import OPEN_TOOL, SUBMIT_TOOL

    server = create_server(DOCROOT, project=tmp_path, watch=False)
    apps = advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})
    async with Client(server, mode=mode, extensions=[apps]) as client:
        told = (await client.read_resource("guide://_review"))[0].text
        assert f"Call Guide's `{OPEN_TOOL}` tool" in told, told
        shown = (await client.call_tool(OPEN_TOOL, {"uri": "guide://_review"})).structured_content
        for _ in range(5):
            answers = {form["id"]: {"action": "accept", "content": {name: ANSWERS[name] for name in form["schema"]["properties"]}}
                       for form in shown["forms"]}
            shown = (await client.call_tool(SUBMIT_TOOL, {"uri": shown["uri"], "state": shown["state"], "answers": answers})).structured_content
            if "text" in shown:
                return APP, REACHED in shown["text"]
    raise AssertionError("the App form asked more than five rounds")


async def sdk_probe(mode: str, tmp_path: Path, with_callback: bool) -> tuple[str, bool]:
    asked = []

    async def answer(context, params) -> ElicitResult:
        asked.append(params)
        first = next(iter(params.requested_schema["properties"]))
        return ElicitResult(action="accept", content={first: ANSWERS[first]})

    env = {key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"} | {"FASTMCP_LOG_LEVEL": "CRITICAL"}
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "guide", "serve", "--project", str(tmp_path)], env=env, cwd=str(tmp_path))
    async with stdio_client(parameters, errlog=open(os.devnull, "w")) as streams:  # noqa: SIM115 - closed with the process
        async with ClientSession(*streams, elicitation_callback=answer if with_callback else None) as session:
            await (session.initialize() if mode == "legacy" else session.discover())
            read = lambda uri: lambda **retry: session.read_resource(uri, allow_input_required=True, **retry)  # noqa: E731
            try:
                result = await rounds(read("guide://_review"), answer)
            except MCPError as error:
                assert agent_questions(error.error.data), error.error.data
                return AGENT, REACHED in (await rounds(read(filled(error.error.data["retry"])), answer)).contents[0].text
    assert asked, "rendered without asking"
    return NATIVE, REACHED in result.contents[0].text


async def rounds(send: Callable[..., Awaitable], answer) -> object:
    """A read's final result: on 2026-07-28, each `input_required` round answered and retried, as a client author does."""
    result = await send(input_responses=None, request_state=None)
    for _ in range(10):
        if not isinstance(result, InputRequiredResult):
            return result
        responses = {key: await answer(None, asked.params) for key, asked in result.input_requests.items() if isinstance(asked, ElicitRequest)}
        result = await send(input_responses=responses, request_state=result.request_state)
    raise AssertionError("more than 10 rounds")


def node_probe(folder: Path, tmp_path: Path) -> tuple[str, bool]:
    result = run_node_client(folder, DOCROOT, "guide://_review", ANSWERS, tmp_path, 120)
    assert result["asked"], "rendered without asking"
    return NATIVE, REACHED in result["text"]


def inspector_probe(mode: str, tmp_path: Path) -> tuple[str, bool]:
    failed = inspect(mode, DOCROOT, tmp_path, "--method", "resources/read", "--uri", "guide://_review")
    assert failed.returncode != 0, failed.stdout
    found = re.search(r"guide://_review\?mode=<[^>\s]*>", failed.stdout + failed.stderr)
    assert "Do not guess" in failed.stdout + failed.stderr and found, failed.stdout + failed.stderr
    done = inspect(mode, DOCROOT, tmp_path, "--method", "resources/read", "--uri", filled(found.group(0)))
    assert done.returncode == 0, done.stdout + done.stderr
    (content,) = json.loads(done.stdout)["contents"]
    return AGENT, REACHED in content["text"]


def skip_unless_installed(reason: str | None) -> None:
    if reason is not None:
        pytest.skip(reason)


OUTSIDE = pytest.mark.slow  # clients on Node.js: run by .ci/run with -m slow
CLIENTS = ["fastmcp", "fastmcp-apps", "nothing", "sdk-callback", "sdk-no-callback", *(pytest.param(name, marks=OUTSIDE) for name in (
    "typescript-v1", "typescript-v2", "inspector-cli"))]


@pytest.mark.parametrize("client", CLIENTS)
async def test_each_clients_row_is_what_the_client_got(client, mode, tmp_path):
    if client == "fastmcp":
        observed = await fastmcp_probe(mode, tmp_path, with_handler=True)
    elif client == "fastmcp-apps":
        observed = await apps_probe(mode, tmp_path)
    elif client == "nothing":
        observed = await fastmcp_probe(mode, tmp_path, with_handler=False)
    elif client.startswith("sdk-"):
        observed = await sdk_probe(mode, tmp_path, with_callback=client == "sdk-callback")
    elif client.startswith("typescript-"):
        folder, package, era = (NODE_V1, "@modelcontextprotocol/sdk", "legacy") if client.endswith("v1") else (NODE_V2, "@modelcontextprotocol/client", "2026-07-28")
        if mode != era:
            pytest.skip(f"{client} speaks {era} only")
        skip_unless_installed(node_missing(folder, package))
        observed = node_probe(folder, tmp_path)
    else:
        skip_unless_installed(inspector_missing())
        observed = inspector_probe(mode, tmp_path)
    channel, reached = rows()[client]
    assert observed == (channel, reached == "yes"), f"docs/clients.md says {client} got {channel!r} (reached: {reached}); the test saw {observed}"


def test_every_row_is_driven_by_a_test():
    # The `apps-host` row (Guide's page in Chromium, in the ext-apps host) is checked by tests/e2e/test_app_browser.py.
    driven = {client if isinstance(client, str) else client.values[0] for client in CLIENTS}
    assert set(rows()) == driven | {"apps-host"}


GIVES = {NATIVE, AGENT, APP, f"{NATIVE}; a decline within 4 s: {AGENT}"}
DECLARES = {"form elicitation", "MCP Apps", "nothing"}


def people_s_clients() -> list[dict[str, str]]:
    """The rows of "The clients people use", each cell by its column's name."""
    section = DOC.read_text().split("## The clients people use\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in lines[2:]]


async def people_s_probe(mode: str, tmp_path: Path, row: dict[str, str], decline_after: float | None = None) -> str:
    """The channel Guide gives a client naming itself and declaring as the row says (its form handler answers, or declines
    `decline_after` seconds after each form, by the server's clock)."""
    from mcp_types import Implementation
    from support.clocks import Clock

    from guide.server.app import create_server

    name, _, version = row["clientInfo"].partition(" ")
    clock = Clock()
    elicitor = Elicitor().answer(**{field: {field: value} for field, value in ANSWERS.items()})

    declined: list[str] = []

    async def handler(message, response_type, params, context):
        if decline_after is None:
            return await elicitor.handle(message, response_type, params, context)
        if not declined:  # the forms of a round are shown at once: the time passes once
            clock.advance(decline_after)
        declined.append(message)
        return ElicitResult(action="decline")

    options = {"client_info": Implementation(name=name.strip("`"), version=version.strip() or "1")}
    if row["declares"] == "form elicitation":
        options["elicitation_handler"] = handler
    if row["declares"] == "MCP Apps":
        options["extensions"] = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})]
    async with Client(create_server(DOCROOT, project=tmp_path, watch=False, clock=clock), mode=mode, **options) as client:
        try:
            text = (await client.read_resource("guide://_review"))[0].text
        except MCPError as error:
            if error.error.data.get("reason") != "missing":
                raise
            assert agent_questions(error.error.data), error.error.data
            return AGENT
    if "Call Guide's `open_form` tool" in text:
        return APP
    assert elicitor.keys and REACHED in text, text
    return NATIVE


async def test_each_client_people_use_gets_what_its_row_says(mode, tmp_path):
    driven = [row for row in people_s_clients() if row["declares"] in DECLARES]
    assert {row["client"].split(" (")[0].split(",")[0] for row in driven} >= {
        "Claude Code", "Claude Desktop", "claude.ai", "ChatGPT", "VS Code Copilot", "Cursor", "Goose", "Codex", "Windsurf", "Gemini CLI"}
    for row in driven:
        assert row["Guide gives"] in GIVES, row
        gives, _, declined = row["Guide gives"].partition("; a decline within 4 s: ")
        assert await people_s_probe(mode, tmp_path, row) == gives, row
        if declined:
            assert await people_s_probe(mode, tmp_path, row, decline_after=3.0) == declined, row


async def test_a_person_s_slow_decline_from_a_client_whose_declines_may_be_automatic_stays_a_decline(mode, tmp_path):
    (row,) = [row for row in people_s_clients() if row["clientInfo"].startswith("`claude-code`")]
    with pytest.raises(MCPError) as declined:
        await people_s_probe(mode, tmp_path, row, decline_after=4.5)
    assert declined.value.error.data["reason"] == "declined"
