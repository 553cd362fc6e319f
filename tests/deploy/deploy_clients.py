"""Clients for the deployment tests: interactions on both protocol eras that record which replica answered.

nginx names the replica that answered in the `X-Guide-Replica` response header
(`$upstream_addr`: several addresses when it asked more than one; the last answered).
"""

import asyncio
import random
from dataclasses import dataclass, field
from urllib.parse import quote

import httpx2
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp_types import ElicitResult, InputRequiredResult

URI = "guide://_review"
KINDS = ("uncommitted", "branch", "branch-retry")  # 2, 3 and 4 rounds
BAD_REFERENCE = "not a branch!"  # breaks the reference pattern: the form is asked again


def answered_by(header: str | None) -> str | None:
    """The replica that answered, from nginx's `$upstream_addr` list."""
    return header.split(",")[-1].strip() if header else None


@dataclass
class Exchange:
    """One HTTP response a client received."""

    method: str
    mcp_method: str | None
    session_sent: str | None
    session_received: str | None
    replica: str | None
    status: int


@dataclass
class Recorder:
    """An httpx client factory for FastMCP's HTTP transport that records every response."""

    exchanges: list[Exchange] = field(default_factory=list)

    async def _hook(self, response: httpx2.Response) -> None:
        request = response.request
        self.exchanges.append(
            Exchange(
                request.method,
                request.headers.get("mcp-method"),
                request.headers.get("mcp-session-id"),
                response.headers.get("mcp-session-id"),
                answered_by(response.headers.get("x-guide-replica")),
                response.status_code,
            )
        )

    def __call__(self, **options) -> httpx2.AsyncClient:
        options.setdefault("timeout", httpx2.Timeout(60.0))
        return httpx2.AsyncClient(event_hooks={"response": [self._hook]}, **options)

    def reads(self) -> list[Exchange]:
        """The `resources/read` rounds, in order."""
        return [exchange for exchange in self.exchanges if exchange.mcp_method == "resources/read"]


def client(url: str, mode: str, recorder: Recorder, token: str | None = None, elicitation_handler=None) -> Client:
    """A FastMCP client over HTTP recording its responses; `token` is sent as a bearer token."""
    transport = StreamableHttpTransport(url, auth=token, httpx_client_factory=recorder)
    return Client(transport, mode=mode, elicitation_handler=elicitation_handler or _refuse)


async def _refuse(message, response_type, params, context):
    raise AssertionError(f"no form is answered by this client: {message}")


@dataclass
class Plan:
    """One review interaction with its own answers."""

    number: int
    kind: str
    depth: str

    @property
    def reference(self) -> str:
        return f"feature/n{self.number}"

    @property
    def rounds(self) -> int:
        return {"uncommitted": 2, "branch": 3, "branch-retry": 4}[self.kind]

    @property
    def keywords_uri(self) -> str:
        """The same request with every value in the address (C3: the same text)."""
        mode = "uncommitted" if self.kind == "uncommitted" else "branch"
        reference = "" if mode == "uncommitted" else f"&reference={quote(self.reference, safe='')}"
        return f"{URI}?mode={mode}&depth={self.depth}{reference}"

    def answer(self, form: str, asked_before: int) -> dict:
        """The content this interaction gives for `form` (asked `asked_before` times already)."""
        if form == "target":
            return {"mode": "uncommitted" if self.kind == "uncommitted" else "branch"}
        if form == "depth":
            return {"depth": self.depth}
        if form == "reference":
            return {"reference": BAD_REFERENCE if self.kind == "branch-retry" and asked_before == 0 else self.reference}
        raise AssertionError(f"interaction {self.number} was asked an unexpected form {form!r}")

    def check(self, text: str, expected: str) -> None:
        """The rendered text is this interaction's own: its depth, its reference, as the keyword read gives it."""
        assert text == expected, f"interaction {self.number}: {text!r} != {expected!r}"
        assert f"**{self.depth}**" in text
        assert (self.reference in text) == (self.kind != "uncommitted")


def plans(count: int, seed: int) -> list[Plan]:
    """`count` interactions cycling through the three shapes, with random depths."""
    rng = random.Random(seed)
    return [Plan(number, KINDS[number % len(KINDS)], rng.choice(["quick", "thorough"])) for number in range(count)]


class Modern:
    """Drives one 2026-07-28 interaction round by round (each round a separate request)."""

    def __init__(self, url: str, plan: Plan, token: str | None = None):
        self.plan = plan
        self.recorder = Recorder()
        self.client = client(url, "2026-07-28", self.recorder, token)
        self.state: str | None = None
        self.pending: dict[str, dict] | None = None
        self.asked: dict[str, int] = {}
        self.text: str | None = None

    async def __aenter__(self) -> "Modern":
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.client.__aexit__(*exc)

    async def round(self) -> None:
        """Send the next round: the first read, or the answers to what was asked."""
        responses = None
        if self.pending is not None:
            responses = {form: ElicitResult(action="accept", content=self.plan.answer(form, self.asked.get(form, 0))) for form in self.pending}
            for form in self.pending:
                self.asked[form] = self.asked.get(form, 0) + 1
        result = await self.client.session.read_resource(URI, allow_input_required=True, input_responses=responses, request_state=self.state)
        if isinstance(result, InputRequiredResult):
            assert result.request_state, "an input_required result without state cannot continue elsewhere"
            self.state, self.pending = result.request_state, dict(result.input_requests or {})
        else:
            self.state, self.pending, self.text = None, None, result.contents[0].text

    async def finish(self) -> str:
        """Send rounds until the text comes back; check the number of rounds."""
        while self.text is None:
            await self.round()
        assert len(self.recorder.reads()) == self.plan.rounds, f"interaction {self.plan.number} took {len(self.recorder.reads())} rounds"
        return self.text

    def replicas(self) -> list[str | None]:
        """The replica that answered each round so far."""
        return [exchange.replica for exchange in self.recorder.reads()]


async def keyword_text(url: str, plan: Plan, token: str | None = None) -> str:
    """The text the interaction must end with: the same request with every value in the address."""
    async with client(url, "2026-07-28", Recorder(), token) as session_client:
        result = await session_client.read_resource(plan.keywords_uri)
    return result[0].text


async def run_modern(url: str, plan: Plan, token: str | None = None) -> list[str | None]:
    """One whole 2026-07-28 interaction, checked; the replica of each round."""
    async with Modern(url, plan, token) as interaction:
        text = await interaction.finish()
    plan.check(text, await keyword_text(url, plan, token))
    return interaction.replicas()


async def run_legacy(url: str, plan: Plan, token: str | None = None) -> Recorder:
    """One whole legacy interaction (a session answering elicitation/create), checked; its responses."""
    asked: dict[str, int] = {}

    async def answer(message, response_type, params, context):
        form = {"mode": "target", "depth": "depth", "reference": "reference"}[next(iter(params.requested_schema["properties"]))]
        content = plan.answer(form, asked.get(form, 0))
        asked[form] = asked.get(form, 0) + 1
        return content

    recorder = Recorder()
    async with client(url, "legacy", recorder, token, elicitation_handler=answer) as session_client:
        contents = await session_client.read_resource(URI)
    plan.check(contents[0].text, await keyword_text(url, plan, token))
    return recorder


async def bounded(jobs, limit: int) -> list:
    """Run coroutines with at most `limit` at a time; results in order (the first failure propagates)."""
    gate = asyncio.Semaphore(limit)

    async def one(job):
        async with gate:
            return await job

    return await asyncio.gather(*(one(job) for job in jobs))
