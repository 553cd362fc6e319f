"""Issue 36: `mcp-remote` (the stdio-to-HTTP bridge Claude Desktop uses, pinned in tests/e2e/mcp-remote) with a wrong token
prints that Guide refused the token, and with the right one carries the session.

A 401 sends `mcp-remote` into OAuth discovery, which ends at `POST /register`; what Guide answers there is what its
message says (guide.server.challenge). Before, it printed "Dynamic Client Registration rejected (HTTP 404): Not Found".
"""

import json
import os
import select
import subprocess
from pathlib import Path

import pytest
from node_support import NODE, missing
from support.servers import ALICE_TOKEN, example_http

FOLDER = Path(__file__).resolve().parent / "mcp-remote"
PROXY = FOLDER / "node_modules" / "mcp-remote" / "dist" / "proxy.js"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}
REFUSED = "this bearer token was refused: it is not one of the tokens your operator issued (GUIDE_AUTH_TOKENS)"
TIMEOUT = 90.0

pytestmark = [pytest.mark.slow, pytest.mark.skipif(missing(FOLDER, "mcp-remote") is not None, reason=missing(FOLDER, "mcp-remote") or "")]


def bridge(url: str, token: str, home: Path) -> tuple[int | None, str, str]:
    """Run mcp-remote as Claude Desktop's README snippet does (the header in an environment variable) and send one `initialize`;
    its exit status (None: still running, as a bridge that connected is), its first line of output, and its standard error."""
    env = {**os.environ, "HOME": str(home), "MCP_REMOTE_CONFIG_DIR": str(home / "mcp-auth"), "AUTH_HEADER": f"Bearer {token}"}
    command = [str(NODE), str(PROXY), url, "--header", "Authorization:${AUTH_HEADER}"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=home, text=True) as process:
        try:
            process.stdin.write(json.dumps(INITIALIZE) + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], TIMEOUT)
            line = process.stdout.readline() if ready else ""
            code = process.wait(TIMEOUT) if ready and not line else process.poll()  # its output ended: it is exiting
        finally:
            process.kill()
        return code, line, process.stderr.read()


def test_a_wrong_token_is_reported_as_refused_and_the_right_one_connects(tmp_path, mode):
    if mode != "legacy":
        pytest.skip("the refusal comes before any protocol: one era is enough")
    with example_http(tmp_path / "server", {"GUIDE_AUTH_TOKENS": f"alice:{ALICE_TOKEN}"}) as url:
        code, _, refused = bridge(url, "not-the-token", tmp_path)
        _, line, accepted = bridge(url, ALICE_TOKEN, tmp_path)
    assert code != 0 and REFUSED in refused and "Guide registers no OAuth clients" in refused, refused
    assert json.loads(line)["result"]["serverInfo"]["name"] == "guide", line + accepted
