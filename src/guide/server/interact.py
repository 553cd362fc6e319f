"""Serve one read: resolve it (routes), drive it in the client's protocol era (eras), finish it (routes)."""

from fastmcp import Context
from mcp_types import InputRequiredResult

from guide.docroot.folder import Docroot
from guide.routes.finish import finish
from guide.routes.resolve import Call
from guide.server.eras import can_elicit, for_request


async def serve(ctx: Context, docroot: Docroot, found: str | Call) -> str | InputRequiredResult:
    """The answer to a resolved read: its text, the rendered entrypoint, or the forms to ask first."""
    if isinstance(found, str):
        return found
    outcome = await for_request(ctx).drive(ctx, found.request(can_elicit=can_elicit(ctx)))
    if isinstance(outcome, InputRequiredResult):
        return outcome
    return finish(docroot, found, outcome)
