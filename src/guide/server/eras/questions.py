"""A form as every era and channel sends it (an elicitation request with the delivered schema, naming its form), and what comes back read as answers."""

from collections.abc import Mapping
from typing import Any

from mcp_types import ElicitRequest, ElicitRequestFormParams

from guide.forms.step import Answer, Question
from guide.protocol import FORM_META
from guide.server import metrics
from guide.text import clip


def elicit_request(question: Question, ui: str | None = None) -> ElicitRequest:
    """A form elicitation with the schema to deliver, naming its form id in `_meta` for clients that show it (counted as asked).

    `ui` is an App page that may render the form instead (the draft app-rendered
    elicitation: `_meta.ui.resourceUri`); the form stays complete, the fallback.
    """
    metrics.form_asked()
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
