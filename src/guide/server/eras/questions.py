"""A form as both eras send it: an elicitation request with the delivered schema, naming its form."""

from mcp_types import ElicitRequest, ElicitRequestFormParams

from guide.forms.resolve import Question
from guide.protocol import FORM_META
from guide.server import metrics


def elicit_request(question: Question) -> ElicitRequest:
    """A form elicitation with the schema to deliver, naming its form id in `_meta` for clients that show it (counted as asked)."""
    metrics.form_asked()
    params = ElicitRequestFormParams(message=question.message, requested_schema=question.schema, _meta={FORM_META: question.form})
    return ElicitRequest(params=params)
