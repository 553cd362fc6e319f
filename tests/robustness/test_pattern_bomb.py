"""Issue 33, finding 1, on the server: a pattern whose nested counted repeats expand to billions is refused where the server builds it.

The 40-byte pattern `(?<=x)(?:(?:(?:a{1000}){1000}){1000})` (a look-behind: RE2
refuses it, so only the backtracking engine could run it) grew `guide check`
past 23 GB and a server building the docroot with it. Every read of the command
now fails with one authoring error naming file and line, and the server's peak
stays small; `tests/forms/test_pattern_size.py` holds the same for `guide check`.
"""

import pytest
from fastmcp import Client
from mcp import MCPError
from support.eras import MODES

from guide.server.errors import UNEXPECTED
from robustness.capped import capped_server, peak
from robustness.hostile import write

NESTED = "(?<=x)(?:(?:(?:a{1000}){1000}){1000})"
PEAK = 400 * 1024 * 1024
"""The server's peak resident memory after the reads (a few times its ~100 MB at rest; compiling the pattern wanted many GB)."""


@pytest.fixture(scope="module")
def bomb_server(tmp_path_factory):
    base = tmp_path_factory.mktemp("pattern-bomb")
    (base / "project").mkdir()
    write(base / "docroot/_commands/bomb.md", "---\ndescription: A pattern bomb.\nelicitation:\n  f:\n    message: M.\n    schema:\n"
          f"      type: object\n      properties:\n        x: {{type: string, pattern: '{NESTED}'}}\n---\nBOMB {{{{kwargs.x}}}}\n")
    write(base / "docroot/_commands/fine.md", "FINE\n")
    with capped_server(base / "docroot", base / "project", base / "server.log") as (url, process):
        yield url, process


@pytest.mark.parametrize("mode", MODES)
async def test_33_1_a_server_read_of_a_pattern_bomb_fails_in_one_line_and_the_server_stays_small(bomb_server, mode):
    url, process = bomb_server
    async with Client(url, mode=mode) as client:
        for uri in ("guide://_bomb", "guide://_bomb?x=xa"):
            with pytest.raises(MCPError) as raised:
                await client.read_resource(uri)
            message = raised.value.error.message
            assert message != UNEXPECTED and "\n" not in message
            assert message.startswith("_commands/bomb.md:9: ") and "repeats too much" in message, message
        assert (await client.read_resource("guide://_fine"))[0].text == "FINE\n"
    assert process.poll() is None
    assert peak(process) < PEAK, f"the server peaked at {peak(process) >> 20} MiB"
