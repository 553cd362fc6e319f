"""Values checked against patterns only the backtracking engine runs never hold up other clients (issue 25, finding 7).

Such a check may take its whole time budget whatever the value's size; the
server runs it in a thread of the few it keeps for such checks, lets go of the
interpreter lock while matching, and bounds a request's checks in all.
"""

import asyncio
import time

from e2e_support import read
from http_served import http_server
from mcp import MCPError

FIELDS = 100
PATTERN = "(?!(a|aa)+b).*"  # a lookahead: RE2 cannot run it
HOSTILE = "a" * 22 + "c"  # matches, after (a|aa)+ tried every split of the a's (some 0.03 s each)


def _write_hostile(docroot) -> None:
    fields = "\n".join(f'        f{n}: {{type: string, pattern: "{PATTERN}"}}' for n in range(FIELDS))
    required = ", ".join(f"f{n}" for n in range(FIELDS))
    docroot.write(
        "_commands/slow.md",
        f"---\ndescription: Many backtracking patterns.\nelicitation:\n  all:\n    message: Fill all.\n    schema:\n"
        f"      type: object\n      properties:\n{fields}\n      required: [{required}]\n---\nSLOW\n",
    )


HOSTILE_READ = "guide://_slow?" + "&".join(f"f{n}={HOSTILE}" for n in range(FIELDS))
"""Every field given as a keyword: each value is checked (and would pass) before anything renders."""


async def _read_or_error(client, uri: str) -> str:
    try:
        return await read(client, uri)
    except MCPError as error:
        return error.error.message


async def _timed_plain_read(client) -> float:
    began = time.monotonic()
    assert "STYLE GUIDE" in await read(client, "guide://docs/style")
    return time.monotonic() - began


async def test_another_clients_plain_read_is_answered_while_hostile_pattern_reads_run(docroot, connect, tmp_path):
    _write_hostile(docroot)
    with http_server(docroot.root, docroot.project, tmp_path / "server.log") as served:
        async with connect(served.url) as hostile, connect(served.url) as other:
            baseline = min([await _timed_plain_read(other) for _ in range(3)])
            reads = [asyncio.create_task(_read_or_error(hostile, HOSTILE_READ)) for _ in range(4)]
            await asyncio.sleep(0.5)  # the server is checking the hostile reads' values
            waited = await _timed_plain_read(other)
            busy = sum(not task.done() for task in reads)
            answers = await asyncio.gather(*reads)
    # One hostile read's checks take some 3 s unbounded; on the event loop they kept every other read waiting that long.
    assert waited < max(2.0, 50 * baseline), f"a plain read took {waited:.2f} s while hostile reads ran (alone: {baseline:.3f} s)"
    assert busy >= 1  # the hostile reads were still at work when the plain read was answered
    for message in answers:  # each hostile read ends with one line, once its checks used up the request's budget
        assert "took too long in all" in message and "\n" not in message
