"""The App form's continuation state, sealed by FastMCP's request-state codec (C8): the App carries it and cannot read or change it.

The page is untrusted: it hands the state back on each submission. The state is
Guide's own continuation text (`guide.forms.state`), in an envelope saying what
it is for (`KIND`), when it expires, and whose it is (the authenticated
principal, if any); the envelope is sealed with the same keys and codec
(AES-256-GCM) as the 2026-07-28 era's `requestState`. Guide invents no crypto.
After unsealing, `guide.forms.state` still checks that the state belongs to the
entrypoint, keywords and arguments of the submission, as it does for that era.
"""

import json
import logging
import time
from typing import Any

from fastmcp import Context
from mcp.server.request_state import InvalidRequestState, RequestStateSecurity, compact_json

from guide.errors import StateError
from guide.forms.state import RESTART

log = logging.getLogger("guide")
KIND = "guide/app-form"
"""What a sealed App state is for: a 2026-07-28 `requestState`, sealed for another use, is never taken as one."""
VERSION = 1


def seal(security: RequestStateSecurity, ctx: Context, text: str) -> str:
    """`text` (Guide's continuation state) sealed for the App to carry, until the state TTL runs out."""
    now = time.time()
    envelope = {"v": VERSION, "k": KIND, "exp": now + security.ttl, "p": _principal(security, ctx), "s": text}
    return security.codec.seal(compact_json(envelope).encode())


def unseal(security: RequestStateSecurity, ctx: Context, token: Any) -> str:
    """Guide's continuation text from a state the App handed back; `StateError` when it was not sealed here for this use and caller, or expired."""
    if not isinstance(token, str) or not token:
        raise StateError(f"the form's state is missing; {RESTART}")
    try:
        envelope = json.loads(security.codec.unseal(token))
    except (InvalidRequestState, ValueError) as error:
        log.info("an App form state was refused: %s", error)
        raise StateError(f"the form's state is not one this server sealed (or it was changed); {RESTART}") from None
    if not isinstance(envelope, dict) or envelope.get("v") != VERSION or envelope.get("k") != KIND or not isinstance(envelope.get("s"), str):
        raise StateError(f"the form's state was not made for an App form; {RESTART}")
    expires = envelope.get("exp")
    if not isinstance(expires, int | float) or not time.time() < expires:
        raise StateError(f"the form's state has expired; {RESTART}")
    if envelope.get("p") != _principal(security, ctx):
        raise StateError(f"the form's state belongs to another user; {RESTART}")
    return envelope["s"]


def _principal(security: RequestStateSecurity, ctx: Context) -> str | None:
    """Who the state is bound to: the authenticated principal, as the request-state policy names it (None without auth)."""
    if security.bind_principal is None:
        return None
    return security.bind_principal(ctx.request_context)  # type: ignore[arg-type]
