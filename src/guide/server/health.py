"""`GET /healthz` for load balancers: 200 once the docroot is loaded, 503 before, and 503 while its folder is gone.

While the folder is gone every read fails with the same line the probe gives
(`guide.docroot.folder.GONE`): the probe looks at the folder the way a build
does, and a change it sees makes the next read look again.
"""

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from fastmcp import FastMCP
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from guide.docroot.folder import GONE, Docroot
from guide.server import work
from guide.server.errors import one_line

PATH = "/healthz"
RETRY_SECONDS = 1.0
log = logging.getLogger("guide")


class Readiness:
    """Loads a docroot in the background and answers the health probe meanwhile."""

    def __init__(self, root: Docroot):
        self.root = root
        self.loaded = False

    @asynccontextmanager
    async def loading(self) -> AsyncIterator[None]:
        """While open, load the docroot off the event loop (the port answers `/healthz` with 503 until it is done)."""
        task = asyncio.create_task(self._load())
        try:
            yield
        finally:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    def status(self) -> tuple[int, str]:
        """The probe's status code and one-line reason."""
        if not self.loaded:
            return 503, "loading the docroot"
        if self.root.folder() is None:
            return 503, GONE
        return 200, "ok"

    def route(self, server: FastMCP) -> None:
        """Serve `GET /healthz` (and HEAD) on `server`'s HTTP app; it needs no token."""

        @server.custom_route(PATH, methods=["GET"], include_in_schema=False)
        async def healthz(request: Request) -> PlainTextResponse:
            code, reason = self.status()
            return PlainTextResponse(reason + "\n", status_code=code, headers={"Cache-Control": "no-store"})

    async def _load(self) -> None:
        while True:
            try:
                await work.off_loop(self.root.build)
            except Exception as error:
                log.error("loading the docroot %s failed (%s); trying again in %.0f s", self.root.root, one_line(error), RETRY_SECONDS)
                await asyncio.sleep(RETRY_SECONDS)
            else:
                self.loaded = True
                return
