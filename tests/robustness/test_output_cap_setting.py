"""Issue 19, finding 1 (the setting): the output cap is configurable, `guide serve --max-output CHARS` and `create_server(max_output=...)`.

Before, the cap was fixed at `guide.render.MAX_OUTPUT` for a server: the
option did not exist and `create_server` took no cap.
"""

import pytest
from fastmcp import Client
from mcp import MCPError
from support.files import write_files

from guide.cli import main
from guide.server.app import create_server
from robustness.raw_stdio import RawStdio

FILES = {
    "_commands/long.md": "---\ndescription: 20,000 characters.\n---\n" + "0123456789" * 2000 + "\n",
    "_commands/short.md": "SHORT\n",
}
CAP = 10_000
CAPPED = f"guide://_long: rendering stopped at the output cap of {CAP:,} characters (lookups, loops and partials count too)"


async def test_create_server_takes_the_output_cap(tmp_path, project, mode):
    root = write_files(tmp_path / "docroot", FILES)
    async with Client(create_server(root, project, watch=False, max_output=CAP), mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource("guide://_long")
        assert raised.value.error.message == CAPPED
        tool = await client.call_tool("read_resource", {"uri": "guide://_long"}, raise_on_error=False)
        assert tool.is_error and tool.content[0].text == CAPPED
        assert (await client.read_resource("guide://_short"))[0].text == "SHORT\n"
    async with Client(create_server(root, project, watch=False), mode=mode) as client:
        assert len((await client.read_resource("guide://_long"))[0].text) == 20_001  # the default cap is larger


def test_guide_serve_takes_the_output_cap(tmp_path, project):
    root = write_files(tmp_path / "docroot", FILES)
    client = RawStdio(root, project, "--max-output", str(CAP))
    try:
        client.initialize()
        long = client.request("resources/read", {"uri": "guide://_long"})
        assert client.response(long)["error"]["message"] == CAPPED
        short = client.request("resources/read", {"uri": "guide://_short"})
        assert client.response(short)["result"]["contents"][0]["text"] == "SHORT\n"
    finally:
        client.close()


@pytest.mark.parametrize("value", ["0", "-5", "many"])
def test_guide_serve_refuses_a_cap_that_is_not_a_positive_number(value, capsys):
    assert main(["serve", "--max-output", value]) == 2
    assert capsys.readouterr().err == f"guide serve: --max-output: '{value}' is not a number greater than 0\n"
