"""Where a request's interaction starts (`eras.base.Opening`): a value each era reads from its request once (C7.7, C7.8, C8)."""

from guide.forms import state
from guide.forms.combine import combine
from guide.forms.declare import declare_forms, declared_names
from guide.forms.step import Answer, Ask, Fail, Render, Request, step
from guide.server.eras.base import Opening

ELICITATION = {"target": {"message": "Pick one.", "schema": {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}},
                                                              "required": ["mode"]}}}


def request() -> Request:
    forms, issues = declare_forms(ELICITATION, origin="_commands/c.md")
    form_set, more = combine(forms, declared_names(ELICITATION))
    assert issues + more == []
    return Request(entrypoint="c", forms=form_set)


def test_a_first_round_does_not_continue_and_steps_as_the_core_does():
    opening = Opening()
    assert not opening.continues
    assert opening.step(request()) == step(request())
    assert isinstance(opening.step(request()), Ask)


def test_a_round_with_state_or_answers_continues_from_them():
    asked = step(request())
    text = state.encode(request(), asked.progress)
    answered = Opening(text, {"target": Answer("accept", {"mode": "b"})})
    assert answered.continues and Opening(state=text).continues
    outcome = answered.step(request())
    assert isinstance(outcome, Render) and outcome.kwargs["mode"] == "b"


def test_answers_that_cannot_be_read_fail_the_round_saying_why():
    opening = Opening(answers="the response for target is not an elicitation result")
    assert opening.continues
    outcome = opening.step(request())
    assert isinstance(outcome, Fail) and outcome.kind == "invalid" and "not an elicitation result" in outcome.message


def test_an_opening_is_a_value_not_a_step_to_call():
    # The era says where the request starts; the step is run later, by the server, where it runs steps.
    assert Opening("s", {}) == Opening("s", {}) and not callable(Opening())
