"""The HTTP connections a replica keeps: how many at once, and how long one may take to send a request.

uvicorn (with h11) keeps a connection for as long as the client keeps it open
while sending a request: a client that sends half a request head and waits is
never closed, and once the process runs out of file descriptors every new client
is locked out while asyncio logs a traceback per refused accept (about 28 MiB of
log in 10 s). Guide's HTTP protocol is uvicorn's, with two bounds:

- a client has `request_timeout` seconds to send a whole request, head and body,
  from the moment it connects or its previous answer ended; past it the
  connection is closed (uvicorn's own keep-alive timeout still closes idle ones);
- at most `max_connections` are open at once, kept under the process's file
  descriptor limit; a connection past it is closed as it is accepted.

Either event is logged as one line at most every `LOG_EVERY` seconds, with counts.
As uvicorn begins to stop, it asks each connection to shut down: the first such
call tells the servers of this process (`guide.server.stopping`).
"""

import logging
import resource
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from guide.server import stopping

RESERVED_DESCRIPTORS = 64
"""File descriptors kept for what the server itself opens (docroot files, the watch, the log) whatever the connections."""
LOG_EVERY = 10.0

log = logging.getLogger("guide")


def descriptor_room() -> int:
    """How many connections the process's file descriptor limit leaves room for."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1 << 20
    return max(8, soft - RESERVED_DESCRIPTORS)


class Tally:
    """Counts events of one kind and logs them as one line at most every `LOG_EVERY` seconds."""

    def __init__(self, message: str):
        self.message = message
        self.count = 0
        self.last: float | None = None

    def add(self, now: float, *args: Any) -> None:
        """Count one event at loop time `now`; log the count when the last line is old enough."""
        self.count += 1
        if self.last is None or now - self.last >= LOG_EVERY:
            log.warning(self.message, self.count, *args)
            self.count, self.last = 0, now


def guarded_protocol(max_connections: int, request_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol bounded by `max_connections` open at once and `request_timeout` seconds per request."""
    refused = Tally(f"refused %d connection(s): {max_connections} are open, the most GUIDE_MAX_CONNECTIONS allows here")
    slow = Tally(f"closed %d connection(s) that did not send a whole request within {request_timeout:g} s (GUIDE_REQUEST_TIMEOUT)")

    class Guarded(H11Protocol):
        _deadline: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                self.connections.discard(self)
                transport.abort()
                refused.add(self.loop.time())
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
                self._disarm()  # the whole request is in (or the connection is ending)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def shutdown(self) -> None:
            stopping.begin()  # before this connection's request is asked to end: a listen stream ends now, gracefully
            super().shutdown()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            if self.conn.their_state is h11.IDLE or self.conn.their_state is h11.SEND_BODY:
                self._deadline = self.loop.call_later(request_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.transport.is_closing() or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
                return
            slow.add(self.loop.time())
            self.transport.close()

    return Guarded


class QuietAccept(logging.Filter):
    """asyncio's log of a refused accept (out of file descriptors): one line every `LOG_EVERY` seconds, no traceback."""

    def __init__(self) -> None:
        super().__init__()
        self.tally = Tally("asyncio could not accept %d connection(s): the process is out of file descriptors")

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop asyncio's accept-failure records; count them into a rare line of Guide's."""
        if "socket.accept() out of system resource" not in record.getMessage():
            return True
        self.tally.add(record.created)
        return False


def quiet_accept_failures() -> None:
    """Install `QuietAccept` on asyncio's logger (once per process)."""
    logger = logging.getLogger("asyncio")
    if not any(isinstance(existing, QuietAccept) for existing in logger.filters):
        logger.addFilter(QuietAccept())
