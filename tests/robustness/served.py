"""Helpers of the robustness tests that watch a served docroot change: polling a condition, reading text, probing health."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from fastmcp import FastMCP
from mcp import MCPError

SAFETY_NET = 30.0
"""Seconds a condition may take before the test fails: a net for a stuck server, never a measurement."""


async def until(check: Callable[[], Awaitable[Any]], what: str, timeout: float = SAFETY_NET) -> Any:
    """Poll `check` until it returns something truthy; fail naming `what` (and the last answer) after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last: Any = None
    while loop.time() < deadline:
        last = await check()
        if last:
            return last
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what}: still not so after {timeout} s (last: {last!r})")


async def read_or_error(client, uri: str) -> str:
    """The text a read returns, or the message of the error it fails with."""
    try:
        return (await client.read_resource(uri))[0].text
    except MCPError as error:
        return f"error: {error.error.message}"


def health_client(server: FastMCP) -> httpx2.AsyncClient:
    """An HTTP client on `server`'s app (not started: `/healthz` reads the state the in-memory client's server keeps)."""
    app = server.http_app(path="/mcp")
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url="http://127.0.0.1")


async def health(http: httpx2.AsyncClient) -> tuple[int, str]:
    """The status and one-line body of `GET /healthz`."""
    response = await http.get("/healthz")
    return response.status_code, response.text.strip()


