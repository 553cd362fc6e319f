"""Issue 10, items 9 and 12: a long or huge answer is refused with a short message that quotes a prefix only."""

import pytest
from support.forms import declared, form

from guide.forms.step import Answer, Ask, Fail, Request, step
from guide.text import CLIP_LENGTH, quoted

HUGE = "x" * 10_000_000
LIMIT = 400
"""A message about a rejected value stays this short, whatever the value."""

FIELDS = {
    "pattern": {"type": "string", "pattern": "[a-z]{1,3}"},
    "maxLength": {"type": "string", "maxLength": 5},
    "minLength": {"type": "string", "minLength": 20_000_000},
    "format": {"type": "string", "format": "email"},
    "enum": {"type": "string", "enum": ["a", "b"]},
    "type": {"type": "integer"},
}


def _request(schema, **keywords) -> Request:
    forms = declared({"ask": form({"value": schema}, required=["value"])})
    return Request(entrypoint="guide://_c", forms=forms, keywords={k: (v,) for k, v in keywords.items()})


@pytest.mark.parametrize("keyword", sorted(FIELDS))
def test_a_rejected_huge_answer_is_quoted_by_a_short_prefix(keyword):
    request = _request(FIELDS[keyword])
    first = step(request)
    answer = {"ask": Answer("accept", {"value": HUGE})}
    outcome = step(request, first.progress, answer)
    for _ in range(3):
        assert isinstance(outcome, Ask)
        assert len(outcome.questions[0].message) < LIMIT
        outcome = step(request, outcome.progress, answer)
    assert isinstance(outcome, Fail)
    assert len(outcome.message) < LIMIT and "x" * (CLIP_LENGTH + 1) not in outcome.message


@pytest.mark.parametrize("keyword", ["pattern", "maxLength", "format", "enum", "type"])
def test_a_rejected_huge_keyword_is_quoted_by_a_short_prefix(keyword):
    outcome = step(_request(FIELDS[keyword], value=HUGE))
    assert isinstance(outcome, Fail) and outcome.kind == "invalid"
    assert len(outcome.message) < LIMIT


@pytest.mark.parametrize("value", [10**400, -(10**400), 10**5000, 1e308 * 10], ids=["1e400", "-1e400", "1e5000", "inf"])
@pytest.mark.parametrize("kind", ["integer", "number"])
def test_a_number_answer_beyond_a_float_is_invalid_not_a_crash(kind, value):
    request = _request({"type": kind})
    first = step(request)
    outcome = step(request, first.progress, {"ask": Answer("accept", {"value": value})})
    assert isinstance(outcome, Ask)
    assert "previous answer was not accepted" in outcome.questions[0].message
    assert len(outcome.questions[0].message) < LIMIT


def test_quoted_never_raises_and_stays_short():
    for value in ("x" * 1000, 10**5000, [10**5000], {"a": "b" * 1000}, b"\xff" * 100, None, 1.5):
        assert len(quoted(value)) <= CLIP_LENGTH + 30
