"""What every protocol era offers the server: the `Era` interface, `Opening` (a request's start) and `Pending` (a round that waits)."""

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from fastmcp import Context, FastMCP
from mcp import MCPError

from guide.errors import GuideError
from guide.forms import state
from guide.forms.step import Answer, Ask, Fail, Outcome, Render, Request, failed


@dataclass(frozen=True)
class Pending:
    """A round that ends by asking the client: `reply` is the era's own answer to the request (2026-07-28's `input_required`)."""

    reply: Any


@dataclass(frozen=True)
class Opening:
    """Where a request's interaction starts: the continuation state and answers it carries (none on a first round)."""

    state: str | None = None
    answers: Mapping[str, Answer] | str = field(default_factory=dict)
    """The answers by form id; a string says why what came back cannot be read as answers."""
    continues: bool = field(init=False)
    """Whether the request carries an interaction's earlier rounds (then its answer depends on them)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "continues", self.state is not None or bool(self.answers))  # read on every read: a field, not a property

    def step(self, request: Request) -> Outcome:
        """The request's first step: a pure function of the core's request (safe in any thread)."""
        if isinstance(self.answers, str):
            return failed(request, "invalid", self.answers)
        return state.resume(request, self.state, self.answers)


FIRST_ROUND = Opening()
"""Where a request that carries no earlier round starts (most requests): one value, made once."""
Driven = Render | Fail | Pending
"""Where driving a request ends: it renders, it fails, or it waits for the client's next round."""
Stepping = Callable[[Callable[[], Outcome]], Awaitable[Outcome]]
"""How the server runs one pure step of the forms (on its loop, or in a thread when checks may be slow)."""


class Era(Protocol):
    """One protocol era, as the server sees it."""

    name: str
    """The era's name in logs and metrics (`legacy`, `2026-07-28`)."""

    long_lived: tuple[str, ...]
    """Methods whose requests stay open while the client is connected (they never count as work in hand)."""

    def speaks(self, ctx: Context) -> bool:
        """Whether a request is in this era."""

    def opening(self, ctx: Context) -> Opening:
        """Where this request's interaction starts, read from the request once."""

    async def drive(self, ctx: Context, request: Request, asked: Ask, *, answer_timeout: float | None, stepping: Stepping,
                    ui: str | None = None, titled: bool = True) -> Driven:
        """Take a request whose first step asks to its end, or to the reply that asks the client; each later step runs through `stepping`.

        `ui` names an App page each form request offers to render it (the draft app-rendered elicitation); `titled` False
        lists each choice with its title in the form's message, for a client that shows no titles."""

    async def roots(self, ctx: Context) -> tuple[str, ...]:
        """The roots (`file://` addresses) the client of this request declares; none where the era has no roots (C10)."""

    def error(self, error: GuideError) -> MCPError:
        """The JSON-RPC error this era's clients get for a Guide error."""

    def install(self, server: FastMCP) -> None:
        """Add what telling this era's clients about changes needs to `server` (a middleware, a request handler)."""

    async def announce(self) -> int:
        """Tell this era's connected clients that the listings changed; how many were told."""

    def close(self) -> None:
        """Let this era's connected clients go (the server stops)."""
