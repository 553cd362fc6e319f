"""`GET /metrics` for `guide serve --transport http --metrics 1`: the server's counters in Prometheus text format.

It sits behind the same bearer token as `/mcp` when the server has one (FastMCP's
authentication middleware has already looked at the request's token); without
authentication it answers anyone who can reach the port, like `/mcp` itself.
"""

from fastmcp import FastMCP
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from guide.server.metrics import Counters

PATH = "/metrics"
NO_TOKEN = "the metrics need the same bearer token as /mcp: send the header Authorization: Bearer <token>\n"


def route(server: FastMCP, counters: Counters) -> None:
    """Serve `GET /metrics` on `server`'s HTTP app."""

    @server.custom_route(PATH, methods=["GET"], include_in_schema=False)
    async def metrics(request: Request) -> Response:
        if server.auth is not None and not getattr(request.scope.get("user"), "is_authenticated", False):
            return PlainTextResponse(NO_TOKEN, status_code=401, headers={"WWW-Authenticate": "Bearer"})
        return Response(generate_latest(counters.registry), media_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
