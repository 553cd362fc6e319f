"""Native form elicitation (C7.12 a): the client shows each form itself, carried by the request's era (C7.7, C7.8).

Where the client declares the draft app-rendered elicitation, each form request
also names Guide's App page in `_meta.ui.resourceUri`; the form itself stays
complete, so a host that does not render the page shows its own form.
"""

from collections.abc import Mapping
from typing import Any

from fastmcp import Context

from guide.forms.step import Answer, Ask, Request
from guide.server.channels.base import Declared, read_answers
from guide.server.eras.base import Driven, Era, Stepping


class Native:
    """The client's own forms, in either era."""

    name = "native"
    asks = True

    def __init__(self, app_uri: str | None = None) -> None:
        self.app_uri = app_uri
        """Guide's App page, named on form requests for clients that render it (None: the App channel is off)."""

    def carries(self, declared: Declared) -> bool:
        """Whether the client declared form elicitation."""
        return declared.forms

    async def carry(self, ctx: Context, era: Era, request: Request, asked: Ask, *, answer_timeout: float | None,
                    stepping: Stepping) -> Driven:
        """Ask through the era: in turn with `elicitation/create` (legacy), or all at once in `input_required` (2026-07-28)."""
        ui = self.app_uri if self.app_uri is not None and Declared.of(ctx).app_elicitation else None
        return await era.drive(ctx, request, asked, answer_timeout=answer_timeout, stepping=stepping, ui=ui)

    def answers(self, returned: Mapping[str, Any] | None) -> dict[str, Answer] | str:
        """The client's elicitation results by form id."""
        return read_answers(returned)
