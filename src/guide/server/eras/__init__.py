"""The protocol eras: each drives a request to its outcome with the client's help (C7 steps 6-8).

An era is a module with `opening(ctx)`, the pure first step of a request (run
off the event loop), and `drive(ctx, request, asked, answer_timeout=...)`, which
takes a request whose first step asks for input to its end or to the result that
asks; `for_request` picks the one a request speaks. A new era is a new module
here and one line in `for_request`.
"""

from types import ModuleType

from fastmcp import Context
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from guide.server.eras import legacy, modern


def is_modern(ctx: Context) -> bool:
    """Whether this request speaks MCP 2026-07-28 (else a legacy, handshake-era protocol)."""
    context = ctx.request_context
    return context is not None and context.protocol_version in MODERN_PROTOCOL_VERSIONS


def can_elicit(ctx: Context) -> bool:
    """Whether the client declared form elicitation for this request (a bare `elicitation: {}` means form)."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def for_request(ctx: Context) -> ModuleType:
    """The era module that drives this request."""
    return modern if is_modern(ctx) else legacy
