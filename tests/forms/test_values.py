"""C6: normalising URI text and client answers, then checking every constraint."""

import pytest

from guide.forms import keywords
from guide.forms.fields import declare_field
from guide.forms.keywords import _BudgetedPattern
from guide.forms.values import Invalid, accepted, is_unresolved, normalise_answer, normalise_text, problems


def field(**schema):
    declared, issues = declare_field("x", schema, allow_source=False, phases=())
    assert issues == [], issues
    return declared


def text(declared, *texts):
    return normalise_text(declared, texts)


MULTI = field(type="array", items={"type": "string", "enum": ["ci", "chat", "docs"]})


# URI / prompt text


@pytest.mark.parametrize("given, value", [("true", True), ("TRUE", True), ("True", True), ("false", False), ("FaLsE", False)])
def test_c6_text_boolean_in_any_case(given, value):
    assert text(field(type="boolean"), given) is value


@pytest.mark.parametrize("given", ["yes", "1", "0", "on", "truth"])
def test_c6_text_boolean_rejects_anything_else(given):
    with pytest.raises(Invalid, match="true or false"):
        text(field(type="boolean"), given)


@pytest.mark.parametrize("given, value", [("3", 3), ("-2", -2), ("+4", 4), (" 5 ", 5), ("3.0", 3), ("1e3", 1000)])
def test_c6_text_integer_whole_numbers(given, value):
    result = text(field(type="integer"), given)
    assert result == value and type(result) is int


@pytest.mark.parametrize("given", ["3.7", "0.5", "1e-1", "three", "0x10", "3_000", "1e400"])
def test_c6_text_integer_never_truncated(given):
    with pytest.raises(Invalid, match="is not an integer"):
        text(field(type="integer"), given)


def test_c6_text_integer_keeps_big_values_exact():
    assert text(field(type="integer"), "99999999999999999999") == 99999999999999999999


@pytest.mark.parametrize("given, value", [("3", 3.0), ("0.25", 0.25), (".5", 0.5), ("-1e2", -100.0)])
def test_c6_text_number_is_a_float(given, value):
    result = text(field(type="number"), given)
    assert result == value and type(result) is float


@pytest.mark.parametrize("given", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "one"])
def test_c6_text_number_finite_only(given):
    with pytest.raises(Invalid, match="is not a number"):
        text(field(type="number"), given)


@pytest.mark.parametrize("given", ["true", "3", " padded ", "a,b"])
def test_c6_text_string_keeps_the_text(given):
    assert text(field(type="string"), given) == given


def test_c6_text_array_from_repeated_keywords():
    assert text(MULTI, "ci", "docs") == ["ci", "docs"]


def test_c6_text_array_from_one_comma_separated_value():
    assert text(MULTI, "ci, chat") == ["ci", "chat"]


@pytest.mark.parametrize("kind", ["string", "integer", "number", "boolean"])
@pytest.mark.parametrize("given", ["", "   "])
def test_c6_blank_text_is_unresolved(kind, given):
    assert is_unresolved(text(field(type=kind), given))


def test_c6_blank_array_text_is_unresolved():
    assert text(MULTI, " , ") is None


def test_c6_text_given_twice_for_a_single_value_field_is_invalid():
    with pytest.raises(Invalid, match="2 times"):
        text(field(type="string"), "a", "b")


# Client answers (JSON)


@pytest.mark.parametrize("answer, value", [(3, 3), (3.0, 3), (-7, -7)])
def test_c6_answer_integer(answer, value):
    result = normalise_answer(field(type="integer"), answer)
    assert result == value and type(result) is int


@pytest.mark.parametrize("answer", ["3", 3.5, True, [3], float("nan")])
def test_c6_answer_integer_must_already_be_an_integer(answer):
    with pytest.raises(Invalid, match="is not an integer"):
        normalise_answer(field(type="integer"), answer)


def test_c6_answer_number_becomes_a_float():
    result = normalise_answer(field(type="number"), 2)
    assert result == 2.0 and type(result) is float


@pytest.mark.parametrize("answer", ["0.5", float("nan"), float("inf"), False])
def test_c6_answer_number_finite_json_numbers_only(answer):
    with pytest.raises(Invalid, match="is not a number"):
        normalise_answer(field(type="number"), answer)


@pytest.mark.parametrize("answer", ["true", 1, 0])
def test_c6_answer_boolean_must_be_json_boolean(answer):
    with pytest.raises(Invalid, match="true or false"):
        normalise_answer(field(type="boolean"), answer)


def test_c6_answer_string_must_be_a_string():
    with pytest.raises(Invalid, match="is not a string"):
        normalise_answer(field(type="string"), 5)


def test_c6_answer_array_is_a_list_of_strings():
    assert normalise_answer(MULTI, ["ci"]) == ["ci"]
    for answer in ("ci", ["ci", 1]):
        with pytest.raises(Invalid, match="list of strings"):
            normalise_answer(MULTI, answer)


@pytest.mark.parametrize("answer", [None, "", "  \t"])
def test_c6_answer_unresolved(answer):
    assert normalise_answer(field(type="string"), answer) is None


@pytest.mark.parametrize("kind, answer", [("boolean", False), ("integer", 0), ("number", 0.0)])
def test_c6_false_and_zero_are_values(kind, answer):
    value = normalise_answer(field(type=kind), answer)
    assert value == answer and not is_unresolved(value)
    assert not is_unresolved(text(field(type=kind), "false" if kind == "boolean" else "0"))


# Checks


def test_c6_choices():
    assert problems(field(type="string", enum=["a", "b"]), "a") == []
    assert problems(field(type="string", enum=["a", "b"]), "c") == ["c is not one of the choices"]
    titled = field(type="string", oneOf=[{"const": "q", "title": "Quick"}])
    assert problems(titled, "Quick") != []
    assert problems(field(type="integer", enum=[1, 2]), 3) != []


def test_c6_minimum_and_maximum_are_inclusive():
    bounded = field(type="integer", minimum=1, maximum=5)
    assert problems(bounded, 1) == problems(bounded, 5) == []
    assert "less than the minimum 1" in problems(bounded, 0)[0]
    assert "greater than the maximum 5" in problems(bounded, 6)[0]


def test_c6_lengths():
    bounded = field(type="string", minLength=2, maxLength=3)
    assert problems(bounded, "ab") == problems(bounded, "abc") == []
    assert "shorter than 2" in problems(bounded, "a")[0]
    assert "longer than 3" in problems(bounded, "abcd")[0]


def test_c6_items():
    bounded = field(type="array", items={"type": "string", "enum": ["a", "b", "c"]}, minItems=1, maxItems=2)
    assert problems(bounded, ["a"]) == problems(bounded, ["a", "c"]) == []
    assert "at least 1" in problems(bounded, [])[0]
    assert "at most 2" in problems(bounded, ["a", "b", "c"])[0]
    assert "not among the choices" in problems(bounded, ["z"])[0]
    assert "twice" in problems(bounded, ["a", "a"])[0]


@pytest.mark.parametrize(
    "fmt, good, bad",
    [
        ("email", ["ada@example.com", "a.b+c@x.org"], ["ada.example.com", "a b@x.org", "a@@x.org", "@x.org"]),
        ("uri", ["https://example.com/x?y=1", "mailto:ada@example.com"], ["example", "not a uri", "http://"]),
        ("date", ["2024-02-29", "2026-12-01"], ["2023-02-29", "2024-1-01", "01/02/2024", "2024-01-01T00:00:00Z"]),
        (
            "date-time",
            ["2024-01-01T10:00:00Z", "2024-01-01T10:00:00.5+02:00"],
            ["2024-01-01", "2024-01-01T10:00:00", "2024-13-01T00:00:00Z", "2024-01-01T25:00:00Z"],
        ),
    ],
)
def test_c6_formats(fmt, good, bad):
    declared = field(type="string", format=fmt)
    for value in good:
        assert problems(declared, value) == [], value
    for value in bad:
        assert problems(declared, value) == [f"{value!r} is not a valid {fmt}"], value


def test_c6_pattern_is_a_full_match():
    declared = field(type="string", pattern="[a-z]+")
    assert problems(declared, "abc") == []
    for value in ("abc1", "1abc", "ab c"):
        assert problems(declared, value) == [f"{value!r} does not match the pattern"]


def test_c6_pattern_alternation_is_anchored_as_a_whole():
    declared = field(type="string", pattern="cat|dog")
    assert problems(declared, "dog") == []
    assert problems(declared, "catdog") != []
    assert problems(declared, "hotdog") != []


def test_c6_hostile_pattern_runs_on_the_linear_engine():
    declared = field(type="string", pattern="(a+)+$")
    assert not isinstance(declared.bounds["pattern"], _BudgetedPattern)  # RE2: no backtracking, whatever the input
    assert problems(declared, "a" * 30 + "b") != []


def test_c6_lookaround_pattern_is_checked_by_the_backtracking_engine():
    declared = field(type="string", pattern="(?!main$).+")
    assert problems(declared, "feature") == []
    assert problems(declared, "main") == ["'main' does not match the pattern"]


def test_c6_backreference_pattern_is_checked():
    declared = field(type="string", pattern=r"(\w)\1")
    assert problems(declared, "aa") == [] and problems(declared, "ab") != []


def test_c6_pattern_check_that_runs_out_of_time_fails_closed(monkeypatch):
    monkeypatch.setattr(keywords, "PATTERN_BUDGET", 0.01)
    declared = field(type="string", pattern=r"(a?){30}\1a{30}")  # exponential for a backtracking engine
    [problem] = problems(declared, "a" * 30)
    assert "took too long" in problem


def test_c6_every_broken_constraint_is_reported():
    declared = field(type="string", maxLength=3, pattern="[0-9]+")
    assert len(problems(declared, "abcd")) == 2


@pytest.mark.parametrize("given", ["٣", "３", "1٣"])
def test_c6_text_numbers_take_ascii_digits_only(given):
    with pytest.raises(Invalid):
        text(field(type="integer"), given)


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ({"type": "string", "minLength": 1, "maxLength": 20, "pattern": "[a-z]+"}, "a string of 1 to 20 characters matching [a-z]+"),
        ({"type": "string", "maxLength": 1, "minLength": 1}, "a string of 1 to 1 character"),
        ({"type": "string", "minLength": 1}, "a string of at least 1 character"),
        ({"type": "integer", "maximum": 9, "minimum": 1}, "an integer from 1 to 9"),
        ({"type": "number", "maximum": 2.5}, "a number at most 2.5"),
        ({"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2}, "a list of: a, b, c"),
    ],
)
def test_bounds_read_as_one_range_when_both_ends_are_given(schema, words):
    field, issues = declare_field("f", schema, allow_source=False, phases=())
    assert not issues
    assert accepted(field) == words


def test_a_multi_selects_bounds_read_as_one_range():
    assert keywords.describe_bounds({"maxItems": 2, "minItems": 1}) == "1 to 2 of them"
    assert keywords.describe_bounds({"maxItems": 2}) == "at most 2 of them"
