"""Guide's one FastMCP middleware (`Hooks`): what Guide's parts do with the few requests each looks at.

FastMCP runs every middleware of a server around every request it dispatches,
each as one more call and one more coroutine frame that every wait of a read
passes through on its way back. Guide's parts each look at a few methods (the
listing-size check at listings, the catalog at the handshake and `tools/list`,
the App's filter at `tools/list` and `resources/list`, the legacy era at
`initialize`), so they are not middleware of their own: each is a `Part` that
says which methods it looks at, and the one layer finds a method's parts in a
dict. A read passes through that layer and nothing else of Guide's. Start-up
also watches every request until the server is calm (`Watcher`), then stops.
"""

from collections.abc import Collection
from typing import Any, Protocol

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware


class Part(Protocol):
    """Something Guide does with the answers to a few methods."""

    methods: Collection[str]
    """The methods (`tools/list`, `initialize`, ...) whose answers it looks at."""

    async def answered(self, context: Any, result: Any) -> Any:
        """The answer to send for the request `context` (FastMCP's middleware context), given the answer so far."""


class Watcher(Protocol):
    """Something told when each request begins and ends (while it is watching)."""

    def began(self, context: Any) -> None:
        """A request or notification is in hand."""

    def ended(self, context: Any) -> None:
        """That request or notification was answered (or failed)."""


class Hooks(Middleware):
    """The one layer: a request's parts found by its method, the watchers told of every request."""

    def __init__(self) -> None:
        self._parts: dict[str, tuple[Part, ...]] = {}
        self.watchers: tuple[Watcher, ...] = ()

    @classmethod
    def of(cls, server: FastMCP) -> "Hooks":
        """The server's `Hooks`, added as its innermost middleware the first time it is asked for."""
        found = next((layer for layer in server.middleware if isinstance(layer, cls)), None)
        if found is None:
            found = cls()
            server.add_middleware(found)
        return found

    def add(self, part: Part) -> None:
        """Let `part` see the answers to its methods; a part added later sees an answer first, as a later middleware would."""
        for method in part.methods:
            self._parts[method] = (part, *self._parts.get(method, ()))

    def remove(self, part: Part) -> None:
        """Stop showing answers to `part`."""
        for method, parts in list(self._parts.items()):
            self._parts[method] = tuple(kept for kept in parts if kept is not part)

    def parts(self, method: str) -> tuple[Part, ...]:
        """The parts that see the answer to `method`, in the order they see it."""
        return self._parts.get(method, ())

    def watch(self, watcher: Watcher) -> None:
        """Tell `watcher` of every request from now on."""
        self.watchers = (*self.watchers, watcher)

    def unwatch(self, watcher: Watcher) -> None:
        """Tell `watcher` of no more requests (a request in hand still ends for it)."""
        self.watchers = tuple(kept for kept in self.watchers if kept is not watcher)

    async def __call__(self, context: Any, call_next: Any) -> Any:
        """Answer the request, then let its method's parts change the answer; the watchers see it begin and end.

        Overriding `__call__` (not the `on_*` hooks) spares every request the chain of
        hook calls FastMCP builds for a middleware.
        """
        watchers = self.watchers
        for watcher in watchers:
            watcher.began(context)
        try:
            result = await call_next(context)
            for part in self._parts.get(context.method, ()):
                result = await part.answered(context, result)
            return result
        finally:
            for watcher in watchers:
                watcher.ended(context)
