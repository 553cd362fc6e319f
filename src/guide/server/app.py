"""Build the Guide MCP server for one docroot."""

import logging
import math
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from mcp.server.request_state import RequestStateSecurity
from mcp_types import InputRequiredResult

from guide import __version__
from guide import uri as addresses
from guide.docroot.index import Docroot
from guide.errors import GuideError
from guide.server.auth import verifier
from guide.server.completion import completer
from guide.server.errors import quiet_caller_errors
from guide.server.health import Readiness
from guide.server.interact import serve
from guide.server.provider import DocrootProvider
from guide.server.watch import watching

NAME = "guide"
STATE_KEYS_VARIABLE = "GUIDE_STATE_KEYS"
STATE_TTL_VARIABLE = "GUIDE_STATE_TTL"
MIN_KEY_LENGTH = 32
DEFAULT_STATE_TTL = 600.0


def state_security(keys_text: str | None, ttl_text: str | None = None) -> RequestStateSecurity:
    """Sealing for continuation state: shared keys (first seals, all unseal) or an ephemeral key (C8), living `ttl_text` seconds."""
    ttl = state_ttl(ttl_text)
    keys = [key.strip() for key in (keys_text or "").split(",") if key.strip()]
    if not keys:
        return RequestStateSecurity.ephemeral(ttl=ttl, audience=NAME)
    short = [index + 1 for index, key in enumerate(keys) if len(key.encode()) < MIN_KEY_LENGTH]
    if short:
        raise GuideError(f"{STATE_KEYS_VARIABLE}: key {short[0]} is shorter than {MIN_KEY_LENGTH} bytes; use long random keys, comma-separated")
    return RequestStateSecurity(keys=keys, ttl=ttl, audience=NAME)


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


def create_server(docroot: Path, project: Path | None = None, *, watch: bool = True) -> FastMCP:
    """A FastMCP server serving `docroot`; it re-reads files as they change while `watch` is on."""
    root = Docroot(docroot, project)
    quiet_caller_errors()
    readiness = Readiness(root)

    @asynccontextmanager
    async def lifespan(server: FastMCP) -> AsyncIterator[dict]:
        async with readiness.loading():
            if not watch:
                yield {}
                return
            async with watching(root):
                yield {}

    server = FastMCP(
        NAME,
        version=__version__,
        instructions="Guide serves commands, skills and documents as guide:// resources; guide://_help lists them.",
        lifespan=lifespan,
        providers=[DocrootProvider(root)],
        request_state_security=state_security(os.environ.get(STATE_KEYS_VARIABLE), os.environ.get(STATE_TTL_VARIABLE)),
        auth=verifier(os.environ),
    )
    readiness.route(server)

    @server.tool
    async def read_resource(uri: str, ctx: Context) -> str | InputRequiredResult:
        """Read a guide:// address, for clients that only call tools (same result and questions as a resource read)."""
        try:
            return await serve(ctx, root.snapshot(), addresses.parse_uri(uri))
        except GuideError as error:
            raise ToolError(str(error), log_level=logging.INFO) from None

    server.completion(completer(root))
    return server
