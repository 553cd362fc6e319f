"""What every channel offers the server: the `Channel` interface, and what a client declared for one request.

An era says how a request is carried; a channel says how a pending form reaches
the person (C7.12). Every channel ends in the same pure `step`, with the same
answers, so validation, re-asking, branches and sealed state are shared.
"""

from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol

from fastmcp import Context

from guide.forms.step import Ask, Request
from guide.server.eras.base import Driven, Era, Stepping

APPS_EXTENSION = "io.modelcontextprotocol/ui"
"""The MCP Apps extension, as clients name it under `capabilities.extensions`."""
APP_MIME = "text/html;profile=mcp-app"
"""The MIME type of an MCP App's page; a client that renders Apps lists it under the extension's `mimeTypes`."""


class Declared(NamedTuple):
    """What the client declared for one request: on 2026-07-28 in the request's `_meta`, on legacy in its `initialize`.

    `Declared.of` reads the declaration; `guide.server.channels.clients` corrects it by the client table (and sets the last three
    fields). A named tuple: `Channels` keys its choice by it on every read, and a tuple hashes without running Python code.
    """

    forms: bool = False
    """Form elicitation (a bare `elicitation: {}` means form)."""
    apps: bool = False
    """The MCP Apps extension, with the MCP App page type among its `mimeTypes` (or no list at all)."""
    app_elicitation: bool = False
    """The draft app-rendered elicitation: `elicitation` inside the Apps extension's settings."""
    urls: bool = False
    """URL-mode elicitation (`elicitation.url`): the client opens a link for the person (C5 URL-mode forms)."""
    titles: bool = True
    """Whether its forms show each choice's title (the client table may say not: then each form's message lists them)."""
    declines: float = 0.0
    """A decline sooner than this many seconds after its form was asked is no person's (`guide.forms.declines`)."""
    client: str = ""
    """The row of the client table that names the client (`other`: none), its label in /metrics."""

    @classmethod
    def of(cls, ctx: Context) -> "Declared":
        """What the client of this request declared (the SDK gives the request's own capabilities on 2026-07-28)."""
        capabilities = ctx.session.client_capabilities if ctx.request_context is not None else None
        if capabilities is None:
            return cls()
        elicitation = capabilities.elicitation
        forms = elicitation is not None and (elicitation.form is not None or elicitation.url is None)
        urls = elicitation is not None and elicitation.url is not None
        settings = (capabilities.extensions or {}).get(APPS_EXTENSION)
        if not isinstance(settings, Mapping) or not _renders_pages(settings.get("mimeTypes")):
            return cls(forms=forms, urls=urls)
        return cls(forms=forms, apps=True, app_elicitation=forms and isinstance(settings.get("elicitation"), Mapping), urls=urls)


def _renders_pages(mime_types: Any) -> bool:
    """Whether an Apps declaration covers Guide's page: no list (the extension's default), or one naming it."""
    if mime_types is None:
        return True
    return isinstance(mime_types, list) and any(isinstance(kind, str) and kind.split(";")[0].strip() == "text/html" and "mcp-app" in kind
                                               for kind in mime_types)


class Channel(Protocol):
    """One way a pending form reaches the person."""

    name: str
    """How the channel is named in the log and in memos (`native`, `app`, `agent`)."""
    asks: bool
    """Whether the person is asked at all (the core's `can_elicit`): false, the pure step settles with defaults or fails (C7.6)."""

    def carries(self, declared: Declared) -> bool:
        """Whether this channel can carry the pending forms of a request whose client declared `declared`."""

    def opens_links(self, declared: Declared) -> bool:
        """Whether this channel takes URL steps to the person (else each takes its fallback or fails with its link)."""

    async def carry(self, ctx: Context | None, era: Era | None, request: Request, asked: Ask, *, answer_timeout: float | None,
                    stepping: Stepping) -> Driven:
        """Take the pending forms to the person: to the end of the interaction, or to the reply that waits for them.

        `ctx` and `era` are the request's; a channel outside the protocol (`guide render`) is given none."""


__all__ = ["APPS_EXTENSION", "APP_MIME", "Channel", "Declared"]
