"""Clients that connect and never finish a request cannot lock the others out (issue 25, finding 14).

Before the bound, uvicorn kept such a connection for ever: past the file
descriptor limit every new client was refused while asyncio logged a traceback
per refused accept (14 MiB of log in 5 s with a limit of 256). Now a client has
`GUIDE_REQUEST_TIMEOUT` seconds to send a whole request, connections past
`GUIDE_MAX_CONNECTIONS` (lowered under the descriptor limit) are closed as they
come, and each of these is logged as one line at most every 10 s.
"""

import asyncio
import socket

from e2e_support import read
from http_served import http_server

DESCRIPTORS = 256
SLOW = 300  # more connections than the server has descriptors
SAFETY_NET = 60.0  # seconds; a net for a server that never closes them, not a measurement
HALF_A_HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
A_HEAD_AND_HALF_ITS_BODY = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\""


def _open_slow_connections(port: int) -> list[socket.socket]:
    opened = []
    for number in range(SLOW):
        connection = socket.create_connection(("127.0.0.1", port), timeout=5)
        connection.sendall(A_HEAD_AND_HALF_ITS_BODY if number % 2 else HALF_A_HEAD)
        connection.setblocking(False)
        opened.append(connection)
    return opened


def _closed_by_server(connection: socket.socket) -> bool:
    try:
        return connection.recv(1024) == b""
    except BlockingIOError:
        return False
    except OSError:  # reset: refused as it was accepted
        return True


async def test_connections_that_never_finish_a_request_are_closed_and_a_fresh_client_reads(docroot, connect, tmp_path):
    environ = {"GUIDE_REQUEST_TIMEOUT": "2"}
    with http_server(docroot.root, docroot.project, tmp_path / "server.log", environ=environ, descriptors=DESCRIPTORS) as served:
        slow = await asyncio.to_thread(_open_slow_connections, served.port)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + SAFETY_NET
            while (still := [c for c in slow if not _closed_by_server(c)]) and loop.time() < deadline:
                slow = still
                await asyncio.sleep(0.2)
            assert not still, f"{len(still)} of {SLOW} connections that never finished a request are still open"
        finally:
            for connection in slow:
                connection.close()
        async with connect(served.url) as client:
            assert "STYLE GUIDE" in await read(client, "guide://docs/style")
        log = served.log_text()
    assert len(log) < 64 * 1024, f"the log grew to {len(log)} bytes"
    assert "Traceback" not in log
    assert "did not send a whole request within 2 s" in log or "are open, the most GUIDE_MAX_CONNECTIONS allows" in log
