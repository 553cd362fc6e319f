"""Who the client of a request says it is (`clientInfo`), and the note of a decline no person made (issue 36).

The name and version a client gives decide which rows of the client table apply
to it (`guide.server.channels.clients`), and name it in the log. A decline no
person made (`guide.forms.declines`) is said in the log, one line naming the
client, the form and the time, and counted in `/metrics` under the client's row
in the table (`other` when none names it: client names are the client's to
choose, so they never become labels themselves).
"""

import logging

from fastmcp import Context

from guide.clients import CEILING
from guide.forms.outcomes import Request
from guide.server import metrics
from guide.text import clip, for_log

OTHER = "other"
"""The label of a client no row of the table names."""
log = logging.getLogger("guide")


def identity(ctx: Context | None) -> tuple[str, str]:
    """The name and version the client of this request gives in its `clientInfo` (empty when it gives none)."""
    params = ctx.session.client_params if ctx is not None and ctx.request_context is not None else None
    info = params.client_info if params is not None else None
    return (info.name or "", info.version or "") if info is not None else ("", "")


def client_name(ctx: Context | None) -> str:
    """The client's name and version from its `clientInfo`, for the log (`the client` when it gave none)."""
    name, version = identity(ctx)
    return f"client {clip(name, 60)}{f' {clip(version, 20)}' if version else ''}" if name else "the client"


def note_unread(ctx: Context | None, request: Request, form: str, seconds: float) -> None:
    """Say in the log and count that a decline was taken for no person's, and that the read goes on without forms."""
    metrics.unread_decline()
    log.info("%s declined form %s of %s %.2f s after it was asked, sooner than a person reads a form (%.1f s); the read goes on as for "
             "a client without forms (the agent's questions)", for_log(client_name(ctx)), form, request.entrypoint, seconds,
             min(request.unread_decline, CEILING))
