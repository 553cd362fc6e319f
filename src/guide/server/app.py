"""Build the Guide MCP server for one docroot: wiring only (what each part does is in its own module)."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastmcp import Context, FastMCP
from mcp_types import InputRequiredResult

from guide import __version__
from guide.docroot.folder import Docroot
from guide.project.context import Contexts
from guide.project.folders import Projects
from guide.protocol import SERVER_NAME
from guide.routes.lookup import AddressRead
from guide.server import auth
from guide.server.app_form import tools as app_form
from guide.server.catalog import Catalog
from guide.server.channels import Channels
from guide.server.channels.clients import Clients
from guide.server.completion import completer
from guide.server.eras import Eras
from guide.server.eras.modern import sealing
from guide.server.hooks import Hooks
from guide.server.metrics import Counters, Metrics, watch_state
from guide.server.provider import DocrootProvider
from guide.server.report import entry_counts
from guide.server.service import Service
from guide.server.settings import Settings, open_docroot, read_settings
from guide.server.sizes import ListingSizes
from guide.server.startup import Startup

INSTRUCTIONS = "Guide serves commands, skills and documents as guide:// resources; guide://_help lists them."
READ_TOOL_DESCRIPTION = "Read a guide:// address, for clients that only call tools (same result and questions as a resource read)."
# Both are followed by the docroot's catalog as it is when a client connects or lists tools (guide.server.catalog).


def create_server(docroot: Path | None = None, project: Path | None = None, *, settings: Settings | None = None, watch: bool = True,
                  clock: Callable[[], float] | None = None, **given: Any) -> FastMCP:
    """A FastMCP server serving a docroot; it re-reads files as they change while `watch` is on.

    `settings` are what `guide serve` read; without them they are read here, from
    `docroot`, `project` and `given` (settings by name, as flags) and the environment.
    `clock` times how long each form is with the client (None: each era's own clock).
    """
    settings = settings or read_settings({"docroot": docroot, "project": project, **given})
    root = open_docroot(settings)
    eras, counters = Eras(clock), Counters() if settings.metrics else None
    service = _service(settings, root, eras, counters)
    security = sealing(settings.state_keys, settings.state_ttl)
    provider = DocrootProvider(service)
    startup = Startup(root, eras, watch=watch, keep=provider.kept.keep)
    cache_ttl = settings.cache_ttl
    server = FastMCP(
        SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, lifespan=startup.lifespan, providers=[provider],
        request_state_security=security, auth=auth.verifier(settings),
        cache_ttl=cache_ttl or None, cache_scope="private" if cache_ttl else None, list_page_size=settings.list_page_size or None,
    )
    eras.install(server)
    hooks = Hooks.of(server)  # Guide's one middleware: each part sees the answers to its own few methods
    hooks.add(Catalog(root, INSTRUCTIONS, READ_TOOL_DESCRIPTION))  # what tool-only agents can read
    startup.readiness.route(server)
    hooks.watch(startup.first_answer)
    hooks.add(ListingSizes(settings.list_page_size))

    # The description is given, not written as a docstring: reading a docstring loads
    # FastMCP's docstring parser, about 20 ms of a server's start.
    @server.tool(description=READ_TOOL_DESCRIPTION)
    async def read_resource(uri: str, ctx: Context) -> str | InputRequiredResult:
        return await service.read(ctx, AddressRead(uri), tool=True)

    if settings.app_forms:
        app_form.install(server, service, security)
    server.completion(completer(root, service.contexts, service.source_reads))
    if counters is not None:
        _measure(server, counters, root, eras, startup)
    return server


def _service(settings: Settings, root: Docroot, eras: Eras, counters: Counters | None) -> Service:
    """One read's way through the server, as the settings shape it."""
    return Service(root, eras, Channels(app_forms=settings.app_forms), answer_timeout=settings.answer_timeout, max_output=settings.max_output,
                   metrics=Metrics(counters=counters, access=settings.access_log), contexts=Contexts(settings.project, Projects(settings.projects_under)),
                   clients=Clients(root, settings.unread_decline))


def _measure(server: FastMCP, counters: Counters, root: Docroot, eras: Eras, startup: Startup) -> None:
    """Serve `/metrics`, with the gauges of the server's state read at each scrape."""
    from guide.server import scrape  # imported here: Prometheus's client is only loaded when metrics are on

    root.on_build = counters.builds.observe
    watch_state(
        counters,
        listen=lambda: {era.name: era.listen.count for era in eras.all if hasattr(era, "listen")},
        ready=lambda: startup.readiness.status()[0] == 200,
        entries=lambda: entry_counts(built.snapshot.layout) if (built := root.built()) is not None else {},
        store=lambda: root.store.usable,
    )
    scrape.route(server, counters)
