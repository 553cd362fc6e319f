"""The protocol eras: each drives a request to its outcome with the client's help (C7 steps 6-8), says its
clients' errors its own way, and tells its clients when the listings change.

An era is an object with the one interface `Era`. `Eras` holds one of each for a
server and gives the one a request speaks (`for_request`); nothing outside this
folder asks which era a request is in. A new era is a new module here and one
entry in `KINDS`.
"""

from collections.abc import Callable

from fastmcp import Context, FastMCP

from guide.server.eras.base import Driven, Era, Opening, Pending
from guide.server.eras.legacy import Legacy
from guide.server.eras.modern import Modern

KINDS: tuple[type[Era], ...] = (Modern, Legacy)
"""Every era, in the order they are asked whether they speak a request (the last speaks any)."""


class Eras:
    """One of each era for one server."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        """`clock` times every era's forms (how long a form was with the client); None: each era's own (`time.monotonic`, `time.time`)."""
        self.all: tuple[Era, ...] = tuple(kind() if clock is None else kind(clock) for kind in KINDS)

    def for_request(self, ctx: Context) -> Era:
        """The era this request speaks."""
        return next(era for era in self.all if era.speaks(ctx))

    def long_lived(self) -> frozenset[str]:
        """Methods whose requests stay open in any era."""
        return frozenset(method for era in self.all for method in era.long_lived)

    def install(self, server: FastMCP) -> None:
        """Add what every era needs to tell its clients about changes."""
        for era in self.all:
            era.install(server)

    async def announce(self) -> int:
        """Tell every connected client, in its era, that the listings changed; how many sessions were told."""
        return sum([await era.announce() for era in self.all])

    def close(self) -> None:
        """Let every era's clients go."""
        for era in self.all:
            era.close()


__all__ = ["Driven", "Era", "Eras", "Opening", "Pending"]
