"""`--list-page-size` (issue 17): which clients follow `nextCursor`, the evidence behind its default (0: one page)."""

import os
import sys

import pytest
from e2e_docroot import write_file
from fastmcp import Client
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from guide.server.app import create_server

PAGE = 3


@pytest.fixture
def paged(docroot):
    for number in range(10):
        write_file(docroot.root / f"notes/n{number}.md", f"Note {number}.\n")
    return create_server(docroot.root, project=docroot.project, watch=False, list_page_size=PAGE)


async def test_fastmcps_client_follows_next_cursor_to_the_end(paged, mode):
    async with Client(paged, mode=mode) as client:
        everything = await client.list_resources()
        first = await client.list_resources_mcp()
    assert len(everything) > PAGE and len(first.resources) == PAGE and first.next_cursor is not None


async def test_the_sdk_session_hands_the_caller_one_page(docroot, paged, mode, tmp_path):
    args = ["-m", "guide", "serve", "--docroot", str(docroot.root), "--list-page-size", str(PAGE)]
    env = {key: value for key, value in os.environ.items() if key != "GUIDE_STATE_KEYS"}
    parameters = StdioServerParameters(command=sys.executable, args=args, env={**env, "GUIDE_CACHE_DIR": str(tmp_path / "cache")}, cwd=str(tmp_path))
    async with stdio_client(parameters, errlog=open(os.devnull, "w")) as (read_stream, write_stream):  # noqa: SIM115 - closed with the process
        async with ClientSession(read_stream, write_stream) as session:
            await (session.initialize() if mode == "legacy" else session.discover())
            page = await session.list_resources()
    assert len(page.resources) == PAGE and page.next_cursor is not None  # a client that lists once sees three items


async def test_one_page_by_default(docroot, mode):
    server = create_server(docroot.root, project=docroot.project, watch=False)
    async with Client(server, mode=mode) as client:
        first = await client.list_resources_mcp()
    assert first.next_cursor is None
