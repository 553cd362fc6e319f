"""A form as every era and channel sends it (an elicitation request with the delivered schema, naming its form), and what comes back read as answers.

A URL step goes as a URL-mode elicitation (its message and link, no schema); its
`elicitationId` (which the 2025-11-25 wire requires and 2026-07-28 drops) is
random, so it names nothing a client could guess or replay.
"""

import uuid
from collections.abc import Mapping
from typing import Any

from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams

from guide.forms.step import Answer, Question
from guide.forms.url_step import UrlQuestion
from guide.protocol import FORM_META
from guide.text import clip


def elicit_request(question: Question | UrlQuestion, ui: str | None = None) -> ElicitRequest:
    """A form elicitation with the schema to deliver, naming its form id in `_meta` for clients that show it.

    `ui` is an App page that may render the form instead (the draft app-rendered
    elicitation: `_meta.ui.resourceUri`); the form stays complete, the fallback.
    """
    if isinstance(question, UrlQuestion):
        url_params = ElicitRequestURLParams(message=question.message, url=question.url, elicitation_id=uuid.uuid4().hex, _meta={FORM_META: question.form})
        return ElicitRequest(params=url_params)
    meta = {FORM_META: question.form, **({"ui": {"resourceUri": ui}} if ui else {})}
    params = ElicitRequestFormParams(message=question.message, requested_schema=question.schema, _meta=meta)
    return ElicitRequest(params=params)


def read_answers(returned: Mapping[str, Any] | None) -> dict[str, Answer] | str:
    """Elicitation results by form id (objects or plain mappings with `action` and `content`) as answers; or why one cannot be read."""
    answers = {}
    for form_id, response in (returned or {}).items():
        action = response.get("action") if isinstance(response, Mapping) else getattr(response, "action", None)
        content = response.get("content") if isinstance(response, Mapping) else getattr(response, "content", None)
        if action not in ("accept", "decline", "cancel"):
            return f"the response for {clip(str(form_id))} is not an elicitation result"
        answers[str(form_id)] = Answer(action, content)
    return answers
