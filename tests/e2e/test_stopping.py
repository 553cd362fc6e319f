"""SIGTERM ends open `subscriptions/listen` streams gracefully, at once (issue 25, finding 11).

Before, uvicorn waited its whole grace period (10 s) for the streams, which
only end when told to, then cancelled them: a traceback per stream in the log,
and clients saw their streams lost. Now the streams are told as the stop begins.
"""

import asyncio
from contextlib import AsyncExitStack

import pytest
from fastmcp import Client
from http_served import http_server
from mcp.client.subscriptions import listen

STREAMS = 3


async def _until_ended(subscription) -> str:
    try:
        async for _ in subscription:
            pass
    except Exception as error:  # noqa: BLE001 - what the client saw is the result
        return f"lost: {type(error).__name__}"
    return "graceful"


async def test_sigterm_ends_open_listen_streams_gracefully_without_a_traceback(docroot, mode, tmp_path):
    if mode != "2026-07-28":
        pytest.skip("listen streams are 2026-07-28's")
    with http_server(docroot.root, docroot.project, tmp_path / "server.log") as served:
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(Client(served.url, mode=mode))
            streams = [await stack.enter_async_context(listen(client.session, resources_list_changed=True)) for _ in range(STREAMS)]
            ends = [asyncio.create_task(_until_ended(stream)) for stream in streams]
            status = await asyncio.to_thread(served.terminate)
            ended = await asyncio.wait_for(asyncio.gather(*ends), 30)
            await stack.aclose()
        log = served.log_text()
    assert status in (0, -15)  # uvicorn ends by the signal it caught, once it has stopped
    assert ended == ["graceful"] * STREAMS
    assert "Traceback" not in log and "graceful shutdown exceeded" not in log, log[-2000:]
