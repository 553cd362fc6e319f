"""The MCP App form (C7.12 b): for a client that renders MCP Apps but shows no forms of its own.

A read that needs answers tells the model to open the form through Guide's
tool (`OPEN_TOOL`, whose `_meta.ui.resourceUri` is Guide's page); the host then
renders the page, which shows the pending forms and submits them through
`SUBMIT_TOOL`. Those rounds are carried by `AppRound`; the components
(page, tools, sealed state) are in `guide.server.app_form`.
"""

from dataclasses import dataclass

from fastmcp import Context

from guide import address
from guide.forms.step import Ask, Request
from guide.protocol import tool_named
from guide.server.channels.agent import Agent
from guide.server.channels.base import Declared
from guide.server.eras.base import Driven, Era, Pending, Stepping

PAGE_URI = "ui://guide/form.html"
"""Guide's App page: the forms of any entrypoint, rendered from what the tools send it."""
OPEN_TOOL = "open_form"
"""The tool the model calls to show the user an entrypoint's forms (its `_meta.ui.resourceUri` names the page)."""
SUBMIT_TOOL = "submit_form"
"""The tool the page calls with the user's answers (visible to the App only)."""


class AppForm:
    """Guide's own form page, rendered by an MCP Apps host."""

    name = "app"
    asks = True  # an App form asks: defaults are offered pre-filled, never applied silently

    def carries(self, declared: Declared) -> bool:
        """Whether the client declared the MCP Apps extension for Guide's page type."""
        return declared.apps

    def opens_links(self, declared: Declared) -> bool:
        """Never: Guide's page shows forms, not links; a read with a URL step goes to the agent instead (`carry`)."""
        return False

    async def carry(self, ctx: Context | None, era: Era | None, request: Request, asked: Ask, *, answer_timeout: float | None,
                    stepping: Stepping) -> Driven:
        """The read's answer: how the model opens the form (the interaction itself runs in the App's tool calls).

        A read with a URL step that has no `fallback: render` is the agent's: the page could not carry it, and the
        answers given on the page would be lost at it; the agent learns every question and the link at once."""
        if any(form.url is not None and not form.fallback for form in request.forms.forms):
            return await Agent().carry(ctx, era, request, asked, answer_timeout=answer_timeout, stepping=stepping)
        return Pending(opening_text(request, asked))



@dataclass(frozen=True)
class Asking:
    """A round of the App form that asks: the core's request and the forms it asks, with the progress to carry."""

    request: Request
    asked: Ask


class AppRound:
    """A round of the App form's own interaction (its tools' calls): the forms asked go back to the page, as they are.

    Never chosen for a protocol read (`Channels.for_request`): the App's tools name it.
    """

    name = "app"
    asks = True  # an App form asks: defaults are offered pre-filled, never applied silently

    def carries(self, declared: Declared) -> bool:
        """Only the App form's own tool calls are carried so."""
        return False

    def opens_links(self, declared: Declared) -> bool:
        """Never: the page shows forms, not links."""
        return False

    async def carry(self, ctx: Context | None, era: Era | None, request: Request, asked: Ask, *, answer_timeout: float | None,
                    stepping: Stepping) -> Driven:
        """The forms to show on the page, with what the page must carry to the next round."""
        return Pending(Asking(request, asked))


def opening_text(request: Request, asked: Ask) -> str:
    """What the model reads instead of the instructions: call the tool that shows the user the form, and wait."""
    uri = address.example(request.entrypoint, request.args, request.keywords)
    asking = "; ".join(question.message.strip().splitlines()[0] for question in asked.questions if question.message.strip())
    return (
        f"Guide needs the user's answers before it can give the instructions of {uri}"
        f"{f' ({asking})' if asking else ''}.\n\n"
        f"Call {tool_named(OPEN_TOOL)} with the argument uri set to `{uri}`: it shows the user the form. "
        "Do not guess the answers and do not fill the form for the user; wait for them to submit it. "
        "The instructions then arrive in the conversation; follow them."
    )
