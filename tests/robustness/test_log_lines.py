"""Issue 33, finding 4, end to end: whatever text a client sends, every line of the server's log is one of Guide's, and short.

A real `guide serve --transport http` serves the bundled example. Clients of both
eras put a newline followed by a timestamp, control characters and long runs of
text into everything that may reach the log: their name and version, an
address, a command's keyword, a prompt name and its command, a completion's
argument, the `read_resource` tool's address, an unknown tool and its arguments.
Then every line of the log must begin with a timestamp written by the server (or
be indented, as a traceback's lines are), none may begin with the forged one,
and none may pass the log's line bound, in the access line and the error lines alike.
"""

import re

import pytest
from fastmcp import Client
from mcp_types import Implementation, PromptReference
from support.eras import MODES
from support.servers import example_http

from guide.server.logs import LOG_LINE_LENGTH

FORGED = "2026-01-01 00:00:00,000 INFO guide: forged"
TAINT = f"\n{FORGED}\r\x1b[2K\u202e"
STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: ")
LONGEST = LOG_LINE_LENGTH + 200
"""The longest line these requests may make: the message clipped, the few characters of `TAINT` escaped, the time, level and logger
(a message all of control characters may take up to six times `LOG_LINE_LENGTH` once each is escaped)."""


async def _send_everything(url: str, mode: str, long: int) -> None:
    """Every request a client controls the text of, each carrying `TAINT` and `long` more characters; failures are expected."""
    info = Implementation(name="c" + TAINT + "n" * min(long, 2000), version="v" + TAINT)  # 2026-07-28 sends it in each request's head
    async with Client(url, mode=mode, client_info=info) as client:
        calls = (
            lambda: client.read_resource("guide://_nope" + TAINT.replace("\n", "%0A") + "y" * long),
            lambda: client.read_resource("guide://_review?mode=" + "b" * long + TAINT.replace("\n", "%0A")),
            lambda: client.get_prompt("p" + TAINT + "z" * long),
            lambda: client.get_prompt("guide", {"command": ":nope" + TAINT + "k" * long}),
            lambda: client.complete(PromptReference(name="guide"), {"name": "command", "value": ":x" + TAINT + "v" * long}),
            lambda: client.complete(PromptReference(name="guide" + TAINT), {"name": "command" + TAINT + "a" * long, "value": "x"}),
            lambda: client.call_tool("read_resource", {"uri": "guide://_x" + TAINT + "q" * long}),
            lambda: client.call_tool("nope" + TAINT + "t" * long, {"a" + TAINT: "b" + TAINT}),
            lambda: client.call_tool("read_resource", {"uri": "guide://_review", "extra" + TAINT + "e" * long: 1}),
        )
        for call in calls:
            try:
                await call()
            except Exception:  # noqa: BLE001 - refusals are the point; the log is what is checked
                pass


@pytest.mark.parametrize("mode", MODES)
async def test_33_4_client_text_never_forges_or_floods_a_log_line(tmp_path, mode):
    with example_http(tmp_path, {"GUIDE_NO_CACHE": "1", "GUIDE_ACCESS_LOG": "1"}, "--log-level", "INFO") as url:
        await _send_everything(url, mode, 12_000)
    lines = (tmp_path / "server.log").read_text(errors="replace").splitlines()
    assert any("guide.access" in line for line in lines) and any("Error reading resource" in line for line in lines)
    assert not [line for line in lines if line.startswith(FORGED)]
    assert not [line[:120] for line in lines if not (STAMP.match(line) or line.startswith((" ", "\t")))]
    assert max(len(line) for line in lines) <= LONGEST, max(lines, key=len)[:300]
