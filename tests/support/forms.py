"""Declaring forms in the pure core's tests, and checking what was declared."""

from guide.forms.combine import combine
from guide.forms.declare import FormSet, declare_forms, declared_names

ORIGIN = "_commands/c.md"


def form(properties, required=None, **extra):
    """A form declaration with a message and an object schema (`required` only when given)."""
    schema = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = list(required)
    return {"message": "Answer this.", "schema": schema, **extra}


def issues_of(elicitation, *, origin=ORIGIN, **options):
    """Every issue of one file's elicitation: its own checks, then those across its forms."""
    forms, issues = declare_forms(elicitation, origin=origin, **options)
    if issues:
        return issues
    return combine(forms, declared_names(elicitation))[1]


def declared(elicitation, *, origin=ORIGIN, **options) -> FormSet:
    """The effective forms of one file's elicitation, which must have no authoring issue."""
    forms, issues = declare_forms(elicitation, origin=origin, **options)
    form_set, more = combine(forms, declared_names(elicitation))
    assert issues + more == [], [issue.message for issue in issues + more]
    return form_set
