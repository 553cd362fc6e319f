"""`guide serve` writes its log for a reader that is not a terminal: one line per record, never wrapped."""

import json
import os
import subprocess
import sys

from guide.examples import DOCROOT

TIMEOUT = 60


def _messages(*messages: dict) -> str:
    return "".join(json.dumps(message) + "\n" for message in messages)


def test_a_piped_log_keeps_each_record_on_one_line():
    value = "sideways-" + "and-a-much-longer-value-" * 4
    requests = _messages(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": f"guide://_review?mode={value}"}},
    )
    command = [sys.executable, "-m", "guide", "serve", "--docroot", str(DOCROOT)]
    done = subprocess.run(command, input=requests, capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "FASTMCP_LOG_LEVEL": "INFO"})
    lines = [line for line in done.stderr.splitlines() if "Error reading resource" in line]
    assert len(lines) == 1, done.stderr
    assert lines[0].endswith(f"invalid keyword mode: {value} is not one of the choices; it accepts one of: uncommitted, branch, pull-request")
