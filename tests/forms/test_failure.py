"""C7.6, C7.11: the failure a step ends with, as data: its reason, the fields concerned and the address to retry."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from support.forms import declared, form

from guide.errors import InputError, MissingInputError, StateError
from guide.forms import state
from guide.forms.failure import EXAMPLE_LENGTH, Fail
from guide.forms.step import Answer, Request, step, unanswered

ECHO = {"words": form({"first": {"type": "string", "enum": ["a", "b"]}, "second": {"type": "integer", "minimum": 0}}, ["first", "second"])}


def request(elicitation, keywords=None, *, entrypoint="guide://_c", **options):
    words = {name: (value,) for name, value in (keywords or {}).items()}
    return Request(entrypoint, declared(elicitation, **options.pop("declare", {})), words, **options)


def test_c7_6_missing_lists_each_needed_field_and_a_retry_with_the_given_keywords():
    outcome = step(request(ECHO, {"first": "a", "other": "x y"}, can_elicit=False))
    assert isinstance(outcome, Fail) and outcome.missing == ("second",)
    second = {"keyword": "second", "form": "words", "type": "integer", "required": True, "choices": None, "default": None, "accepts": "an integer at least 0"}
    assert outcome.data() == {
        "reason": "missing",
        "address": "guide://_c",
        "fields": [second],
        "retry": "guide://_c?first=a&other=x%20y&second=<integer>",
        "questions": [{"form": "words", "message": "Answer this.", "when": None, "fields": [{**second, "titles": None}], "defaults": []}],
    }
    assert outcome.message.endswith("; for example guide://_c?first=a&other=x%20y&second=<integer>")
    assert isinstance(outcome.error, MissingInputError) and outcome.error.data == outcome.data()


def test_c7_6_a_long_given_value_is_kept_in_the_data_but_not_echoed_in_the_message():
    long = "x" * (EXAMPLE_LENGTH + 1)
    outcome = step(request(ECHO, {"other": long}, can_elicit=False))
    assert long in outcome.retry
    assert long not in outcome.message and outcome.message.endswith("for example guide://_c?first=<a|b>&second=<integer>")


def test_c6_an_invalid_positional_arg_is_retried_as_a_keyword_blank_and_the_later_args_as_keywords():
    req = Request("guide://_echo", declared(ECHO), {}, ("c", "1"), ("first", "second"))
    outcome = step(req)
    assert outcome.kind == "invalid" and [field["keyword"] for field in outcome.data()["fields"]] == ["first"]
    assert outcome.retry == "guide://_echo?second=1&first=<a|b>"


def test_c7_9_a_workflow_phase_field_offers_the_other_phases_and_no_default_equal_to_the_active_one():
    elicitation = {"next": form({"to": {"type": "string", "source": "workflow-phases", "default": "plan"}}, ["to"])}
    req = request(elicitation, active_phase="plan", declare={"allow_source": True, "phases": ("plan", "build")})
    outcome = step(req, step(req).progress, {"next": Answer("decline")})
    assert outcome.data()["fields"] == [
        {"keyword": "to", "form": "next", "type": "string", "required": True, "choices": ["build"], "default": None, "accepts": "one of: build"}
    ]
    assert outcome.retry == "guide://_c?to=<build>"


def test_c7_8_a_state_failure_is_a_state_error_retried_at_the_address_without_state():
    req = request(ECHO, {"first": "a"})
    outcome = state.resume(req, "not json", {})
    assert outcome.kind == "state" and isinstance(outcome.error, StateError)
    assert outcome.data() == {"reason": "state", "address": "guide://_c", "fields": [], "retry": "guide://_c?first=a"}


def test_c7_7_an_unanswered_form_names_its_fields_to_supply_instead():
    outcome = unanswered(request(ECHO, {"first": "b"}), "words", "the client did not answer form words")
    assert outcome.message == "the client did not answer form words; to go on without the form, supply its fields as keywords: second (integer, required; at least 0)"
    assert isinstance(outcome.error, InputError) and outcome.data()["reason"] == "unanswered"
    assert outcome.retry == "guide://_c?first=b&second=<integer>"


@settings(max_examples=200, deadline=None)
@given(
    keywords=st.dictionaries(st.sampled_from(["first", "second", "other", "frist"]), st.text(max_size=30), max_size=3),
    can_elicit=st.booleans(),
    action=st.sampled_from(["decline", "cancel", "accept"]),
)
def test_c7_11_every_failure_has_the_one_documented_shape(keywords, can_elicit, action):
    req = request(ECHO, keywords, can_elicit=can_elicit)
    outcome = step(req)
    if not isinstance(outcome, Fail) and hasattr(outcome, "progress"):
        outcome = step(req, outcome.progress, {"words": Answer(action, {"first": "z"})})
    if not isinstance(outcome, Fail):
        return
    data = json.loads(json.dumps(outcome.data()))  # plain JSON, nothing else
    assert set(data) == {"reason", "address", "fields", "retry"} | ({"questions"} if data["reason"] == "missing" else set())
    assert data["reason"] in ("missing", "declined", "cancelled", "invalid", "unknown-keyword", "state")
    assert data["address"] == "guide://_c" and data["retry"].startswith("guide://_c")
    for field in data["fields"]:
        assert set(field) == {"keyword", "form", "type", "required", "choices", "default", "accepts"}
        assert f"{field['keyword']}=<" in data["retry"] or field["keyword"] in keywords
        assert field["keyword"] in outcome.message
