"""A legacy read whose client was killed stops waiting at once (issue 25, finding 11).

Before, the read waited for the client's answer for the whole `--answer-timeout`
(600 s by default), holding what it had gathered, for each of 40 killed clients
of 40. Now the wait ends when the request's HTTP connection is found closed.
"""

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from http_served import http_server

pytestmark = pytest.mark.slow  # kills clients and waits for the server to notice: run by .ci/run with -m slow

CLIENTS = 5
SAFETY_NET = 60.0  # seconds; a net for a read that never stops waiting, not a measurement (the answer timeout is 600 s)
CLIENT = Path(__file__).with_name("killed_client.py")


async def test_a_killed_legacy_client_frees_its_waiting_read(docroot, mode, tmp_path):
    if mode != "legacy":
        pytest.skip("only a legacy read waits for its client within the request")
    with http_server(docroot.root, docroot.project, tmp_path / "server.log") as served:
        clients = [subprocess.Popen([sys.executable, str(CLIENT), served.url, "guide://_review"], stdout=subprocess.PIPE, text=True)
                   for _ in range(CLIENTS)]
        try:
            for client in clients:  # each read now waits for its form
                assert await asyncio.to_thread(client.stdout.readline) == "asked\n"
            for client in clients:
                client.kill()
                client.wait()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + SAFETY_NET
            while served.log_text().count("its connection closed") < CLIENTS and loop.time() < deadline:
                await asyncio.sleep(0.2)
        finally:
            for client in clients:
                client.kill()
        log = served.log_text()
    assert log.count("guide: waiting for client") == CLIENTS
    assert log.count("stopped waiting for client") == CLIENTS, log[-3000:]
    assert log.count("its connection closed") == CLIENTS
    assert "Traceback" not in log
