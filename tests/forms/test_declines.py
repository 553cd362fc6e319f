"""C7.10 and issue 36: a decline sooner than a person reads a form is no person's; the read goes on as for a client without forms.

The time is given (the answer's `seconds`; on 2026-07-28 from the state's time and the retry's, `state.timed`); the core reads no clock.
"""

import json

import pytest
from support.forms import declared, form

from guide.forms import state
from guide.forms.declines import unread
from guide.forms.step import Answer, Ask, Fail, Render, Request, step

REVIEW = {
    "target": form({"mode": {"type": "string", "enum": ["uncommitted", "branch"]}}, ["mode"]),
    "depth": form({"depth": {"type": "string", "enum": ["quick", "thorough"], "default": "quick"}}, ["depth"]),
}


def request(bound: float, **options) -> Request:
    return Request("guide://_review", declared(REVIEW), unread_decline=bound, **options)


def declined(seconds: float | None) -> dict[str, Answer]:
    return {"target": Answer("decline", None, seconds)}


@pytest.mark.parametrize(("seconds", "bound", "judged"), [
    (0.0, 1.5, True), (1.49, 1.5, True), (1.5, 1.5, False), (3.9, 4.0, True),
    (3.9, 9.0, True), (4.0, 9.0, False),  # past 4 s a decline is a person's, whatever the bound
    (None, 1.5, False),  # its time unknown: a person's
    (-0.5, 1.5, False),  # a clock that went back (another replica's): not known, so a person's
    (0.1, 0.0, False),  # no bound: every decline is a person's
])
def test_a_decline_is_no_person_s_only_when_it_came_back_sooner_than_the_bound(seconds, bound, judged):
    found = unread(request(bound), declined(seconds))
    assert found == (("target", seconds) if judged else None)


def test_only_declines_are_judged():
    answers = {"target": Answer("cancel", None, 0.0), "depth": Answer("accept", {"depth": "quick"}, 0.0)}
    assert unread(request(1.5), answers) is None


def test_a_decline_no_person_made_gives_what_a_client_without_forms_gets():
    first = step(request(1.5))
    assert isinstance(first, Ask)
    outcome = step(request(1.5), first.progress, declined(0.05))
    assert outcome == step(request(1.5, can_elicit=False))
    assert isinstance(outcome, Fail) and outcome.kind == "missing" and outcome.missing == ("mode",)
    assert [question.form for question in outcome.questions] == ["target", "depth"]


def test_a_person_s_decline_stays_a_decline():
    first = step(request(1.5))
    outcome = step(request(1.5), first.progress, declined(2.5))
    assert isinstance(outcome, Fail) and outcome.kind == "declined" and outcome.message.startswith("form target was declined")


def test_an_unread_decline_renders_when_defaults_settle_the_read_as_they_do_without_forms():
    only_depth = Request("guide://_review", declared({"depth": REVIEW["depth"]}), unread_decline=1.5)
    first = step(only_depth)
    assert isinstance(first, Ask)
    assert step(only_depth, first.progress, {"depth": Answer("decline", None, 0.1)}) == Render({"depth": "quick"}, (), frozenset({"depth"}))


def test_the_state_carries_when_its_forms_went_out_and_a_retry_s_answers_get_their_seconds():
    first = step(request(1.5))
    text = state.encode(request(1.5), first.progress, 1_000.25)
    assert json.loads(text)["t"] == 1_000.25
    assert state.timed(text, declined(None), 1_002.0) == declined(1.75)
    assert state.timed(state.encode(request(1.5), first.progress), declined(None), 1_002.0) == declined(None)  # made without a time
    assert state.timed("not json", declined(None), 1_002.0) == declined(None)
    assert state.resume(request(1.5), text, state.timed(text, declined(None), 1_000.5)) == step(request(1.5, can_elicit=False))


def test_a_state_whose_time_is_not_a_number_is_refused():
    first = step(request(1.5))
    record = json.loads(state.encode(request(1.5), first.progress, 5.0)) | {"t": "soon"}
    outcome = state.resume(request(1.5), json.dumps(record), {})
    assert isinstance(outcome, Fail) and outcome.kind == "state" and "malformed" in outcome.message
