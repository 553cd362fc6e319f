"""Issue 29 item 5: the access line never shows a value, whichever way a read passes it (keywords, args, prompt arguments)."""

import logging

import pytest
from fastmcp import Client
from mcp import MCPError

from guide.examples import DOCROOT
from guide.server.app import create_server

SECRET = "feature-secret-7"


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_args_and_prompt_arguments_are_counted_never_shown(tmp_path, caplog, mode):
    server = create_server(DOCROOT, project=tmp_path, watch=False)
    with caplog.at_level(logging.INFO, logger="guide.access"):
        async with Client(server, mode=mode) as client:
            await client.read_resource("guide://_workflow/phase/planning")
            await client.get_prompt("review", {"mode": "branch", "reference": SECRET, "depth": "quick"})
            await client.get_prompt("guide", {"command": f"_review --mode branch --reference {SECRET} --depth quick"})
            with pytest.raises(MCPError):
                await client.read_resource(f"guide://_nope/{SECRET}?token={SECRET}")
    lines = [record.getMessage() for record in caplog.records if record.name == "guide.access"]
    assert [line.split(f" ({mode}, native): ")[0] for line in lines] == [
        "- read guide://_workflow/phase (1 arg)",
        "- read guide://_review?depth&mode&reference",
        "- read guide://_review?depth&mode&reference",
        f"- read guide://_nope/{SECRET}?token",  # an address that names nothing is shown as given, without its values
    ]
    assert [line.split("): ")[1].rsplit(" in ", 1)[0] for line in lines] == ["ok", "ok", "ok", "failed (not-found)"]
    assert SECRET not in "\n".join(lines[:3]) and "planning" not in lines[0]


async def test_no_access_line_when_turned_off(tmp_path, caplog):
    server = create_server(DOCROOT, project=tmp_path, watch=False, access_log=0)
    with caplog.at_level(logging.INFO, logger="guide.access"):
        async with Client(server, mode="2026-07-28") as client:
            await client.read_resource("guide://_help")
    assert not [record for record in caplog.records if record.name == "guide.access"]
