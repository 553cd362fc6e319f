"""Build the Guide MCP server for one docroot."""

import asyncio
import math
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import anyio
from fastmcp import Context, FastMCP
from mcp.server.request_state import RequestStateSecurity
from mcp_types import InputRequiredResult

from guide import __version__
from guide.docroot.folder import MAX_FILE_SIZE, Docroot
from guide.errors import GuideError
from guide.protocol import DEFAULT_CACHE_TTL, SERVER_NAME
from guide.render import MAX_OUTPUT
from guide.routes.resolve import AddressRead
from guide.server import work
from guide.server.auth import verifier
from guide.server.completion import completer
from guide.server.health import Readiness
from guide.server.live import ListChanges
from guide.server.logs import quiet_caller_errors
from guide.server.provider import DocrootProvider
from guide.server.report import FirstAnswer, report_start
from guide.server.service import ANSWER_TIMEOUT, Service
from guide.server.watch import watching

START_GRACE = 3.0
"""Seconds a new server waits for its first request before it checks and watches the docroot anyway."""
START_QUIET = 0.5
"""Seconds without a request in hand before the start check lints the whole docroot."""
START_LONGEST = 30.0
"""Seconds after which the start check begins however busy clients keep the server."""
STATE_KEYS_VARIABLE = "GUIDE_STATE_KEYS"
STATE_TTL_VARIABLE = "GUIDE_STATE_TTL"
MIN_KEY_LENGTH = 32
DEFAULT_STATE_TTL = 600.0
READ_TOOL_DESCRIPTION = "Read a guide:// address, for clients that only call tools (same result and questions as a resource read)."


def state_security(keys_text: str | None, ttl_text: str | None = None) -> RequestStateSecurity:
    """Sealing for continuation state: shared keys (first seals, all unseal) or an ephemeral key (C8), living `ttl_text` seconds."""
    ttl = state_ttl(ttl_text)
    keys = [key.strip() for key in (keys_text or "").split(",") if key.strip()]
    if not keys:
        return RequestStateSecurity.ephemeral(ttl=ttl, audience=SERVER_NAME)
    short = [index + 1 for index, key in enumerate(keys) if len(key.encode()) < MIN_KEY_LENGTH]
    if short:
        raise GuideError(f"{STATE_KEYS_VARIABLE}: key {short[0]} is shorter than {MIN_KEY_LENGTH} bytes; use long random keys, comma-separated")
    return RequestStateSecurity(keys=keys, ttl=ttl, audience=SERVER_NAME)


def state_ttl(text: str | None) -> float:
    """Seconds a continuation state stays valid (default 600)."""
    if not (text or "").strip():
        return DEFAULT_STATE_TTL
    try:
        ttl = float(text)
    except ValueError:
        ttl = math.nan
    if not (math.isfinite(ttl) and ttl > 0):
        raise GuideError(f"{STATE_TTL_VARIABLE}: {text.strip()[:40]!r} is not a positive number of seconds")
    return ttl


def create_server(
    docroot: Path,
    project: Path | None = None,
    *,
    watch: bool = True,
    cache_ttl: int = DEFAULT_CACHE_TTL,
    max_file_size: int = MAX_FILE_SIZE,
    answer_timeout: float | None = ANSWER_TIMEOUT,
    max_output: int = MAX_OUTPUT,
) -> FastMCP:
    """A FastMCP server serving `docroot`; it re-reads files as they change while `watch` is on.

    `cache_ttl` (seconds, 0 for none) is the caching hint of listings and of
    content that never asks; an entrypoint read is never cached (C7). Files
    larger than `max_file_size` bytes are not served; a legacy read waits at
    most `answer_timeout` seconds for each answer (None: without limit); a render
    stops at `max_output` characters.
    """
    root = Docroot(docroot, project, max_file_size=max_file_size)
    service = Service(root, answer_timeout=answer_timeout, max_output=max_output)
    changes = ListChanges(root)
    quiet_caller_errors()
    readiness = Readiness(root)
    first_answer = FirstAnswer()

    async def after_first_answer(server: FastMCP) -> None:
        # What no request needs waits until one has been answered (start time is what a user feels).
        await first_answer.wait(START_GRACE)
        if not watch:
            await check_when_calm(server)
            return
        seen = await changes.shown()  # what clients may have been shown so far
        async with watching(root, changes.edited):
            root.invalidate()  # an edit made before the watch began is still served, and announced
            changes.edited()
            reporting = asyncio.create_task(check_when_calm(server))
            try:
                await changes.run(seen)
            finally:
                reporting.cancel()
                with suppress(asyncio.CancelledError):
                    await reporting

    async def check_when_calm(server: FastMCP) -> None:
        await first_answer.calm(START_QUIET, START_LONGEST)
        with suppress(ValueError):  # its job is done; kept, it would cost every later request about 5 %
            server.middleware.remove(first_answer)
        await report_start(root)

    @asynccontextmanager
    async def lifespan(server: FastMCP) -> AsyncIterator[dict]:
        tasks = [asyncio.create_task(after_first_answer(server))]
        try:
            async with readiness.loading():
                yield {}
        finally:
            changes.close()
            for task in tasks:
                task.cancel()
            for task in tasks:
                with suppress(asyncio.CancelledError):
                    await task
            with anyio.CancelScope(shield=True):  # a server stopping by cancellation still keeps what it parsed
                await work.off_loop(lambda: root.keep_parses(if_loaded=True))

    server = FastMCP(
        SERVER_NAME,
        version=__version__,
        instructions="Guide serves commands, skills and documents as guide:// resources; guide://_help lists them.",
        lifespan=lifespan,
        providers=[DocrootProvider(service)],
        request_state_security=state_security(os.environ.get(STATE_KEYS_VARIABLE), os.environ.get(STATE_TTL_VARIABLE)),
        auth=verifier(os.environ),
        cache_ttl=cache_ttl or None,
        cache_scope="private" if cache_ttl else None,
    )
    changes.install(server)
    readiness.route(server)
    server.add_middleware(first_answer)

    # The description is given, not written as a docstring: reading a docstring loads
    # FastMCP's docstring parser, about 20 ms of a server's start.
    @server.tool(description=READ_TOOL_DESCRIPTION)
    async def read_resource(uri: str, ctx: Context) -> str | InputRequiredResult:
        return await service.read(ctx, AddressRead(uri), tool=True)

    server.completion(completer(root))
    return server
