"""`GET /healthz`: 503 until the docroot is loaded, 200 after, 503 if its folder disappears."""

import asyncio
import shutil

import httpx2

from guide.docroot.folder import GONE
from guide.examples import DOCROOT
from guide.server.app import create_server

LOAD_TIMEOUT = 30.0  # seconds of bounded polling, not a measurement


async def _status(http: httpx2.AsyncClient) -> tuple[int, str]:
    response = await http.get("/healthz")
    return response.status_code, response.text


async def test_healthz_follows_the_docroot(tmp_path):
    root = tmp_path / "docroot"
    shutil.copytree(DOCROOT, root)
    app = create_server(root, tmp_path, watch=False).http_app(path="/mcp")
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app), base_url="http://127.0.0.1") as http:
        assert await _status(http) == (503, "loading the docroot\n")  # the app has not started: nothing loaded yet
        async with app.router.lifespan_context(app):
            for _ in range(int(LOAD_TIMEOUT / 0.02)):
                if (await _status(http))[0] == 200:
                    break
                await asyncio.sleep(0.02)
            assert await _status(http) == (200, "ok\n")
            root.rename(tmp_path / "moved")
            assert await _status(http) == (503, GONE + "\n")
