"""C7: the step function, one test per step and answer kind."""

import pytest
from support.forms import declared, form

from guide.forms.step import Answer, Ask, Fail, Progress, Render, Request, step

MODES = ["uncommitted", "branch", "pull-request"]
PHASES = ("discussion", "planning", "review")


REVIEW = {
    "target": form({"mode": {"type": "string", "enum": MODES}}, ["mode"]),
    "reference": form({"reference": {"type": "string", "pattern": "[a-z/]+"}}, ["reference"], when={"mode": ["branch", "pull-request"]}),
}


def request(elicitation, keywords=None, **options):
    words = {name: (value,) if isinstance(value, str) else tuple(value) for name, value in (keywords or {}).items()}
    declare_options = {key: options.pop(key) for key in ("fallback_all", "allow_source", "phases") if key in options}
    return Request("c", declared(elicitation, **declare_options), words, **options)


def asked(outcome):
    assert isinstance(outcome, Ask), outcome
    return [question.form for question in outcome.questions]


def answer(req, outcome, **answers):
    """Step again with answers: `form=dict` accepts, `form="decline"`/`"cancel"` as such."""
    given = {k: Answer(v) if isinstance(v, str) else Answer("accept", v) for k, v in answers.items()}
    return step(req, outcome.progress, given)


# C7.2 keywords


def test_c7_2_keywords_need_no_question():
    outcome = step(request(REVIEW, {"mode": "branch", "reference": "feature/x"}))
    assert outcome == Render({"mode": "branch", "reference": "feature/x"}, (), frozenset())


def test_c7_2_keyword_values_win_over_answers():
    elicitation = {"target": form({"mode": {"type": "string", "enum": MODES}, "note": {"type": "string"}}, ["mode", "note"])}
    req = request(elicitation, {"mode": "uncommitted"})
    outcome = answer(req, step(req), target={"mode": "branch", "note": "hi"})
    assert outcome.kwargs == {"mode": "uncommitted", "note": "hi"}


def test_c6_invalid_keyword_fails_naming_it_and_asks_nothing():
    outcome = step(request(REVIEW, {"mode": "everything"}))
    assert isinstance(outcome, Fail) and outcome.kind == "invalid"
    assert outcome.message.startswith("invalid keyword mode:")
    assert "one of: uncommitted, branch, pull-request" in outcome.message


def test_c6_invalid_keyword_of_a_later_form_still_fails_first():
    outcome = step(request(REVIEW, {"reference": "Not Valid!"}))
    assert isinstance(outcome, Fail) and "invalid keyword reference" in outcome.message


def test_c6_undeclared_keywords_pass_through_untouched():
    outcome = step(request(REVIEW, {"mode": "uncommitted", "extra": " 3.70 ", "tag": ["a", "b"]}))
    assert outcome.kwargs == {"mode": "uncommitted", "extra": " 3.70 ", "tag": ["a", "b"]}


def test_c6_false_and_zero_are_values_but_blank_is_unresolved():
    elicitation = {
        "opts": form({"dry": {"type": "boolean"}, "count": {"type": "integer"}}, ["dry", "count"]),
        "label": form({"label": {"type": "string"}}, ["label"]),
    }
    outcome = step(request(elicitation, {"dry": "false", "count": "0", "label": "   "}))
    assert asked(outcome) == ["label"]
    assert answer(request(elicitation, {"dry": "false", "count": "0", "label": "   "}), outcome, label={"label": "v1"}).kwargs == {
        "dry": False, "count": 0, "label": "v1"
    }


def test_c4_args_fill_fields_and_count_as_keywords():
    req = request(REVIEW, args=("branch", "main"), arg_fields=("mode", "reference"))
    assert step(req) == Render({"mode": "branch", "reference": "main"}, ("branch", "main"), frozenset())


def test_c4_invalid_arg_fails_like_a_keyword():
    outcome = step(request(REVIEW, args=("sideways",), arg_fields=("mode",)))
    assert isinstance(outcome, Fail) and outcome.message.startswith("invalid keyword mode:")


# C7.3-C7.5 applicability and pending forms


def test_c7_3_undecided_when_asks_only_the_supplier():
    assert asked(step(request(REVIEW))) == ["target"]


@pytest.mark.parametrize("mode, expected", [("branch", ["reference"]), ("pull-request", ["reference"])])
def test_c7_3_when_with_a_list_matches_any_listed_value(mode, expected):
    assert asked(step(request(REVIEW, {"mode": mode}))) == expected


def test_c7_3_failing_when_makes_the_form_inapplicable():
    assert step(request(REVIEW, {"mode": "uncommitted"})) == Render({"mode": "uncommitted"}, (), frozenset())


def test_c7_3_when_conditions_are_anded():
    elicitation = {
        "target": form({"mode": {"type": "string", "enum": MODES}, "strict": {"type": "boolean"}}, ["mode", "strict"]),
        "why": form({"why": {"type": "string"}}, ["why"], when={"mode": "branch", "strict": True}),
    }
    assert isinstance(step(request(elicitation, {"mode": "branch", "strict": "false"})), Render)
    assert isinstance(step(request(elicitation, {"mode": "uncommitted", "strict": "TRUE"})), Render)
    assert asked(step(request(elicitation, {"mode": "branch", "strict": "true"}))) == ["why"]


def test_c7_3_re_evaluated_after_each_answer():
    req = request(REVIEW)
    outcome = answer(req, step(req), target={"mode": "branch"})
    assert asked(outcome) == ["reference"]
    assert answer(req, outcome, reference={"reference": "feature/x"}).kwargs == {"mode": "branch", "reference": "feature/x"}


def test_c7_4_supplier_without_required_fields_is_asked_when_a_when_waits_on_it():
    elicitation = {
        "options": form({"strict": {"type": "boolean"}}),
        "why": form({"why": {"type": "string"}}, ["why"], when={"strict": True}),
    }
    assert asked(step(request(elicitation))) == ["options"]


def test_c7_4_form_without_required_fields_nobody_waits_on_is_not_asked():
    elicitation = {"options": form({"strict": {"type": "boolean"}})}
    assert step(request(elicitation)) == Render({}, (), frozenset())


def test_c7_10_answered_supplier_leaving_the_when_field_unresolved():
    elicitation = {
        "options": form({"strict": {"type": "boolean"}, "note": {"type": "string"}}),
        "why": form({"why": {"type": "string"}}, ["why"], when={"strict": True}),
    }
    req = request(elicitation)
    assert answer(req, step(req), options={"note": "n", "strict": None}) == Render({"note": "n"}, (), frozenset())


def test_c7_8_every_pending_form_is_asked_at_once_in_declaration_order():
    elicitation = {"b": form({"y": {"type": "string"}}, ["y"]), "a": form({"x": {"type": "string"}}, ["x"])}
    outcome = step(request(elicitation))
    assert asked(outcome) == ["b", "a"]
    assert outcome.progress.requested == ("b", "a")
    assert answer(request(elicitation), outcome, a={"x": "1"}, b={"y": "2"}).kwargs == {"x": "1", "y": "2"}


def test_c7_completed_form_is_not_asked_again():
    elicitation = {"b": form({"y": {"type": "string"}}, ["y"]), "a": form({"x": {"type": "string"}}, ["x"])}
    req = request(elicitation)
    outcome = answer(req, step(req), b={"y": "2"})
    assert asked(outcome) == ["a"]
    assert outcome.progress.completed == {"b"}


# C7.6 a client that cannot answer forms


def test_c7_6_defaults_resolve_the_form_and_mark_it_defaulted():
    elicitation = {"depth": form({"depth": {"type": "string", "enum": ["quick", "thorough"], "default": "quick"}}, ["depth"])}
    assert step(request(elicitation, can_elicit=False)) == Render({"depth": "quick"}, (), frozenset({"depth"}))


def test_c7_6_fallback_render_per_form():
    elicitation = {"focus": form({"focus": {"type": "string"}}, ["focus"], fallback="render"), **REVIEW}
    outcome = step(request(elicitation, {"mode": "uncommitted"}, can_elicit=False))
    assert outcome == Render({"mode": "uncommitted"}, (), frozenset({"focus"}))


def test_c7_6_fallback_render_for_all_forms():
    outcome = step(request(REVIEW, can_elicit=False, fallback_all="render"))
    assert outcome == Render({}, (), frozenset({"target"}))


def test_c7_6_failure_names_every_keyword_to_supply_sorted():
    elicitation = {
        "b": form({"zeta": {"type": "string"}, "beta": {"type": "string"}}, ["zeta", "beta"]),
        "a": form({"alpha": {"type": "integer"}}, ["alpha"]),
    }
    outcome = step(request(elicitation, can_elicit=False))
    assert isinstance(outcome, Fail) and outcome.kind == "missing" and outcome.missing == ("alpha", "beta", "zeta")
    assert outcome.message == (
        "this client cannot answer forms; supply the keywords: alpha (integer, required), beta (string, required), zeta (string, required); "
        "for example c?alpha=<integer>&beta=<string>&zeta=<string>"
    )
    assert [field["keyword"] for field in outcome.data()["fields"]] == ["alpha", "beta", "zeta"]


def test_c7_6_defaulted_supplier_makes_dependents_applicable():
    elicitation = {
        "target": form({"mode": {"type": "string", "enum": MODES, "default": "branch"}}, ["mode"]),
        "reference": REVIEW["reference"],
    }
    outcome = step(request(elicitation, can_elicit=False))
    assert isinstance(outcome, Fail) and outcome.missing == ("reference",)


def test_c7_6_failure_does_not_name_a_field_its_default_resolves():
    elicitation = {"f": form({"x": {"type": "string"}, "y": {"type": "string", "default": "d"}}, ["x", "y"])}
    assert step(request(elicitation, can_elicit=False)).missing == ("x",)


# C7.9 delivered schema


def test_c7_9_delivered_schema_is_the_declared_schema():
    declared = {"type": "object", "properties": {"mode": {"type": "string", "title": "Mode", "oneOf": [{"const": "a", "title": "A"}]}}, "required": ["mode"]}
    outcome = step(request({"target": {"message": "Pick.", "schema": declared}}))
    assert outcome.questions[0].schema == declared
    assert outcome.questions[0].message == "Pick."


def test_c7_9_workflow_source_is_replaced_by_enum_without_the_active_phase():
    phase = {"type": "string", "title": "Next", "source": "workflow-phases"}
    req = request({"next": form({"phase": phase}, ["phase"])}, allow_source=True, phases=PHASES, active_phase="planning")
    schema = step(req).questions[0].schema
    assert schema == {"type": "object", "properties": {"phase": {"type": "string", "title": "Next", "enum": ["discussion", "review"]}}, "required": ["phase"]}


def test_c10_keyword_equal_to_the_active_phase_is_accepted():
    phase = {"type": "string", "source": "workflow-phases"}
    req = request({"next": form({"phase": phase}, ["phase"])}, {"phase": "planning"}, allow_source=True, phases=PHASES, active_phase="planning")
    assert step(req).kwargs == {"phase": "planning"}


def test_c10_answer_equal_to_the_active_phase_is_not_offered():
    phase = {"type": "string", "source": "workflow-phases"}
    req = request({"next": form({"phase": phase}, ["phase"])}, allow_source=True, phases=PHASES, active_phase="planning")
    outcome = answer(req, step(req), next={"phase": "planning"})
    assert asked(outcome) == ["next"] and "one of: discussion, review" in outcome.questions[0].message


# C7.10 answers


def test_c7_10_invalid_answer_is_re_asked_with_the_reason():
    req = request(REVIEW, {"mode": "branch"})
    outcome = answer(req, step(req), reference={"reference": "Feature X"})
    assert asked(outcome) == ["reference"]
    message = outcome.questions[0].message
    assert message.startswith("Answer this.") and "'Feature X' does not match the pattern" in message


def test_c7_10_missing_required_field_is_an_invalid_answer():
    req = request(REVIEW)
    outcome = answer(req, step(req), target={})
    assert asked(outcome) == ["target"] and "field mode is required" in outcome.questions[0].message


def test_c7_10_fourth_invalid_answer_fails():
    req = request(REVIEW)
    outcome = step(req)
    for _ in range(3):
        outcome = answer(req, outcome, target={"mode": "all"})
        assert asked(outcome) == ["target"]
    outcome = answer(req, outcome, target={"mode": "all"})
    assert isinstance(outcome, Fail) and outcome.kind == "invalid"
    assert "form target" in outcome.message and "asked 4 times" in outcome.message


def test_c7_10_valid_fourth_answer_renders():
    req = request(REVIEW)
    outcome = step(req)
    for _ in range(3):
        outcome = answer(req, outcome, target={"mode": 3})
    assert answer(req, outcome, target={"mode": "uncommitted"}).kwargs == {"mode": "uncommitted"}


def test_c6_integer_answer_3_0_renders_as_3():
    req = request({"n": form({"n": {"type": "integer"}}, ["n"])})
    value = answer(req, step(req), n={"n": 3.0}).kwargs["n"]
    assert value == 3 and type(value) is int


def test_c7_10_decline_fails_and_never_applies_defaults_or_fallback():
    elicitation = {"depth": form({"depth": {"type": "string", "default": "quick"}}, ["depth"], fallback="render")}
    req = request(elicitation)
    outcome = answer(req, step(req), depth="decline")
    assert isinstance(outcome, Fail) and outcome.kind == "declined"
    assert outcome.message == "form depth was declined; to go on without the form, supply its fields as keywords: depth (string, required; default quick)"


def test_c7_10_cancel_applies_defaults():
    elicitation = {"opts": form({"depth": {"type": "string", "default": "quick"}, "n": {"type": "integer"}}, ["depth", "n"])}
    req = request(elicitation, {"n": "2"})
    assert answer(req, step(req), opts="cancel") == Render({"n": 2, "depth": "quick"}, (), frozenset({"opts"}))


def test_c7_10_cancel_applies_fallback_render():
    elicitation = {"focus": form({"focus": {"type": "string"}}, ["focus"], fallback="render")}
    req = request(elicitation)
    assert answer(req, step(req), focus="cancel") == Render({}, (), frozenset({"focus"}))


def test_c7_10_cancel_without_defaults_or_fallback_fails():
    req = request(REVIEW)
    outcome = answer(req, step(req), target="cancel")
    assert isinstance(outcome, Fail) and outcome.kind == "cancelled"
    assert outcome.message == "form target was cancelled; to go on without the form, supply its fields as keywords: mode (string, required; one of: uncommitted, branch, pull-request)"
    assert outcome.retry == "c?mode=<uncommitted|branch|pull-request>"


def test_c7_10_cancelled_supplier_leaves_dependents_inapplicable():
    elicitation = {
        "options": form({"strict": {"type": "boolean"}}),
        "why": form({"why": {"type": "string"}}, ["why"], when={"strict": True}),
    }
    req = request(elicitation)
    assert answer(req, step(req), options="cancel") == Render({}, (), frozenset({"options"}))


def test_c8_answers_for_unrequested_forms_fail():
    req = request(REVIEW)
    outcome = step(req, Progress(), {"reference": Answer("accept", {"reference": "x"})})
    assert isinstance(outcome, Fail) and outcome.kind == "state" and "reference" in outcome.message
    later = step(req, step(req).progress, {"reference": Answer("accept", {"reference": "x"})})
    assert isinstance(later, Fail) and later.kind == "state"


@pytest.mark.parametrize("schema, expected", [({"type": "integer", "default": 3.0}, int), ({"type": "number", "default": 1}, float)])
def test_c6_defaults_are_normalised_like_answers(schema, expected):
    elicitation = {"opts": form({"x": schema}, ["x"])}
    req = request(elicitation)
    cancelled = answer(req, step(req), opts="cancel")
    without_client = step(request(elicitation, can_elicit=False))
    assert type(cancelled.kwargs["x"]) is expected
    assert type(without_client.kwargs["x"]) is expected


def test_c7_10_render_never_shows_a_default_that_would_have_required_a_skipped_form():
    elicitation = {
        "options": form({"strict": {"type": "boolean", "default": True}, "note": {"type": "string"}}),
        "why": form({"why": {"type": "string"}}, ["why"], when={"strict": True}),
    }
    req = request(elicitation)
    outcome = answer(req, step(req), options={"note": "n"})
    # Either `why` is asked (strict became true) or strict stays unresolved in the render.
    assert isinstance(outcome, Ask) or "strict" not in outcome.kwargs


def test_c10_a_phase_default_equal_to_the_active_phase_is_not_offered():
    phase = {"type": "string", "source": "workflow-phases", "default": "planning"}
    req = request({"next": form({"phase": phase}, ["phase"])}, allow_source=True, phases=PHASES, active_phase="planning")
    delivered = step(req).questions[0].schema["properties"]["phase"]
    assert delivered == {"type": "string", "enum": ["discussion", "review"]}


def test_c7_10_an_answer_that_is_not_an_object_is_asked_again():
    req = request({"target": form({"mode": {"type": "string"}}, ["mode"])})
    outcome = step(req, step(req).progress, {"target": Answer("accept", ["mode", "x"])})
    assert isinstance(outcome, Ask)
    assert "not an object of field values" in outcome.questions[0].message


def test_c7_10_an_answer_with_a_field_the_form_does_not_ask_for_is_asked_again():
    # Another form's field, slipped into this form's answer, must neither be taken nor dropped in silence (C7.12: the App is untrusted).
    req = request({"target": form({"mode": {"type": "string"}}, ["mode"]), "reference": form({"reference": {"type": "string"}}, ["reference"])})
    outcome = step(req, step(req).progress, {"target": Answer("accept", {"mode": "x", "reference": "y"})})
    assert isinstance(outcome, Ask)
    assert [question.form for question in outcome.questions] == ["target", "reference"]  # nothing was taken from it
    assert "field reference is not in form target (it asks for mode)" in outcome.questions[0].message


def test_answers_for_many_unrequested_forms_fail_in_one_short_line():
    """Issue 33 finding 5: 40,000 made-up form ids, one of them long with a newline, give one line naming three and counting the rest."""
    req = request(REVIEW)
    given = {f"f{n:05}": Answer("accept", {}) for n in range(39_999)} | {"\x00" + "x" * 100 + "\nINFO forged": Answer("accept", {})}
    outcome = step(req, step(req).progress, given)
    assert isinstance(outcome, Fail)
    assert outcome.message == "answers for forms that were not requested: \\x00xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..., f00000, f00001 and 39,997 more"
