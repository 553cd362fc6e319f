"""An answer too large for what HTTP clients take fails with Guide's own line, not a transport error (issue 25, finding 13).

The MCP SDK's HTTP client refuses a server-sent event over 1 MiB; before the
bound, a 600 KB document of double quotes (1.2 MB once JSON-escaped) reached a
legacy client as a failed connection. Now such an answer is not sent, and the
read fails saying why; an answer within the bound still arrives whole.
"""

import pytest
from e2e_support import read
from fastmcp import Client
from fastmcp.exceptions import ToolError
from http_served import http_server
from mcp import MCPError

from guide.server.sizes import MAX_MESSAGE_BYTES

QUOTES = '"' * 600_000  # 600 KB on disk, twice that once escaped
FITS = '"' * 300_000  # 600 KB once escaped
WIDE = "é" * 524_000  # just under the 1 MiB file cap; as many bytes once encoded


async def test_an_answer_over_what_http_clients_take_fails_with_guides_line(docroot, mode, tmp_path):
    docroot.write("docs/quotes.md", QUOTES)
    docroot.write("docs/fits.md", FITS)
    docroot.write("docs/wide.md", WIDE)
    with http_server(docroot.root, docroot.project, tmp_path / "server.log") as served:
        await _answers(served, mode)
        assert "Traceback" not in served.log_text()


async def _answers(served, mode: str) -> None:
    async with Client(served.url, mode=mode) as client:
        for address in ("guide://docs/quotes", "guide://docs/wide"):
            with pytest.raises(MCPError) as refused:
                await client.read_resource(address)
            message = refused.value.error.message
            assert message.startswith(f"the answer to {address} would be ") and "\n" not in message
            assert f"over HTTP Guide sends at most {MAX_MESSAGE_BYTES:,} in one message" in message
        assert await read(client, "guide://docs/fits") == FITS  # within the bound: whole, and the session still serves
        # The read tool's result carries its text twice (content and structured content): what fits as a read does not.
        with pytest.raises(ToolError, match="over HTTP Guide sends at most"):
            await client.call_tool("read_resource", {"uri": "guide://docs/fits"})
        result = await client.call_tool("read_resource", {"uri": "guide://docs/style"})
        assert "STYLE GUIDE" in result.content[0].text


COMMANDS = 150
DESCRIPTION = "d" * 8_000  # 150 commands of 8 KB descriptions: a listing of some 1.2 MB


async def test_a_listing_over_what_http_clients_take_fails_naming_the_page_setting(docroot, mode, tmp_path):
    for number in range(COMMANDS):
        docroot.write(f"_commands/c{number}.md", f"---\ndescription: {DESCRIPTION}\n---\nC{number}\n")
    with http_server(docroot.root, docroot.project, tmp_path / "one-page.log") as served:
        async with Client(served.url, mode=mode) as client:
            with pytest.raises(MCPError) as refused:
                await client.list_resources()
            message = refused.value.error.message
            assert message.startswith("the listing of resources would be ") and "set GUIDE_LIST_PAGE_SIZE" in message
            assert "STYLE GUIDE" in await read(client, "guide://docs/style")  # the session still serves
    with http_server(docroot.root, docroot.project, tmp_path / "paged.log", environ={"GUIDE_LIST_PAGE_SIZE": "50"}) as served:
        async with Client(served.url, mode=mode) as client:
            listed = await client.list_resources()  # page after page, each within the bound
    assert sum(resource.name.startswith("c") and resource.name[1:].isdigit() for resource in listed) == COMMANDS


BIG = "x" * 600_000  # a 600 KB render: one copy fits, the two a tool result carries (content and structured content) do not
ASKS_BIG = "---\ndescription: Asks, then renders 600 KB.\nelicitation:\n  f:\n    message: Go?\n    schema:\n      type: object\n" \
           "      properties:\n        go: {type: boolean}\n      required: [go]\n---\n" + BIG + "{{kwargs.go}}\n"


async def test_33_3_every_tool_result_counts_both_its_copies_against_what_http_clients_take(docroot, mode, tmp_path):
    """Issue 33 finding 3: the App form's tools put the rendered text in the result twice; a 600 KB render had reached a legacy
    HTTP client as "Server-sent event exceeded the 1048576 byte limit". Now each tool fails with Guide's one line."""
    docroot.write("_commands/big.md", "---\ndescription: Renders 600 KB.\n---\n" + BIG + "\n")
    docroot.write("_commands/asksbig.md", ASKS_BIG)
    with http_server(docroot.root, docroot.project, tmp_path / "server.log") as served:
        async with Client(served.url, mode=mode) as client:
            assert await read(client, "guide://_big") == BIG + "\n"  # one copy: sent whole
            for tool, arguments in (("read_resource", {"uri": "guide://_big"}), ("open_form", {"uri": "guide://_big"})):
                with pytest.raises(ToolError) as refused:
                    await client.call_tool(tool, arguments)
                assert str(refused.value).startswith("the answer to guide://_big would be ") and "\n" not in str(refused.value), tool
            asked = await client.call_tool("open_form", {"uri": "guide://_asksbig"})  # the form itself is small
            state = asked.structured_content["state"]
            with pytest.raises(ToolError, match=r"^the answer to guide://_asksbig would be [\d,]+ bytes once encoded; over HTTP Guide sends"):
                await client.call_tool("submit_form", {"uri": "guide://_asksbig", "state": state, "answers": {"f": {"action": "accept", "content": {"go": True}}}})
            small = await client.call_tool("open_form", {"uri": "guide://docs/style"})
            assert "STYLE GUIDE" in small.structured_content["text"]  # the session still serves
        assert "Traceback" not in served.log_text()
