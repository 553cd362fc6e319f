"""Issue 36: Guide's texts lead an agent to its tools through a gateway that renames them (FastMCP's `mount` with a namespace:
`read_resource` is listed as `guide_read_resource`, and the namespace is put into each resource's address).

The agent here does only what the texts say: it finds the tool a text names ("Guide's `read_resource` tool", which a client
or gateway may list with a prefix) among the tools it is given, and the address or form to read, then calls it.
"""

import re

from fastmcp import Client, FastMCP
from mcp.client import advertise

from guide.examples import DOCROOT
from guide.server.app import create_server

NAMED = re.compile(r"Guide's `([a-z_]+)` tool \(listed as `\1` or with a prefix")
APPS = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})]
REACHED = "Compare `feature/search` with the main branch"


def gateway(tmp_path) -> FastMCP:
    """A gateway serving Guide (the bundled example) under the namespace `guide`."""
    front = FastMCP("gateway")
    front.mount(create_server(DOCROOT, project=tmp_path, watch=False), namespace="guide")
    return front


async def named_tool(client: Client, text: str) -> str:
    """The listed tool a Guide text names: its name as written, or with a prefix before it, as the text says it may be listed."""
    (wanted,) = set(NAMED.findall(text))
    found = [tool.name for tool in await client.list_tools() if tool.name == wanted or re.fullmatch(rf"\w+?_{wanted}", tool.name)]
    assert len(found) == 1, f"the text names `{wanted}`; listed: {[tool.name for tool in await client.list_tools()]}"
    return found[0]


async def test_an_agent_following_the_catalog_and_the_questions_reaches_the_read_tool_and_the_text(tmp_path, mode):
    async with Client(gateway(tmp_path), mode=mode) as client:
        (read_tool,) = [tool for tool in await client.list_tools() if "Commands and skills" in (tool.description or "")]
        assert read_tool.name == "guide_read_resource"  # renamed: Guide's texts never say this name, yet lead here
        catalog = read_tool.description
        tool = await named_tool(client, catalog)
        address = re.search(r"^- (guide://_review):", catalog, re.M).group(1)
        asked = await client.call_tool(tool, {"uri": address}, raise_on_error=False)
        assert asked.is_error and asked.structured_content["reason"] == "missing"
        questions = asked.content[0].text
        way = re.search(r"^    (guide://\S+)$", questions, re.M).group(1)  # the address to read once the person answered
        answered = way.replace("<uncommitted|branch|pull-request>", "branch") + "&reference=feature%2Fsearch"
        done = await client.call_tool(await named_tool(client, questions), {"uri": answered})
    assert REACHED in done.content[0].text


async def test_an_agent_told_to_open_the_app_form_reaches_open_form_through_the_gateway(tmp_path, mode):
    async with Client(gateway(tmp_path), mode=mode, extensions=APPS) as client:
        catalog = next(tool.description for tool in await client.list_tools() if "Commands and skills" in (tool.description or ""))
        told = (await client.call_tool(await named_tool(client, catalog), {"uri": "guide://_review"})).content[0].text
        uri = re.search(r"with the argument uri set to `([^`]+)`", told).group(1)
        opened = await client.call_tool(await named_tool(client, told), {"uri": uri})
    assert opened.structured_content["guide"] == "form" and [form["id"] for form in opened.structured_content["forms"]] == ["target", "depth"]
