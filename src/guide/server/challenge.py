"""What an HTTP client without an accepted bearer token is told, in words its MCP SDK reports (issue 36).

A request to the MCP endpoint without an accepted token gets a 401 whose
`WWW-Authenticate` challenge is RFC 6750's (`error="invalid_token"` for a
refused token, a bare `Bearer` when none was sent) and whose body is a
JSON-RPC error saying the same in Guide's words: the MCP SDKs surface a
JSON-RPC error they find in a failed response's body, where they would
otherwise say only "Server returned an error response".

A client with an OAuth flow (`mcp-remote`, clients on the TypeScript SDK)
meets any 401 by looking for an authorization server: the well-known metadata
(absent here), then `POST /register` on the server's origin, and reports what
that answers ("Dynamic Client Registration rejected (HTTP 401): ..."). Guide
keeps no authorization server, so `/register` says so and whether the token the
client sent was refused, or none was sent; the client's message then carries
that sentence. Behind a proxy that serves Guide under a path, `/register` is
the origin's: the proxy must send it to Guide too (deploy/README.md).
"""

import json
from typing import Protocol

from mcp_types import INVALID_REQUEST
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

REGISTER = "/register"
"""Where an OAuth client registers itself when a server names no authorization server (the MCP SDKs' fallback)."""
NO_REGISTRATION = "Guide registers no OAuth clients: it takes the bearer token your operator issued, in the Authorization header"


class Words(Protocol):
    """What a token verifier says to a client: with no token, and with a refused one."""

    guarded_path: str | None
    missing_text: str
    refused_text: str


class Unauthorized:
    """ASGI middleware answering an unauthenticated request to the guarded endpoint with a 401 that says what to send."""

    def __init__(self, app: ASGIApp, verifier: Words) -> None:
        self.app = app
        self.verifier = verifier

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass an authenticated request (or one for another path) on; answer the others with 401."""
        user = scope.get("user")
        if scope["type"] != "http" or scope["path"] != self.verifier.guarded_path or getattr(user, "is_authenticated", False):
            await self.app(scope, receive, send)
            return
        refused = _bearer(scope)
        text = self.verifier.refused_text if refused else self.verifier.missing_text
        error = {"code": INVALID_REQUEST, "message": text, **({"data": {"error": "invalid_token"}} if refused else {})}
        payload = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                   (b"www-authenticate", challenge(text if refused else None).encode())]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


def challenge(refused: str | None) -> str:
    """The `WWW-Authenticate` value: RFC 6750 3.1 gives a request without credentials no error code."""
    return f'Bearer error="invalid_token", error_description="{refused}"' if refused is not None else "Bearer"


def register_route(verifier: Words) -> Route:
    """`POST /register`: no OAuth client is registered; says whether the token sent was refused, or none was sent."""

    async def register(request: Request) -> Response:
        if getattr(request.user, "is_authenticated", False):
            return PlainTextResponse(f"{NO_REGISTRATION}; this token is accepted: send it to {verifier.guarded_path}", status_code=400)
        refused = _bearer(request.scope)
        text = verifier.refused_text if refused else verifier.missing_text
        return PlainTextResponse(f"{NO_REGISTRATION}; {text}", status_code=401, headers={"WWW-Authenticate": challenge(text if refused else None)})

    return Route(REGISTER, register, methods=["POST"])


def _bearer(scope: Scope) -> bool:
    """Whether the request sent a bearer token (then it was refused, since the request is not authenticated)."""
    return any(name.lower() == b"authorization" and value[:7].lower() == b"bearer " for name, value in scope.get("headers", []))
