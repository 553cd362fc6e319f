"""What `guide serve --transport http` passes to FastMCP and uvicorn to run as a replica.

DNS-rebinding protection is FastMCP's Host/Origin guard, turned on (strict) unless the
operator set FastMCP's own `FASTMCP_HTTP_HOST_ORIGIN_PROTECTION`. Names a proxy or load
balancer forwards come from `GUIDE_ALLOWED_HOSTS` / `GUIDE_ALLOWED_ORIGINS`
(comma-separated; `*` patterns allowed), added to FastMCP's own lists. Behind a proxy,
`--forwarded-allow-ips` names the proxies whose `X-Forwarded-For` uvicorn believes, so the
log names the real client (off by default: a client could otherwise claim any address).
uvicorn writes its log through Guide's (`guide.server.logs`). On SIGTERM uvicorn stops
accepting connections and finishes the requests in flight for up to `SHUTDOWN_GRACE` seconds.
Connections are bounded in number and in the time a request may take to arrive
(`guide.server.connections`), legacy sessions by owner (`guide.server.sessions`).
"""

import ipaddress
import math
from typing import Any

import fastmcp
from mcp.server.streamable_http_manager import DEFAULT_SESSION_IDLE_TIMEOUT
from starlette.middleware import Middleware

from guide.server.connections import descriptor_room, guarded_protocol
from guide.server.sessions import SessionShares
from guide.server.settings import DEFAULT_MAX_CONNECTIONS, Settings

SHUTDOWN_GRACE = 10  # seconds; legacy streams still open after it are cut, a 2026-07-28 round takes milliseconds
LOOPBACK_NAMES = ("localhost",)


def run_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for `FastMCP.run(transport="http", ...)`: the Host/Origin guard, proxies, logging and graceful shutdown."""
    own = fastmcp.settings
    explicit = "http_host_origin_protection" in own.model_fields_set
    hosts = [*(own.http_allowed_hosts or []), *settings.allowed_hosts]
    origins = [*(own.http_allowed_origins or []), *settings.allowed_origins]
    uvicorn: dict[str, Any] = {"timeout_graceful_shutdown": SHUTDOWN_GRACE, "log_config": None}  # None: uvicorn logs through Guide's handlers
    uvicorn["http"] = guarded_protocol(max_connections(settings), settings.request_timeout)
    if settings.forwarded_allow_ips:
        uvicorn.update(proxy_headers=True, forwarded_allow_ips=",".join(settings.forwarded_allow_ips))
    else:
        uvicorn.update(proxy_headers=False)
    given = own.http_session_idle_timeout  # FastMCP's: "auto" leaves the SDK's default, None never expires a session
    idle = DEFAULT_SESSION_IDLE_TIMEOUT if given == "auto" else math.inf if given is None else float(given)
    shares = Middleware(SessionShares, max_sessions=settings.max_sessions, idle_timeout=idle)
    return {
        "middleware": [shares],
        "host_origin_protection": own.http_host_origin_protection if explicit else True,
        "allowed_hosts": hosts or None,
        "allowed_origins": origins or None,
        "uvicorn_config": uvicorn,
    }


def max_connections(settings: Settings) -> int:
    """The most HTTP connections served at once: the setting, lowered to what the file descriptor limit leaves room for."""
    return min(settings.max_connections, descriptor_room())


def is_loopback(host: str) -> bool:
    """True when `host` is a loopback address or name (only this machine can connect)."""
    host = host.strip().strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def startup_warnings(settings: Settings, authenticated: bool) -> list[str]:
    """One line per risk of serving on the settings' host this way, for the operator's terminal."""
    host = settings.host
    found = []
    if max_connections(settings) < settings.max_connections != DEFAULT_MAX_CONNECTIONS:  # the default is lowered without a word
        found.append(f"note: at most {max_connections(settings)} HTTP connections at once: the file descriptor limit (ulimit -n) "
                     f"leaves no room for GUIDE_MAX_CONNECTIONS={settings.max_connections}")
    if is_loopback(host):
        return found
    if not authenticated:
        found.append(
            f"warning: serving {host} without authentication: anyone who can reach this port reads the docroot; "
            "set GUIDE_AUTH_TOKENS or GUIDE_AUTH_JWKS_URI/GUIDE_AUTH_PUBLIC_KEY (see deploy/README.md)"
        )
    if settings.projects_under is not None:
        found.append(f"note: every caller that reaches {host} may name any folder inside --projects-under as the project of a read "
                     "(its workflow phase, and the names of the folders there); see docs/security.md")
    options = run_options(settings)
    if options["host_origin_protection"] is True and not options["allowed_hosts"]:
        names = "localhost, 127.0.0.1, ::1" + ("" if _is_unspecified(host) else f" or {host}")
        found.append(f"note: only requests whose Host is {names} are answered (others get 421); list the names clients use in GUIDE_ALLOWED_HOSTS")
    return found


def _is_unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False
