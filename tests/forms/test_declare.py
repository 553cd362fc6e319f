"""C5: form declarations, every authoring error kind and every accepted field shape."""

import pytest
from support.forms import declared, form, issues_of

from guide.forms.combine import combine
from guide.forms.declare import declare_forms, declared_names, digest

PHASES = ("discussion", "planning", "review")


def field_issues(schema, **options):
    return issues_of({"f": form({"x": schema})}, **options)


def only_issue(issues, *, form=None, field=None, says):
    """Exactly one issue, located at that form and field, whose message contains `says`."""
    assert len(issues) == 1, [issue.message for issue in issues]
    issue = issues[0]
    assert (issue.form, issue.field) == (form, field), issue
    assert says in issue.message, issue.message
    return issue


# Authoring errors of the form itself


@pytest.mark.parametrize("elicitation", [["target"], "target", 3])
def test_c5_elicitation_not_a_mapping(elicitation):
    only_issue(issues_of(elicitation), says="`elicitation` must be a mapping")


@pytest.mark.parametrize("message", [None, "", "   ", 42])
def test_c5_form_without_non_empty_string_message(message):
    declaration = form({"x": {"type": "string"}})
    declaration["message"] = message
    only_issue(issues_of({"f": declaration}), form="f", says="non-empty string `message`")


def test_c5_form_without_message_key():
    declaration = form({"x": {"type": "string"}})
    del declaration["message"]
    only_issue(issues_of({"f": declaration}), form="f", says="`message`")


@pytest.mark.parametrize(
    "schema",
    [
        None,
        {"type": "array", "properties": {"x": {"type": "string"}}},
        {"properties": {"x": {"type": "string"}}},
        {"type": "object"},
        {"type": "object", "properties": {}},
        {"type": "object", "properties": ["x"]},
    ],
)
def test_c5_schema_not_an_object_with_non_empty_properties(schema):
    only_issue(issues_of({"f": {"message": "m", "schema": schema}}), form="f", says="`type: object` with a non-empty `properties`")


def test_c5_unknown_field_type_names_accepted_types():
    issue = only_issue(field_issues({"type": "strin"}), form="f", field="x", says="'strin'")
    for name in ("string", "integer", "number", "boolean", "array"):
        assert name in issue.message


@pytest.mark.parametrize(
    "schema, key",
    [
        ({"type": "number", "pattern": "[0-9]+"}, "pattern"),
        ({"type": "integer", "minLength": 1}, "minLength"),
        ({"type": "string", "minimum": 1}, "minimum"),
        ({"type": "boolean", "enum": [True]}, "enum"),
        ({"type": "array", "items": {"type": "string", "enum": ["a"]}, "pattern": "a"}, "pattern"),
    ],
)
def test_c5_key_that_does_not_fit_its_type(schema, key):
    only_issue(field_issues(schema), form="f", field="x", says=f"`{key}` does not fit")


def test_c5_source_on_a_skill():
    schema = {"type": "string", "source": "workflow-phases"}
    only_issue(field_issues(schema, allow_source=False, phases=PHASES), form="f", field="x", says="for commands only")


def test_c5_source_on_a_non_string():
    schema = {"type": "integer", "source": "workflow-phases"}
    issues = field_issues(schema, allow_source=True, phases=PHASES)
    assert any("`source` does not fit an integer field" in issue.message for issue in issues)


def test_c5_unknown_source():
    schema = {"type": "string", "source": "release-trains"}
    issue = only_issue(field_issues(schema, allow_source=True, phases=PHASES), form="f", field="x", says="unknown source")
    assert "workflow-phases" in issue.message


def test_c10_source_without_configured_phases():
    schema = {"type": "string", "source": "workflow-phases"}
    only_issue(field_issues(schema, allow_source=True, phases=()), form="f", field="x", says="workflow is not configured")


@pytest.mark.parametrize(
    "schema, says",
    [
        ({"type": "integer", "enum": [1, "two"]}, "'two' is not an integer"),
        ({"type": "number", "enum": [1.5, True]}, "True is not a number"),
        ({"type": "string", "enum": ["a", 2]}, "2 is not a string"),
        ({"type": "string", "oneOf": [{"const": 1, "title": "One"}]}, "`oneOf` must be a non-empty list"),
        ({"type": "array", "items": {"anyOf": [{"const": 2, "title": "Two"}]}}, "`anyOf` must be a non-empty list"),
        ({"type": "array", "items": {"type": "string", "enum": ["a", 3]}}, "distinct strings"),
    ],
)
def test_c5_choice_value_of_the_wrong_type(schema, says):
    only_issue(field_issues(schema), form="f", field="x", says=says)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer", "default": "3"},
        {"type": "integer", "default": 2.5},
        {"type": "number", "default": "0.5"},
        {"type": "boolean", "default": "yes"},
        {"type": "string", "default": 7},
        {"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": "a"},
    ],
)
def test_c5_default_of_the_wrong_type(schema):
    only_issue(field_issues(schema), form="f", field="x", says="default")


@pytest.mark.parametrize(
    "schema, says",
    [
        ({"type": "string", "enum": ["a", "b"], "default": "c"}, "not one of the choices"),
        ({"type": "string", "oneOf": [{"const": "a", "title": "A"}], "default": "b"}, "not one of the choices"),
        ({"type": "integer", "minimum": 1, "default": 0}, "less than the minimum"),
        ({"type": "number", "maximum": 1, "default": 1.5}, "greater than the maximum"),
        ({"type": "string", "maxLength": 2, "default": "abc"}, "longer than 2"),
        ({"type": "string", "pattern": "v[0-9]+", "default": "v1x"}, "does not match the pattern"),
        ({"type": "string", "format": "date", "default": "tomorrow"}, "not a valid date"),
        ({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["c"]}, "not among the choices"),
        ({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 2, "default": ["a"]}, "at least 2"),
    ],
)
def test_c5_default_outside_choices_or_constraints(schema, says):
    only_issue(field_issues(schema), form="f", field="x", says=says)


@pytest.mark.parametrize(
    "schema, says",
    [
        ({"type": "integer", "minimum": 5, "maximum": 1}, "`minimum` (5) is greater than `maximum` (1)"),
        ({"type": "string", "minLength": 3, "maxLength": 2}, "`minLength` (3) is greater than `maxLength` (2)"),
        ({"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 2, "maxItems": 1}, "`minItems` (2)"),
    ],
)
def test_c5_lower_bound_above_upper_bound(schema, says):
    only_issue(field_issues(schema), form="f", field="x", says=says)


def test_c5_empty_pattern():
    only_issue(field_issues({"type": "string", "pattern": ""}), form="f", field="x", says="non-empty regular expression")


@pytest.mark.parametrize("pattern", ["[a-z", "(unclosed", "*a", "a{3,1}"])
def test_c5_invalid_pattern(pattern):
    only_issue(field_issues({"type": "string", "pattern": pattern}), form="f", field="x", says="is not a valid regular expression")


def test_c5_required_naming_an_undeclared_property():
    issue = only_issue(issues_of({"f": form({"x": {"type": "string"}}, required=["x", "other"])}), form="f", field="other", says="'other'")
    assert "does not declare" in issue.message and "did you mean" not in issue.message


def test_c5_required_naming_a_misspelt_property_says_which_it_resembles():
    issue = only_issue(issues_of({"f": form({"region": {"type": "string"}}, required=["regoin"])}), form="f", field="regoin", says="'regoin'")
    assert issue.message == "`required` names 'regoin', which this form does not declare; did you mean 'region'?"


def test_c5_field_name_starting_with_underscore():
    only_issue(issues_of({"f": form({"_secret": {"type": "string"}})}), form="f", field="_secret", says="cannot start with '_'")


def test_c5_every_problem_of_a_file_is_reported():
    elicitation = {
        "a": {"schema": {"type": "object", "properties": {"x": {"type": "strin"}}}},
        "b": form({"y": {"type": "integer", "minimum": "low"}}, fallback="never"),
    }
    issues = issues_of(elicitation)
    assert {(issue.form, issue.field) for issue in issues} == {("a", None), ("a", "x"), ("b", "y"), ("b", None)}


# Authoring errors across forms


def test_c5_duplicate_form_id_across_entrypoint_and_partial():
    own, _ = declare_forms({"f": form({"x": {"type": "string"}})}, origin="_commands/c.md")
    partial, _ = declare_forms({"f": form({"y": {"type": "string"}})}, origin="_partials/p.md")
    issue = only_issue(combine(own + partial)[1], form="f", says="form id 'f'")
    assert issue.origin == "_partials/p.md"
    assert "_commands/c.md" in issue.message


def test_c5_duplicate_field_across_forms():
    own, _ = declare_forms({"f": form({"x": {"type": "string"}})}, origin="_commands/c.md")
    partial, _ = declare_forms({"g": form({"x": {"type": "integer"}})}, origin="_partials/p.md")
    issue = only_issue(combine(own + partial)[1], form="g", field="x", says="also declared by form 'f'")
    assert issue.origin == "_partials/p.md"


@pytest.mark.parametrize("when", [[], {}, "mode", ["mode"]])
def test_c5_when_not_a_non_empty_mapping(when):
    elicitation = {"a": form({"mode": {"type": "string"}}), "b": form({"y": {"type": "string"}}, when=when)}
    only_issue(issues_of(elicitation), form="b", says="`when` must be a non-empty mapping")


@pytest.mark.parametrize("value", [[], None, {"nested": 1}])
def test_c5_when_with_no_usable_value(value):
    elicitation = {"a": form({"mode": {"type": "string"}}), "b": form({"y": {"type": "string"}}, when={"mode": value})}
    only_issue(issues_of(elicitation), form="b", field="mode", says="a value or a non-empty list")


def test_c5_when_naming_an_unknown_field():
    elicitation = {"a": form({"mode": {"type": "string"}}), "b": form({"y": {"type": "string"}}, when={"mood": "x"})}
    only_issue(issues_of(elicitation), form="b", field="mood", says="unknown field 'mood'")


def test_c5_when_naming_its_own_field():
    elicitation = {"a": form({"mode": {"type": "string"}}, when={"mode": "x"})}
    only_issue(issues_of(elicitation), form="a", field="mode", says="self-reference")


@pytest.mark.parametrize(
    "schema, value, says",
    [
        ({"type": "integer"}, "three", "is not an integer"),
        ({"type": "boolean"}, "yes", "is not true or false"),
        ({"type": "string"}, 3, "is not a string"),
    ],
)
def test_c5_when_value_of_the_wrong_type(schema, value, says):
    elicitation = {"a": form({"n": schema}), "b": form({"y": {"type": "string"}}, when={"n": value})}
    only_issue(issues_of(elicitation), form="b", field="n", says=says)


def test_c5_when_value_outside_the_supplier_choices():
    elicitation = {
        "a": form({"mode": {"type": "string", "enum": ["branch", "uncommitted"]}}),
        "b": form({"y": {"type": "string"}}, when={"mode": ["branch", "pull-request"]}),
    }
    issue = only_issue(issues_of(elicitation), form="b", field="mode", says="'pull-request' is not a choice")
    assert "branch, uncommitted" in issue.message


def test_c5_when_dependency_cycle():
    elicitation = {
        "a": form({"x": {"type": "string"}}, when={"z": "go"}),
        "b": form({"y": {"type": "string"}}, when={"x": "go"}),
        "c": form({"z": {"type": "string"}}, when={"y": "go"}),
    }
    issue = only_issue(issues_of(elicitation), form="a", says="cycle")
    assert "a -> c -> b -> a" in issue.message


def test_c5_unknown_fallback_per_form():
    issue = only_issue(issues_of({"f": form({"x": {"type": "string"}}, fallback="skip")}), form="f", says="unknown fallback 'skip'")
    assert "render" in issue.message


def test_c5_unknown_fallback_for_all_forms():
    only_issue(issues_of({"f": form({"x": {"type": "string"}})}, fallback_all="always"), says="unknown fallback 'always'")


def test_c5_when_naming_a_field_of_a_broken_form_reports_only_the_broken_form():
    elicitation = {
        "a": {"schema": {"type": "object", "properties": {"x": {"type": "string", "enum": ["p"]}}}},
        "b": form({"y": {"type": "string"}}, when={"x": "p"}),
    }
    forms, issues = declare_forms(elicitation, origin="_commands/c.md")
    assert [issue.form for issue in issues] == ["a"]
    assert combine(forms, declared_names(elicitation))[1] == []


# Accepted shapes


def test_c5_every_string_shape_is_accepted():
    properties = {
        "plain": {"type": "string", "title": "Plain", "description": "Any text", "default": "hi", "minLength": 1, "maxLength": 9},
        "tag": {"type": "string", "pattern": "v[0-9]+"},
        "mail": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "day": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "untitled": {"type": "string", "enum": ["a", "b"], "default": "b"},
        "titled": {"type": "string", "oneOf": [{"const": "q", "title": "Quick"}, {"const": "t", "title": "Thorough"}]},
        "legacy": {"type": "string", "enum": ["dev", "pm"], "enumNames": ["Developer", "Product"]},
    }
    fields = declared({"f": form(properties)}).forms[0]
    assert fields.field("untitled").choices == ("a", "b")
    assert fields.field("titled").choices == ("q", "t")
    assert fields.field("legacy").choices == ("dev", "pm")
    assert fields.field("plain").choices is None
    assert fields.field("day").bounds["format"].name == "date"


def test_c5_number_and_boolean_shapes_are_accepted():
    properties = {
        "count": {"type": "integer", "title": "Count", "minimum": 1, "maximum": 5, "default": 3},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5},
        "flag": {"type": "boolean", "description": "On?", "default": False},
    }
    forms = declared({"f": form(properties, required=["count"])}).forms
    assert forms[0].field("level").choices == (1, 2, 3)
    assert forms[0].required == ("count",)


def test_c5_both_multi_select_shapes_are_accepted():
    properties = {
        "tools": {"type": "array", "items": {"type": "string", "enum": ["ci", "chat"]}, "minItems": 1, "maxItems": 2, "default": ["ci"]},
        "extras": {"type": "array", "items": {"anyOf": [{"const": "pair", "title": "Pairing"}, {"const": "read", "title": "Reading"}]}},
    }
    form_ = declared({"f": form(properties)}).forms[0]
    assert form_.field("tools").choices == ("ci", "chat")
    assert form_.field("extras").choices == ("pair", "read")


def test_c10_workflow_phase_source_takes_the_enabled_phases():
    schema = {"type": "string", "source": "workflow-phases"}
    form_ = declared({"f": form({"phase": schema})}, allow_source=True, phases=PHASES).forms[0]
    assert form_.field("phase").choices == PHASES


def test_c5_when_fallback_and_order_are_kept():
    elicitation = {
        "target": form({"mode": {"type": "string", "enum": ["branch", "uncommitted"]}}, required=["mode"]),
        "reference": form({"ref": {"type": "string"}}, required=["ref"], when={"mode": ["branch"]}, fallback="render"),
        "strictness": form({"strict": {"type": "boolean"}}),
        "detail": form({"why": {"type": "string"}}, when={"strict": True}),
    }
    form_set = declared(elicitation)
    assert [f.id for f in form_set.forms] == ["target", "reference", "strictness", "detail"]
    assert form_set.forms[1].when == {"mode": ("branch",)} and form_set.forms[1].fallback
    assert not form_set.forms[0].fallback
    assert form_set.fields["ref"][0].id == "reference"


def test_c5_fallback_render_for_all_forms():
    form_set = declared({"a": form({"x": {"type": "string"}}), "b": form({"y": {"type": "string"}})}, fallback_all="render")
    assert all(f.fallback for f in form_set.forms)


def test_c8_digest_changes_when_a_form_changes():
    first = declared({"f": form({"x": {"type": "string"}})})
    same = declared({"f": form({"x": {"type": "string"}})})
    edited = declared({"f": form({"x": {"type": "string", "maxLength": 3}})})
    assert digest(first) == digest(same) != digest(edited)
