"""Whether a decline was a person's (C7.10, issue 36): a form declined sooner than a person reads one was declined by no one.

Some clients declare form elicitation and then decline a form without showing it
to anyone. Such a decline comes back within a round trip; a person needs longer
to see the form, read it and choose to decline. So a decline that came back
sooner than the request's bound (`Request.unread_decline`, at most `CEILING`) is
taken for no person's, and the read goes on as for a client without forms: the
agent is told what to ask the person (C7.6). Any later decline, and a decline
whose time is not known, stays a decline. The time is given, never read here.
"""

from collections.abc import Mapping

from guide.clients import CEILING
from guide.forms.outcomes import Answer, Request


def unread(request: Request, answers: Mapping[str, Answer]) -> tuple[str, float] | None:
    """The first form whose decline came back sooner than a person could have read it, and after how many seconds; else None."""
    bound = min(request.unread_decline, CEILING)
    for form, answer in answers.items():
        if answer.action == "decline" and answer.seconds is not None and 0 <= answer.seconds < bound:
            return form, answer.seconds
    return None
