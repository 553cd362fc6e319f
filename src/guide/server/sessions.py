"""How many legacy HTTP sessions one owner may hold, so that one client cannot take every session place.

The MCP SDK keeps a streamable-HTTP session from its `initialize` until the
client ends it or it has been idle (no request in flight) for its idle timeout,
30 minutes by default, and it refuses new sessions past a total of 10,000. One
client could open them all and lock every other client out for half an hour at
a time. `SessionShares` (an ASGI middleware in front of `/mcp`) counts the
sessions each owner opened (`guide.server.owners`), follows them as the SDK does
(a request in flight keeps one; a DELETE or a 404 ends it; idleness expires it),
and answers a new one past `max_sessions // SHARE_OF` for its owner, or past
`max_sessions` in all, with a 503 and one line.
"""

import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from guide.server.connections import Tally
from guide.server.owners import owner_of_scope

SHARE_OF = 8
"""One owner may hold at most this fraction (1/8) of the session places."""
SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = MCP_PROTOCOL_VERSION_HEADER.lower().encode("ascii")
log = logging.getLogger("guide")


@dataclass
class _Session:
    owner: tuple
    in_flight: int = 0
    last_seen: float = 0.0


class SessionShares:
    """ASGI middleware: at most `max_sessions` legacy sessions open, and a share of them per owner."""

    def __init__(self, app: Any, *, max_sessions: int, idle_timeout: float, path: str = "/mcp") -> None:
        self.app = app
        self.max_sessions = max_sessions
        self.share = max(1, max_sessions // SHARE_OF)
        self.idle_timeout = idle_timeout
        self.path = path
        self.sessions: dict[bytes, _Session] = {}
        self.refused = Tally("refused %d new session(s): %s")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Count the request against its session (or its owner's share, when it would open one), then pass it on."""
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        sid = headers.get(SESSION_HEADER)
        version = headers.get(VERSION_HEADER)
        legacy = version is None or version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS  # as the SDK routes it: only these open sessions
        if sid is None and scope["method"] == "POST" and legacy:
            await self._opening(scope, receive, send)
            return
        session = self.sessions.get(sid) if sid is not None else None
        if session is None:
            await self.app(scope, receive, send)
            return
        session.in_flight += 1
        try:
            status = await _answered(self.app, scope, receive, send)
        finally:
            session.in_flight -= 1
            session.last_seen = time.monotonic()
        if status == 404 or (scope["method"] == "DELETE" and status is not None and status < 300):
            self.sessions.pop(sid, None)

    async def _opening(self, scope: Any, receive: Any, send: Any) -> None:
        holder = owner_of_scope(scope)
        self._expire()
        why = self._full(holder)
        if why is not None:
            self.refused.add(time.monotonic(), why)
            await _refuse(send, f"Guide {why}; end one (or wait for an idle one to expire) and connect again")
            return
        opened: list[bytes] = []

        async def noting(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] < 300:
                opened.extend(value for name, value in message.get("headers", ()) if name.lower() == SESSION_HEADER)
            await send(message)

        await self.app(scope, receive, noting)
        for sid in opened[:1]:
            self.sessions[sid] = _Session(holder, last_seen=time.monotonic())

    def _full(self, holder: tuple) -> str | None:
        if len(self.sessions) >= self.max_sessions:
            return f"serves at most {self.max_sessions} sessions at once (GUIDE_MAX_SESSIONS)"
        if sum(session.owner == holder for session in self.sessions.values()) >= self.share:
            return f"serves at most {self.share} sessions to one client at once"
        return None

    def _expire(self) -> None:
        """Forget the sessions the SDK has let go for idleness (none in flight for its idle timeout)."""
        now = time.monotonic()
        idle = [sid for sid, session in self.sessions.items() if not session.in_flight and now - session.last_seen > self.idle_timeout]
        for sid in idle:
            del self.sessions[sid]


async def _answered(app: Any, scope: Any, receive: Any, send: Any) -> int | None:
    """Run `app` for one request; the HTTP status it answered with."""
    status: list[int] = []

    async def watching(message: Any) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        await send(message)

    await app(scope, receive, watching)
    return status[0] if status else None


async def _refuse(send: Any, message: str) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})
