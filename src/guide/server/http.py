"""What `guide serve --transport http` passes to FastMCP and uvicorn to run as a replica.

DNS-rebinding protection is FastMCP's Host/Origin guard, turned on (strict) unless the
operator set FastMCP's own `FASTMCP_HTTP_HOST_ORIGIN_PROTECTION`. Names a proxy or load
balancer forwards come from `GUIDE_ALLOWED_HOSTS` / `GUIDE_ALLOWED_ORIGINS`
(comma-separated; `*` patterns allowed), added to FastMCP's own lists. On SIGTERM uvicorn
stops accepting connections and finishes the requests in flight for up to
`SHUTDOWN_GRACE` seconds.
"""

import ipaddress
from collections.abc import Mapping
from typing import Any

import fastmcp

ALLOWED_HOSTS = "GUIDE_ALLOWED_HOSTS"
ALLOWED_ORIGINS = "GUIDE_ALLOWED_ORIGINS"
SHUTDOWN_GRACE = 10  # seconds; legacy streams still open after it are cut, a 2026-07-28 round takes milliseconds
LOOPBACK_NAMES = ("localhost",)


def run_options(environ: Mapping[str, str]) -> dict[str, Any]:
    """Keyword arguments for `FastMCP.run(transport="http", ...)`: the Host/Origin guard and graceful shutdown."""
    settings = fastmcp.settings
    explicit = "http_host_origin_protection" in settings.model_fields_set
    hosts = [*(settings.http_allowed_hosts or []), *_names(environ.get(ALLOWED_HOSTS))]
    origins = [*(settings.http_allowed_origins or []), *_names(environ.get(ALLOWED_ORIGINS))]
    return {
        "host_origin_protection": settings.http_host_origin_protection if explicit else True,
        "allowed_hosts": hosts or None,
        "allowed_origins": origins or None,
        "uvicorn_config": {"timeout_graceful_shutdown": SHUTDOWN_GRACE},
    }


def is_loopback(host: str) -> bool:
    """True when `host` is a loopback address or name (only this machine can connect)."""
    host = host.strip().strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def startup_warnings(host: str, environ: Mapping[str, str], authenticated: bool) -> list[str]:
    """One line per risk of serving on `host` this way, for the operator's terminal."""
    if is_loopback(host):
        return []
    found = []
    if not authenticated:
        found.append(
            f"warning: serving {host} without authentication: anyone who can reach this port reads the docroot; "
            "set GUIDE_AUTH_TOKENS or GUIDE_AUTH_JWKS_URI/GUIDE_AUTH_PUBLIC_KEY (see deploy/README.md)"
        )
    options = run_options(environ)
    if options["host_origin_protection"] is True and not options["allowed_hosts"]:
        names = "localhost, 127.0.0.1, ::1" + ("" if _is_unspecified(host) else f" or {host}")
        found.append(f"note: only requests whose Host is {names} are answered (others get 421); list the names clients use in {ALLOWED_HOSTS}")
    return found


def _is_unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def _names(text: str | None) -> list[str]:
    return [name.strip() for name in (text or "").split(",") if name.strip()]
