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
from guide.text import clip, show


def elicit_request(question: Question | UrlQuestion, ui: str | None = None, titled: bool = True) -> ElicitRequest:
    """A form elicitation with the schema to deliver, naming its form id in `_meta` for clients that show it.

    `ui` is an App page that may render the form instead (the draft app-rendered
    elicitation: `_meta.ui.resourceUri`); the form stays complete, the fallback.
    `titled` False (a client that shows no choice titles) lists each field's choices
    with their titles after the message; the schema stays the author's (C7.9).
    """
    if isinstance(question, UrlQuestion):
        url_params = ElicitRequestURLParams(message=question.message, url=question.url, elicitation_id=uuid.uuid4().hex, _meta={FORM_META: question.form})
        return ElicitRequest(params=url_params)
    meta = {FORM_META: question.form, **({"ui": {"resourceUri": ui}} if ui else {})}
    message = question.message if titled else with_titles(question.message, question.schema)
    params = ElicitRequestFormParams(message=message, requested_schema=question.schema, _meta=meta)
    return ElicitRequest(params=params)


def with_titles(message: str, schema: Mapping[str, Any]) -> str:
    """A form's message, then a line per field whose choices have titles: `Depth: quick = Quick pass; thorough = Thorough`."""
    lines = []
    for name, field in (schema.get("properties") or {}).items():
        options = field.get("oneOf") or (field.get("items") or {}).get("anyOf") or ()
        titled = [option for option in options if isinstance(option, Mapping) and "const" in option and option.get("title")]
        pairs = [(show(option["const"]), str(option["title"])) for option in titled]
        if any(value != title for value, title in pairs):
            lines.append(f"{field.get('title') or name}: " + "; ".join(f"{value} = {title}" for value, title in pairs))
    return "\n\n".join([message, "\n".join(lines)]) if lines else message


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
