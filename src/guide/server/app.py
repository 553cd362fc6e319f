"""Build the Guide MCP server for one docroot."""

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastmcp import Context, FastMCP
from mcp.server.request_state import RequestStateSecurity
from mcp_types import InputRequiredResult

from guide import __version__, address
from guide.docroot.folder import MAX_FILE_SIZE, Docroot
from guide.errors import GuideError
from guide.protocol import SERVER_NAME
from guide.routes.resolve import resolve
from guide.server.completion import completer
from guide.server.errors import guarded, quiet_caller_errors
from guide.server.interact import ANSWER_TIMEOUT, Service
from guide.server.provider import DocrootProvider
from guide.server.watch import watching

STATE_KEYS_VARIABLE = "GUIDE_STATE_KEYS"
MIN_KEY_LENGTH = 32


def state_security(keys_text: str | None) -> RequestStateSecurity:
    """Sealing for continuation state: shared keys (first seals, all unseal) or an ephemeral key (C8)."""
    keys = [key.strip() for key in (keys_text or "").split(",") if key.strip()]
    if not keys:
        return RequestStateSecurity.ephemeral(audience=SERVER_NAME)
    short = [index + 1 for index, key in enumerate(keys) if len(key.encode()) < MIN_KEY_LENGTH]
    if short:
        raise GuideError(f"{STATE_KEYS_VARIABLE}: key {short[0]} is shorter than {MIN_KEY_LENGTH} bytes; use long random keys, comma-separated")
    return RequestStateSecurity(keys=keys, audience=SERVER_NAME)


def create_server(
    docroot: Path,
    project: Path | None = None,
    *,
    watch: bool = True,
    max_file_size: int = MAX_FILE_SIZE,
    answer_timeout: float | None = ANSWER_TIMEOUT,
) -> FastMCP:
    """A FastMCP server serving `docroot`; it re-reads files as they change while `watch` is on.

    Files larger than `max_file_size` bytes are not served; a legacy read waits at
    most `answer_timeout` seconds for each answer (None: without limit).
    """
    root = Docroot(docroot, project, max_file_size=max_file_size)
    service = Service(root, answer_timeout)
    quiet_caller_errors()

    @asynccontextmanager
    async def lifespan(server: FastMCP) -> AsyncIterator[dict]:
        if not watch:
            yield {}
            return
        async with watching(root):
            yield {}

    server = FastMCP(
        SERVER_NAME,
        version=__version__,
        instructions="Guide serves commands, skills and documents as guide:// resources; guide://_help lists them.",
        lifespan=lifespan,
        providers=[DocrootProvider(service)],
        request_state_security=state_security(os.environ.get(STATE_KEYS_VARIABLE)),
    )

    @server.tool
    async def read_resource(uri: str, ctx: Context) -> str | InputRequiredResult:
        """Read a guide:// address, for clients that only call tools (same result and questions as a resource read)."""
        return await guarded(ctx, lambda: service.serve(ctx, lambda: resolve(root, address.parse(uri))), tool=True)

    server.completion(completer(root))
    return server
