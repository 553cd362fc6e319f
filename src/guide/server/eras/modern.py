"""MCP 2026-07-28: every pending form in one `input_required` result, retried with the answers (C7.8, C8).

The continuation state is Guide's JSON text; FastMCP's request-state boundary
seals it on the way out and unseals it on the retry, before Guide reads it
(`sealing`: keys from `GUIDE_STATE_KEYS`, shared by replicas). Listing changes
go out on each client's `subscriptions/listen` stream (`guide.server.eras.listen`).
"""

import time
from collections.abc import Callable, Mapping
from typing import Any

from fastmcp import Context, FastMCP
from mcp import MCPError
from mcp.server.request_state import RequestStateSecurity
from mcp.server.subscriptions import InMemorySubscriptionBus, PromptsListChanged, ResourcesListChanged, ToolsListChanged
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ClientCapabilities,
    ElicitationCapability,
    FormElicitationCapability,
    InputRequiredResult,
    MissingRequiredClientCapabilityErrorData,
    SubscriptionsListenRequestParams,
    UrlElicitationCapability,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from guide.errors import GuideError, MissingInputError
from guide.forms import state
from guide.forms.step import Ask, Request
from guide.protocol import SERVER_NAME
from guide.server import metrics
from guide.server.eras.base import FIRST_ROUND, Driven, Opening, Pending, Stepping
from guide.server.eras.listen import ListenStreams
from guide.server.eras.questions import elicit_request, read_answers
from guide.server.errors import to_mcp


class Modern:
    """MCP 2026-07-28: each round is a request of its own; the state between rounds travels sealed with the client."""

    name = "2026-07-28"
    long_lived = ("subscriptions/listen",)

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenStreams(self.bus)
        self.clock = clock
        """When forms go out and retries come back: the wall clock, since another replica may take the retry (a test's own clock)."""

    def speaks(self, ctx: Context) -> bool:
        """Whether this request speaks MCP 2026-07-28 (the version it was made with)."""
        context = ctx.request_context
        return context is not None and context.protocol_version in MODERN_PROTOCOL_VERSIONS

    def opening(self, ctx: Context) -> Opening:
        """This round's start: the state and answers a retry carries (counted as answered), or nothing on a first round.

        A decline carries the seconds since its forms went out, from the time the state holds (`guide.forms.declines`)."""
        responses, carried = ctx.input_responses, ctx.request_state
        if not responses and carried is None:
            return FIRST_ROUND
        for response in (responses or {}).values():
            metrics.form_answered(str(getattr(response, "action", "")))
        answers = read_answers(responses)
        if not isinstance(answers, str) and any(answer.action == "decline" for answer in answers.values()):
            answers = state.timed(carried, answers, self.clock())
        return Opening(carried, answers)

    async def drive(self, ctx: Context, request: Request, asked: Ask, *, answer_timeout: float | None, stepping: Stepping,
                    ui: str | None = None, titled: bool = True) -> Driven:
        """The forms to ask, with the state to carry to the retry (nothing is awaited here, so there is no wait to bound).

        The App page that can render them (`ui`) is named in the result's own `_meta`: this era's schema of a request
        inside `input_required` has no `_meta` of its own, so the hint each request also carries does not reach the client."""
        metrics.form_asked(len(asked.questions))
        return Pending(
            InputRequiredResult(
                meta={"ui": {"resourceUri": ui}} if ui else None,
                input_requests={question.form: elicit_request(question, ui, titled) for question in asked.questions},
                request_state=state.encode(request, asked.progress, self.clock()),
            )
        )

    async def roots(self, ctx: Context) -> tuple[str, ...]:
        """None: roots are deprecated on 2026-07-28 (a read names its project with the `project` keyword)."""
        return ()

    def error(self, error: GuideError) -> MCPError:
        """A Guide error for a 2026-07-28 client: input only a form could give is a missing capability (C7.6)."""
        return missing_capability(str(error), error.data) if isinstance(error, MissingInputError) else to_mcp(error)

    def install(self, server: FastMCP) -> None:
        """Serve `subscriptions/listen` on `server`."""
        # FastMCP 4.2 has no public hook for a spec method such as subscriptions/listen;
        # the SDK's handler is registered on FastMCP's low-level server (tests/server/test_fastmcp_hooks.py).
        server._mcp_server.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, self.listen)

    async def announce(self) -> int:
        """Put one list change of each kind on every listen stream; how many streams are open."""
        await self.bus.publish(ResourcesListChanged())
        await self.bus.publish(PromptsListChanged())
        await self.bus.publish(ToolsListChanged())  # the read_resource tool's description holds the catalog
        return self.listen.count

    def close(self) -> None:
        """End every listen stream gracefully (at shutdown)."""
        self.listen.close()


def sealing(keys: tuple[str, ...], ttl: float) -> RequestStateSecurity:
    """How continuation state is sealed (C8): with shared `keys` (the first seals, all unseal) or a key of this process, for `ttl` seconds."""
    if not keys:
        return RequestStateSecurity.ephemeral(ttl=ttl, audience=SERVER_NAME)
    return RequestStateSecurity(keys=list(keys), ttl=ttl, audience=SERVER_NAME)


def missing_capability(message: str, data: Mapping[str, Any] | None = None) -> MCPError:
    """The 2026-07-28 error for a client that must answer forms but did not declare form elicitation.

    Its `data` holds the required capabilities (`requiredCapabilities`, as the
    protocol defines) beside Guide's own failure data (docs/errors.md), in one object:
    URL-mode elicitation for a URL step's link (reason `link`), else form elicitation.
    """
    links = (data or {}).get("reason") == "link"
    modes = ElicitationCapability(url=UrlElicitationCapability()) if links else ElicitationCapability(form=FormElicitationCapability())
    required = ClientCapabilities(elicitation=modes)
    capabilities = MissingRequiredClientCapabilityErrorData(required_capabilities=required)
    merged = {**(data or {}), **capabilities.model_dump(by_alias=True, mode="json", exclude_none=True)}
    return MCPError(code=MISSING_REQUIRED_CLIENT_CAPABILITY, message=message, data=merged)

