"""The MCP clients of a `guide test` run: one session per kind of client and protocol era, opened when first needed, kept for the run.

They are the MCP SDK's `ClientSession` on FastMCP's transports (the server in
memory, or `guide serve` over stdio), not FastMCP's `Client`: a run must
declare exactly the client a scenario names (FastMCP's client declares URL
mode with any form handler), see the forms of each 2026-07-28 round, and send
answers as the person gave them (FastMCP's client checks answers against the
form before sending, so Guide's own refusal could not be tested).

| kind | declares |
|---|---|
| `forms` | form elicitation |
| `url` | form and URL-mode elicitation |
| `apps` | the MCP Apps extension for Guide's page type, no elicitation |
| `none` | nothing (the agent channel, and reads with every value as keywords) |
"""

import sys
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

from fastmcp import FastMCP
from fastmcp.client.transports import ClientTransport, FastMCPTransport, StdioTransport
from fastmcp.client.transports.base import TransportOptions
from mcp import ClientSession
from mcp_types import ElicitationCapability, ElicitRequestURLParams, ElicitResult, FormElicitationCapability, Implementation

from guide import __version__
from guide.cli.scenarios.person import Person
from guide.clients import TEST_CLIENT
from guide.protocol import FORM_META
from guide.server.channels.base import APP_MIME, APPS_EXTENSION
from guide.server.settings import SETTING, child_environment

LEGACY, MODERN = "legacy", "2026-07-28"
ERAS = (LEGACY, MODERN)
APPS = {APPS_EXTENSION: {"mimeTypes": [APP_MIME]}}
CLIENT_INFO = Implementation(name=TEST_CLIENT, version=__version__)
"""How a run's clients name themselves: the client table takes their declines for the person's a scenario describes."""
READ_TIMEOUT = 120.0
"""Seconds one request of a run may take before it fails as timed out: a server that never answers cannot hang the run."""


class FormsOnly(ClientSession):
    """A client that shows forms and declares no URL mode (the SDK declares both modes with any elicitation callback)."""

    def _build_capabilities(self, version: str) -> Any:
        capabilities = super()._build_capabilities(version)
        return capabilities.model_copy(update={"elicitation": ElicitationCapability(form=FormElicitationCapability())})


class Answering:
    """The elicitation callback of the sessions that show forms: each form goes to the person of the channel running now."""

    def __init__(self) -> None:
        self.person: Person | None = None

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        """The person's reply to one form (or link) a legacy read asks for, or to one request of a 2026-07-28 round."""
        person = self.person
        assert person is not None, "a form came while no channel runs"
        form = str((params.meta or {}).get(FORM_META) or getattr(context, "request_id", ""))
        return reply(person, form, params)


def reply(person: Person, form: str, params: Any) -> ElicitResult:
    """The person's answer to the form `form`, shown with `params` (a form or a link)."""
    if isinstance(params, ElicitRequestURLParams):
        return ElicitResult(action=person.link(form))  # type: ignore[arg-type]
    action, content = person.form(form, params.requested_schema)
    return ElicitResult(action=action, content=content)  # type: ignore[arg-type]


class Clients:
    """The sessions of one run, by kind and era, over one way of reaching the server; `async with` closes them all."""

    def __init__(self, transport: Callable[[], ClientTransport]):
        self.transport = transport
        self.answering = Answering()
        self._open: dict[tuple[str, str], ClientSession] = {}
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> "Clients":
        await self._stack.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stack.__aexit__(*exc)

    async def session(self, kind: str, era: str) -> ClientSession:
        """The session of that kind in that era, connected (and its handshake or discovery done) on first use."""
        found = self._open.get((kind, era))
        if found is None:
            options: dict[str, Any] = {"read_timeout_seconds": READ_TIMEOUT, "client_info": CLIENT_INFO}
            if kind in ("forms", "url"):
                options["elicitation_callback"] = self.answering
            if kind == "apps":
                options["extensions"] = APPS
            session_class = FormsOnly if kind == "forms" else ClientSession
            found = await self._stack.enter_async_context(
                self.transport().connect_session(transport_options=TransportOptions(session_class=session_class), **options))
            await (found.initialize() if era == LEGACY else found.discover())
            self._open[(kind, era)] = found
        return found


def in_memory(server: FastMCP) -> Callable[[], ClientTransport]:
    """Sessions with `server`, in this process (the server starts once, with the first)."""
    transport = FastMCPTransport(server)
    return lambda: transport


def over_stdio(docroot: Path, project: Path, log: TextIO = sys.stderr) -> Callable[[], ClientTransport]:
    """Sessions each with a `guide serve` of its own over stdio (a legacy session's client declares what it can when it connects).

    The servers log their warnings (an authoring error, an unexpected failure) to `log`."""
    args = ["-m", "guide", "serve", SETTING["docroot"].flag, str(docroot), SETTING["project"].flag, str(project),
            SETTING["projects_under"].flag, str(docroot), SETTING["app_forms"].flag, "1", SETTING["log_level"].flag, "WARNING"]
    env = child_environment({"FASTMCP_LOG_LEVEL": "ERROR"})
    return lambda: StdioTransport(command=sys.executable, args=args, env=env, keep_alive=False, log_file=log)
