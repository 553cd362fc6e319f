"""A raw MCP client over stdio: it sends exactly the bytes a test gives, as a hostile client would."""

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
LEGACY = "2025-11-25"
WAIT = 60.0
"""Seconds to wait for one message before the test fails (a bound on failure, never a measured time)."""


class RawStdio:
    """`guide serve` over stdio in a child process, spoken to line by line."""

    def __init__(self, docroot: Path, project: Path, *options: str):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "guide", "serve", "--docroot", str(docroot), "--project", str(project), *options],
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 1

    def _pump(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)

    def send_line(self, line: bytes) -> None:
        """Write one line as given (a newline is added)."""
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        """Write one JSON-RPC message."""
        self.send_line(json.dumps(message).encode())

    def request(self, method: str, params: dict[str, Any]) -> int:
        """Send a request; return its id."""
        request_id, self.next_id = self.next_id, self.next_id + 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id

    def receive(self) -> dict[str, Any]:
        """The next message from the server (notifications included)."""
        try:
            return json.loads(self.lines.get(timeout=WAIT))
        except queue.Empty:
            raise AssertionError(f"the server sent nothing within {WAIT} s") from None

    def until(self, predicate) -> dict[str, Any]:
        """The next message that `predicate` accepts, skipping notifications."""
        while True:
            message = self.receive()
            if predicate(message):
                return message

    def response(self, request_id: int) -> dict[str, Any]:
        """The response to one request, skipping everything else."""
        return self.until(lambda message: message.get("id") == request_id and ("result" in message or "error" in message))

    def initialize(self, capabilities: dict[str, Any] | None = None) -> None:
        """The legacy handshake, with form elicitation declared unless other capabilities are given."""
        params = {"protocolVersion": LEGACY, "capabilities": capabilities or {"elicitation": {"form": {}}}, "clientInfo": {"name": "raw", "version": "0"}}
        self.response(self.request("initialize", params))
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def elicitation(self) -> dict[str, Any]:
        """The next `elicitation/create` request from the server."""
        return self.until(lambda message: message.get("method") == "elicitation/create")

    def close(self) -> None:
        """Stop the server."""
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
