"""Native form elicitation (C7.12 a): the client shows each form itself, carried by the request's era (C7.7, C7.8).

Where the client declares the draft app-rendered elicitation, each form request
also names Guide's App page in `_meta.ui.resourceUri`; the form itself stays
complete, so a host that does not render the page shows its own form. That is
a channel of its own (`Native(PAGE_URI)`, offered first), so the client's
declaration is read once per read, when the channel is chosen. So is a client
whose forms show no choice titles (the client table says so): `Native(titled=False)`
also lists each choice with its title in the form's message.
"""


from fastmcp import Context

from guide.forms.step import Ask, Request
from guide.server.channels.base import Declared
from guide.server.eras.base import Driven, Era, Stepping


class Native:
    """The client's own forms, in either era."""

    name = "native"
    asks = True

    def __init__(self, app_uri: str | None = None, *, titled: bool = True) -> None:
        self.app_uri = app_uri
        """Guide's App page, named on every form request (None: named on none)."""
        self.titled = titled
        """Whether the client shows choice titles itself (else each form's message lists them)."""

    def carries(self, declared: Declared) -> bool:
        """Whether the client declared form elicitation (and, to be named the page, the app-rendered kind) and shows titles as this one expects."""
        return declared.forms and (self.app_uri is None or declared.app_elicitation) and declared.titles == self.titled

    def opens_links(self, declared: Declared) -> bool:
        """Whether the client declared URL-mode elicitation too: then its URL steps go with its forms."""
        return declared.urls

    async def carry(self, ctx: Context | None, era: Era | None, request: Request, asked: Ask, *, answer_timeout: float | None,
                    stepping: Stepping) -> Driven:
        """Ask through the era: in turn with `elicitation/create` (legacy), or all at once in `input_required` (2026-07-28)."""
        assert ctx is not None and era is not None, "native forms are carried by a protocol request"
        return await era.drive(ctx, request, asked, answer_timeout=answer_timeout, stepping=stepping, ui=self.app_uri, titled=self.titled)
