"""Issue 26: agents that see only tools find the docroot's commands and skills in the `read_resource` tool's
description and in the server's instructions: a bounded catalog, kept current as the docroot changes, both eras."""

import asyncio
from contextlib import AsyncExitStack

from e2e_docroot import write_file
from e2e_support import eventually
from fastmcp import Client
from fastmcp.client.messages import MessageHandler
from mcp.client.subscriptions import listen

from guide.routes.catalog import MAX_ENTRIES, MAX_ENTRY
from guide.server.app import INSTRUCTIONS, READ_TOOL_DESCRIPTION, create_server

ADDED = """\
    ---
    description: Added while connected.
    elicitation:
      topic:
        message: Which topic?
        schema: {type: object, properties: {topic: {type: string}}, required: [topic]}
    ---
    ADDED {{kwargs.topic}}
    """
ADDED_ENTRY = "- guide://_added: Added while connected. Needs topic=<string>."
ENTRYPOINTS = 5000


class ToolChanges(MessageHandler):
    """Counts the tools/list_changed notifications a client receives."""

    def __init__(self) -> None:
        self.tools = 0

    async def on_tool_list_changed(self, message) -> None:
        self.tools += 1


def negotiated(mode: str) -> str:
    """The client mode that makes a new session ask for instructions: the handshake, or `server/discover` on 2026-07-28."""
    return "legacy" if mode == "legacy" else "auto"


async def read_tool(client: Client) -> str:
    return next(tool.description for tool in await client.list_tools() if tool.name == "read_resource")


async def test_an_added_command_shows_in_the_tool_description_and_in_a_new_sessions_instructions(server, docroot, connect, mode):
    changes = ToolChanges()
    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(connect(server, message_handler=changes))
        if mode == "2026-07-28":
            await stack.enter_async_context(listen(client.session, tools_list_changed=True))
        before = await read_tool(client)
        async with Client(server, mode=negotiated(mode)) as first:
            instructions_before = first.instructions
        docroot.write("_commands/added.md", ADDED)
        await eventually(lambda: asyncio.sleep(0, changes.tools), timeout=30)  # told to list tools again
        after = await read_tool(client)
        async with Client(server, mode=negotiated(mode)) as fresh:
            if mode == "2026-07-28":
                assert fresh.session.protocol_version == "2026-07-28"  # negotiated by server/discover, which carries the instructions
            instructions_after = fresh.instructions
    assert before.startswith(READ_TOOL_DESCRIPTION) and "guide://_review" in before and ADDED_ENTRY not in before
    assert instructions_before.startswith(INSTRUCTIONS) and ADDED_ENTRY not in instructions_before
    assert ADDED_ENTRY in after and ADDED_ENTRY in instructions_after
    assert "- guide://_review: " in after and "Needs mode=<" in after


async def test_the_catalog_stays_bounded_at_5000_entrypoints(tmp_path, mode):
    root = tmp_path / "large"
    for number in range(ENTRYPOINTS):
        write_file(root / f"_commands/c{number:04d}.md", f"---\ndescription: Command {number} {'x' * 300}\n---\nC{number}\n")
    server = create_server(root, project=tmp_path, watch=False)
    async with Client(server, mode=negotiated(mode)) as client:
        description = await read_tool(client)
        instructions = client.instructions
    bound = MAX_ENTRIES * (MAX_ENTRY + 4) + 400
    for text in (description, instructions):
        assert len(text) < bound
        assert text.count("\n- guide://_c") == MAX_ENTRIES
        assert f"... and {ENTRYPOINTS - MAX_ENTRIES} more: see guide://_help for all of them." in text
    assert "- guide://_c0000: Command 0 xxx" in description and "guide://_c4999" not in description
