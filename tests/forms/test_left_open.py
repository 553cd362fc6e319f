"""What a read renders with before the person answers (`guide export-skills`): the values known now, and what the answers decide."""

from hypothesis import given, settings
from hypothesis import strategies as st
from support.forms import declared, form

from guide.forms.failure import Fail
from guide.forms.left_open import left_open
from guide.forms.outcomes import Answer, Ask, Render, Request
from guide.forms.step import step

REVIEW = {
    "scope": form({"mode": {"type": "string", "enum": ["branch", "phase"]}, "strict": {"type": "boolean", "default": False}}, ["mode"]),
    "reference": form({"reference": {"type": "string"}}, ["reference"], when={"mode": "branch"}),
    "depth": form({"depth": {"type": "string", "enum": ["quick", "thorough"], "default": "quick"}}),
    "notes": {"mode": "url", "message": "Open the notes.", "url": "https://example.com/notes", "fallback": "render"},
}


def _request(elicitation, **keywords) -> Request:
    return Request("guide://_c", declared(elicitation), {name: (value,) for name, value in keywords.items()},
                   can_elicit=False, url_hosts=("example.com",))


def _questions(request: Request):
    failed = step(request)
    assert isinstance(failed, Fail) and failed.kind == "missing", failed
    return failed.questions


def test_every_field_asked_and_every_form_a_condition_waits_on_is_open_the_rest_takes_its_defaults():
    request = _request(REVIEW)
    left = left_open(request, _questions(request))
    assert left.fields == {"mode", "strict", "reference"}
    assert left.forms == {"scope", "reference"}
    assert left.render.kwargs == {"depth": "quick"}  # a form nobody is asked about renders with its default, as the read would
    assert left.render.defaulted == {"notes"}  # a URL step with a fallback renders without its link


def test_what_the_read_gives_is_known_and_decides_the_conditions():
    request = _request(REVIEW, mode="phase")
    left = left_open(request, ())
    assert left.fields == frozenset() and left.forms == frozenset()
    assert left.render.kwargs == {"mode": "phase", "strict": False, "depth": "quick"}


def test_a_field_the_person_may_change_from_its_default_stays_open():
    request = _request({"depth": form({"depth": {"type": "string", "enum": ["quick", "thorough"], "default": "quick"}}, ["depth"])})
    questions = _questions(_request({"depth": form({"depth": {"type": "string", "enum": ["quick", "thorough"]}}, ["depth"])}))
    left = left_open(request, [question for question in questions])
    assert "depth" in left.fields and "depth" not in left.render.kwargs


KINDS = {
    "choice": ({"type": "string", "enum": ["a", "b"]}, st.sampled_from(["a", "b"])),
    "flag": ({"type": "boolean"}, st.booleans()),
    "count": ({"type": "integer", "minimum": 0, "maximum": 3}, st.integers(0, 3)),
}


@st.composite
def declarations(draw):
    """One to three forms; each field of a kind, required or not, with or without a default; a later form may wait on a choice."""
    elicitation, choices, kinds = {}, [], {}
    for number in range(draw(st.integers(1, 3))):
        name, kind = f"f{number}", draw(st.sampled_from(sorted(KINDS)))
        schema = dict(KINDS[kind][0])
        if draw(st.booleans()):
            schema["default"] = draw(KINDS[kind][1])
        extra = {"when": {choices[-1]: draw(st.sampled_from(["a", "b"]))}} if choices and draw(st.booleans()) else {}
        elicitation[f"form{number}"] = form({name: schema}, [name] if draw(st.booleans()) else None, **extra)
        choices += [name] if kind == "choice" else []
        kinds[name] = kind
    return elicitation, kinds


@settings(max_examples=60, deadline=None)
@given(declarations(), st.data())
def test_no_answer_changes_a_value_rendered_as_known(declaration, data):
    """C7.12: whatever the person answers, each value not left open renders as the open render has it."""
    elicitation, kinds = declaration
    request = _request(elicitation)
    outcome = step(request)
    if isinstance(outcome, Render):
        return
    left = left_open(request, outcome.questions)
    asking = Request(request.entrypoint, request.forms, request.keywords, can_elicit=True)
    outcome = step(asking)
    while isinstance(outcome, Ask):
        answers = {}
        for question in outcome.questions:  # the person answers every field of each form asked
            names = [name for name, (owner, _) in asking.forms.fields.items() if owner.id == question.form]
            answers[question.form] = Answer("accept", {name: data.draw(KINDS[kinds[name]][1]) for name in names})
        outcome = step(asking, outcome.progress, answers)
    assert isinstance(outcome, Render), outcome
    for name, value in left.render.kwargs.items():
        assert name not in left.fields
        assert outcome.kwargs.get(name) == value, (name, value, outcome.kwargs)
    assert not (set(outcome.kwargs) - set(left.render.kwargs) - left.fields), "a value rendered is neither known nor left open"

