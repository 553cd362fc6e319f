"""The App form's FastMCP components: Guide's page (a `ui://` resource) and the two tools that carry its rounds.

`open_form` (for the model) resolves an address as any read does and answers
the forms it asks, with the state sealed for the page; the host renders the
page named in the tool's `_meta.ui.resourceUri` and hands it that result.
`submit_form` (for the page) takes the person's answers back: Guide unseals the
state, runs the same pure step as every channel (checks, re-asks, branches) and
answers either the forms that are now pending or the rendered text. Nothing the
page sends is trusted: it is an untrusted frame, and the tool can be called by
anyone (visibility is a hint to hosts, not a boundary).
"""

from importlib import resources
from typing import Any

from fastmcp import Context, FastMCP
from fastmcp.apps import UI_MIME_TYPE, AppConfig, ResourceCSP
from fastmcp.tools import ToolResult
from mcp.server.request_state import RequestStateSecurity
from mcp_types import TextContent

from guide.errors import StateError
from guide.forms import state
from guide.forms.step import Question, Request, field_need
from guide.forms.url_step import UrlQuestion
from guide.routes.lookup import AddressRead, Call
from guide.server import metrics
from guide.server.app_form.state import seal, unseal
from guide.server.channels.app import OPEN_TOOL, PAGE_URI, SUBMIT_TOOL, AppForm, AppRound, Asking
from guide.server.channels.clients import Clients
from guide.server.eras.base import FIRST_ROUND, Era, Opening, Pending
from guide.server.eras.questions import read_answers
from guide.server.hooks import Hooks
from guide.server.provider import GuideResource
from guide.server.service import Service, Turn

PAGE_FILE = "form.html"
OPEN_DESCRIPTION = (
    "Show the user the form of a guide:// address that needs their answers (a read of it says so), in an interactive view. "
    "Call it with the address the read names, then wait: the user fills the form in, and the instructions arrive in the "
    "conversation when they submit. Never guess the answers."
)
ROUND = AppRound()
SUBMIT_DESCRIPTION = "Used by Guide's form view to send the user's answers; not for the model."
CSP = ResourceCSP(connect_domains=[], resource_domains=[], frame_domains=[], base_uri_domains=[])
"""The page loads nothing from anywhere: every script and style is in the page itself."""


def page() -> str:
    """Guide's App page: one self-contained HTML document (see docs/architecture.md for why it is hand-written)."""
    return resources.files(__package__).joinpath(PAGE_FILE).read_text(encoding="utf-8")


def install(server: FastMCP, service: Service, security: RequestStateSecurity) -> None:
    """Add the page and its two tools to `server`; `security` seals the state the page carries (the 2026-07-28 era's keys)."""
    text = page()

    @server.resource(PAGE_URI, name="guide-form", description="Guide's form view (MCP App)", mime_type=UI_MIME_TYPE,
                     app=AppConfig(csp=CSP, prefers_border=True))
    def form_page() -> str:
        return text

    @server.tool(name=OPEN_TOOL, description=OPEN_DESCRIPTION, app=AppConfig(resource_uri=PAGE_URI, visibility=["model"]))
    async def open_form(uri: str, ctx: Context) -> ToolResult:
        return await service.guarded(ctx, AddressRead(uri), AppForm.name, lambda era: _round(service, security, ctx, era, uri, None, None), tool=True)

    Hooks.of(server).add(ForAppClients(service.clients))

    @server.tool(name=SUBMIT_TOOL, description=SUBMIT_DESCRIPTION, app=AppConfig(resource_uri=PAGE_URI, visibility=["app"]))
    async def submit_form(uri: str, state: str, answers: dict[str, Any], ctx: Context) -> ToolResult:
        return await service.guarded(ctx, AddressRead(uri), AppForm.name, lambda era: _round(service, security, ctx, era, uri, state, answers),
                                     tool=True)


class ForAppClients:
    """Lists the page and its tools only to clients that declared MCP Apps: the others could not show them.

    Calls are not filtered (listing is not access control): whoever calls is checked
    as any caller is. A part of Guide's middleware (`guide.server.hooks`) that sees
    the answers to the two listings only.
    """

    methods = ("tools/list", "resources/list")

    def __init__(self, clients: Clients) -> None:
        self.clients = clients
        """What a client declared, as the client table corrects it (a row may say a client renders Apps, or does not)."""

    async def answered(self, context: Any, result: Any) -> Any:
        """A listing for a client without MCP Apps, without the App's page and tools."""
        if context.fastmcp_context is None:
            return result
        if context.fastmcp_context.request_context is None:  # no client at all (`fastmcp inspect`): everything is listed
            return result
        if (await self.clients.declared(context.fastmcp_context)).apps:
            return result
        if context.method == "tools/list":
            return [tool for tool in result if tool.name not in (OPEN_TOOL, SUBMIT_TOOL)]
        # A docroot listing can hold 10,000 resources: the class check spares each a string conversion.
        return [resource for resource in result if isinstance(resource, GuideResource) or str(resource.uri) != PAGE_URI]


async def _round(service: Service, security: RequestStateSecurity, ctx: Context, era: Era, uri: str, sealed: str | None,
                 returned: dict[str, Any] | None) -> ToolResult:
    """One round: the first (`sealed` None) or a submission; the forms it asks, or the text it renders."""
    opening = FIRST_ROUND
    if sealed is not None:
        text = unseal(security, ctx, sealed)
        answers = read_answers(returned)
        if isinstance(answers, str):
            raise StateError(f"{answers}; {state.RESTART}")
        for answer in answers.values():
            metrics.form_answered(answer.action)
        opening = Opening(text, answers)
    read = AddressRead(uri)
    found = await service.find(read)
    if isinstance(found, Call):
        answered = await service.call(read, found, Turn(ROUND, opening, ctx=ctx, era=era))
        if isinstance(answered, Pending):
            asking: Asking = answered.reply
            metrics.form_asked(len(asking.asked.questions))
            return _asking(security, ctx, uri, asking, first=sealed is None)
        found = answered
    return ToolResult(content=[TextContent(type="text", text=found)], structured_content={"guide": "rendered", "uri": uri, "text": found})


def _hints(request: Request, question: Question | UrlQuestion) -> dict[str, str]:
    """What each asked field with bounds accepts, as every channel words it (`guide.forms.described`): the page shows it under the field."""
    form = next(form for form in request.forms.forms if form.id == question.form)
    asked = question.schema.get("properties", {}) if isinstance(question, Question) else {}
    hints = {field.name: field_need(request, form, field).hint() for field in form.fields if field.name in asked}
    return {name: hint for name, hint in hints.items() if hint}


def _asking(security: RequestStateSecurity, ctx: Context, uri: str, found: Asking, *, first: bool) -> ToolResult:
    forms = [{"id": question.form, "message": question.message, "schema": dict(question.schema), "hints": _hints(found.request, question)}
             for question in found.asked.questions]
    sealed = seal(security, ctx, state.encode(found.request, found.asked.progress))
    asking = "; ".join(question.message.strip().splitlines()[0] for question in found.asked.questions if question.message.strip())
    note = (f"The user now sees the form of {uri} ({asking}). Wait for them to submit it: the instructions then arrive in the conversation."
            if first else f"The form of {uri} asks again: {asking}.")
    content = {"guide": "form", "uri": uri, "entrypoint": found.request.entrypoint, "forms": forms, "state": sealed}
    return ToolResult(content=[TextContent(type="text", text=note)], structured_content=content)
