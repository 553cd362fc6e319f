"""Who holds a share of a limit that all clients share (listen streams, HTTP sessions): one principal, or one address.

With authentication, the owner is the access token's principal (as the MCP SDK
names it: client, issuer, subject), so one principal's many connections count
together. Without it, the owner is the client's address: behind a proxy that
means the proxy's, unless `--forwarded-allow-ips` names it (then uvicorn gives the
real client's). Over stdio there is one client, the process's only owner.
"""

from typing import Any

from mcp.server.auth.provider import principal_components
from starlette.requests import HTTPConnection

STDIO = ("stdio",)


def owner(request: Any) -> tuple[str | None, ...]:
    """The owner of a request, from its HTTP request or connection (None: not over HTTP)."""
    if not isinstance(request, HTTPConnection):
        return STDIO
    return owner_of_scope(request.scope)


def owner_of_scope(scope: Any) -> tuple[str | None, ...]:
    """The owner of an ASGI HTTP request, from its scope (the authenticated user, else the client's address)."""
    token = getattr(scope.get("user"), "access_token", None)
    if token is not None:
        return ("principal", *principal_components(token))
    client = scope.get("client")
    return ("address", client[0] if client else None)
