"""C7.12 (c): the agent channel. A client that shows no form is told every question to ask, follow-ups with their
conditions, and the way back in its own route, so that one failed read is enough."""

from support.forms import declared, form

from guide.forms.failure import Fail, Route
from guide.forms.step import Render, Request, step

KINDS = {"type": "string", "title": "Kind", "oneOf": [{"const": "bug", "title": "Fix a bug"}, {"const": "feature", "title": "Add a feature"}]}
CHANGE = {
    "kind": form({"kind": KINDS}, ["kind"]),
    "issue": form({"issue": {"type": "integer", "minimum": 1}}, ["issue"], when={"kind": ["bug"]}),
    "severity": form({"level": {"type": "string", "enum": ["low", "high"], "default": "low"}}, ["level"], when={"kind": ["bug"]}),
    "pager": form({"pager": {"type": "string"}}, ["pager"], when={"level": ["high"]}),
    "checks": form({"command": {"type": "string", "default": "make test"}}, ["command"]),
    "notes": form({"notes": {"type": "string"}}, ["notes"], when={"kind": ["feature"]}, fallback="render"),
}


def failed(keywords=None, route=Route()) -> Fail:
    words = {name: (value,) for name, value in (keywords or {}).items()}
    outcome = step(Request("guide://_change", declared(CHANGE), words, can_elicit=False, route=route))
    assert isinstance(outcome, Fail) and outcome.kind == "missing", outcome
    return outcome


def test_c7_12_every_question_a_when_could_open_is_listed_with_its_condition_in_one_failure():
    outcome = failed()
    # Every form a client with forms could be asked, in order, defaults shown rather than applied: pager opens on
    # an answer to severity, which opens on kind.
    assert [(question.form, question.condition()) for question in outcome.questions] == [
        ("kind", ""),
        ("issue", "kind is bug"),
        ("severity", "kind is bug"),
        ("pager", "level is high"),
        ("checks", ""),
        ("notes", "kind is feature"),
    ]
    data = outcome.data()
    assert [question["when"] for question in data["questions"]][:4] == [None, {"kind": ["bug"]}, {"kind": ["bug"]}, {"level": ["high"]}]
    assert data["questions"][0]["fields"][0]["titles"] == ["Fix a bug", "Add a feature"]
    kind = {key: value for key, value in data["questions"][0]["fields"][0].items() if key != "titles"}
    assert data["fields"] == [kind] and data["retry"] == "guide://_change?kind=<bug|feature>"  # as before the questions
    text = str(outcome.error)
    assert text.partition("\n")[0] == outcome.message and "\n" not in outcome.message
    assert "Do not guess" in text
    assert "1. Answer this.\n   - `kind` (string, required; one of: bug (Fix a bug), feature (Add a feature)): Kind" in text
    assert "2. Only if kind is bug: Answer this.\n   - `issue` (integer, required; at least 1)" in text
    assert "    guide://_change?kind=<bug|feature>\n" in text
    assert "If kind is bug, also add issue=<integer>." in text and "If level is high, also add pager=<string>." in text
    assert "(its default applies)" in text  # level has a default: the person may leave it blank


def test_c7_12_an_answered_condition_opens_its_follow_ups_without_a_condition():
    outcome = failed({"kind": "bug"})
    assert [(question.form, question.condition()) for question in outcome.questions] == [("issue", ""), ("severity", ""), ("pager", "level is high"), ("checks", "")]
    assert "   Unless the person chooses otherwise, these defaults are used:\n   - `level` = low (string; one of: low, high)" in str(outcome.error)
    assert [need.keyword for need in outcome.questions[1].fields] == [] and [need.keyword for need in outcome.questions[1].defaults] == ["level"]
    assert outcome.retry == "guide://_change?kind=bug&issue=<integer>"


def test_c7_12_filling_the_listed_answers_renders():
    for given in ({"kind": "bug", "issue": "7"}, {"kind": "bug", "issue": "7", "level": "high", "pager": "ops"}, {"kind": "feature"}):
        words = {name: (value,) for name, value in given.items()}
        outcome = step(Request("guide://_change", declared(CHANGE), words, can_elicit=False))
        assert isinstance(outcome, Render), (given, outcome)


def test_c7_12_a_prompt_caller_is_told_prompt_arguments_not_an_address():
    outcome = failed({"kind": "bug"}, Route("change"))
    text = str(outcome.error)
    assert outcome.message.startswith("this client cannot answer forms; supply the prompt arguments: issue (")
    assert outcome.message.endswith("for example the prompt change with kind=bug, issue=<integer>")
    assert "guide://" not in text
    assert "Then get Guide's prompt change again" in text and "If level is high, also add pager=<string>." in text
    assert outcome.data()["prompt"] == {"name": "change", "arguments": {"kind": "bug", "issue": "<integer>"}}
    assert outcome.data()["retry"] == "guide://_change?kind=bug&issue=<integer>"  # the address stays, as before


def test_c7_12_a_guide_prompt_caller_is_told_the_route_line():
    outcome = failed({"kind": "bug"}, Route("guide", "change"))
    assert outcome.data()["prompt"] == {"name": "guide", "arguments": {"command": "_change --kind=bug --issue=<integer>"}}
    text = str(outcome.error)
    assert "guide://" not in text and "If level is high, also add --pager=<string>." in text


def test_c7_12_a_long_prompt_argument_is_not_echoed_in_the_summary_line():
    outcome = failed({"kind": "bug", "notes": "n" * 300}, Route("change"))
    assert "n" * 300 not in outcome.message and outcome.message.endswith("for example the prompt change with issue=<integer>")
    assert outcome.data()["prompt"]["arguments"]["notes"] == "n" * 300  # the data keeps what was given
