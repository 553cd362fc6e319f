"""C8: the continuation state carries an interaction and refuses to be reused elsewhere."""

import json
from dataclasses import replace

import pytest
from support.forms import declared

from guide.errors import StateError
from guide.forms.state import decode, encode
from guide.forms.step import Answer, Progress, Render, Request, step


def forms(max_length=20):
    elicitation = {
        "target": {"message": "Pick.", "schema": {"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["branch", "uncommitted"]},
            "count": {"type": "integer", "minimum": 1},
            "tools": {"type": "array", "items": {"type": "string", "enum": ["ci", "chat"]}},
        }, "required": ["mode"]}},
        "reference": {"message": "Which?", "when": {"mode": "branch"}, "schema": {
            "type": "object", "properties": {"reference": {"type": "string", "maxLength": max_length}}, "required": ["reference"]}},
    }
    return declared(elicitation, origin="_commands/review.md")


REQUEST = Request("command:review", forms(), {"depth": ("quick",), "tag": ("a", "b")}, ("x",))
PROGRESS = Progress(
    values={"mode": "branch", "count": 2, "tools": ["ci"]},
    completed=frozenset({"target"}),
    defaulted=frozenset(),
    requested=("reference",),
    attempts={"reference": 2},
)


def record(**changes):
    data = json.loads(encode(REQUEST, PROGRESS))
    data.update(changes)
    return json.dumps(data)


def test_c8_round_trip():
    assert decode(encode(REQUEST, PROGRESS), REQUEST) == PROGRESS


def test_c8_round_trip_of_an_empty_progress():
    assert decode(encode(REQUEST, Progress()), REQUEST) == Progress()


def test_c8_state_holds_what_the_contract_lists():
    data = json.loads(encode(REQUEST, PROGRESS))
    text = json.dumps(data)
    for part in ("command:review", REQUEST.digest, "quick", "branch", "reference", "target"):
        assert part in text
    assert data != json.loads(encode(REQUEST, Progress()))


def test_c8_continued_request_resumes_where_it_stopped():
    first = step(Request("command:review", forms()), Progress(), {})
    resumed = decode(encode(Request("command:review", forms()), first.progress), Request("command:review", forms()))
    second = step(Request("command:review", forms()), resumed, {"target": Answer("accept", {"mode": "uncommitted"})})
    assert second == Render({"mode": "uncommitted"}, (), frozenset())


def test_c8_rejects_another_entrypoint():
    other = Request("command:release", REQUEST.forms, REQUEST.keywords, REQUEST.args)
    with pytest.raises(StateError, match="belongs to command:review, not command:release"):
        decode(encode(REQUEST, PROGRESS), other)


@pytest.mark.parametrize("keywords", [{}, {"depth": ("thorough",), "tag": ("a", "b")}, {"depth": ("quick",), "tag": ("b", "a")}, {"depth": ("quick",), "tag": ("a", "b"), "x": ("1",)}])
def test_c8_rejects_other_keywords(keywords):
    other = Request(REQUEST.entrypoint, REQUEST.forms, keywords, REQUEST.args)
    with pytest.raises(StateError, match="other keywords or arguments"):
        decode(encode(REQUEST, PROGRESS), other)


@pytest.mark.parametrize("args", [(), ("y",), ("x", "y")])
def test_c8_rejects_other_args(args):
    other = Request(REQUEST.entrypoint, REQUEST.forms, REQUEST.keywords, args)
    with pytest.raises(StateError, match="other keywords or arguments"):
        decode(encode(REQUEST, PROGRESS), other)


@pytest.mark.parametrize(("made", "read"), [("/p/a", "/p/b"), ("/p/a", ""), ("", "/p/a")])
def test_c10_rejects_a_state_made_for_another_project(made, read):
    with pytest.raises(StateError, match="made for another project; start again"):
        decode(encode(replace(REQUEST, project=made), PROGRESS), replace(REQUEST, project=read))
    assert decode(encode(replace(REQUEST, project=made), PROGRESS), replace(REQUEST, project=made)) == PROGRESS


def test_c10_a_state_without_a_project_is_one_of_the_servers_own_project():
    data = json.loads(encode(REQUEST, PROGRESS))
    del data["p"]
    assert decode(json.dumps(data), REQUEST) == PROGRESS
    with pytest.raises(StateError, match="another project"):
        decode(json.dumps(data), replace(REQUEST, project="/p/a"))


def test_c8_rejects_changed_forms_saying_the_docroot_was_edited():
    edited = Request(REQUEST.entrypoint, forms(max_length=30), REQUEST.keywords, REQUEST.args)
    with pytest.raises(StateError) as raised:
        decode(encode(REQUEST, PROGRESS), edited)
    assert "docroot was edited" in str(raised.value) and "start again" in str(raised.value)


@pytest.mark.parametrize("key", ["c", "f", "r"])
def test_c8_rejects_unknown_form_ids(key):
    with pytest.raises(StateError, match="unknown forms: ghost"):
        decode(record(**{key: ["ghost"]}), REQUEST)


def test_c8_rejects_attempts_for_unknown_forms():
    with pytest.raises(StateError, match="unknown forms: ghost"):
        decode(record(n={"ghost": 1}), REQUEST)


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", "null", '{"v": 1}', record(x=[1]), record(n={"target": "two"}), record(c="target")])
def test_c8_rejects_malformed_text(text):
    with pytest.raises(StateError, match="start again"):
        decode(text, REQUEST)


@pytest.mark.parametrize("version", [0, 2])
def test_c8_rejects_another_version(version):
    with pytest.raises(StateError, match=f"version {version}"):
        decode(record(v=version), REQUEST)


@pytest.mark.parametrize(
    "values, name",
    [
        ({"mode": "everything"}, "mode"),
        ({"count": 0}, "count"),
        ({"count": "2"}, "count"),
        ({"tools": ["fax"]}, "tools"),
        ({"mode": None}, "mode"),
        ({"mode": "  "}, "mode"),
    ],
)
def test_c8_rejects_invalid_values(values, name):
    with pytest.raises(StateError, match=f"invalid value for {name}"):
        decode(record(x=values), REQUEST)


def test_c8_rejects_values_for_undeclared_fields():
    with pytest.raises(StateError, match="unknown field secret"):
        decode(record(x={"secret": "s"}), REQUEST)


def test_c8_every_rejection_asks_to_start_again():
    for text, request in [
        (encode(REQUEST, PROGRESS), Request("command:other", REQUEST.forms, REQUEST.keywords, REQUEST.args)),
        (record(v=9), REQUEST),
        ("{", REQUEST),
    ]:
        with pytest.raises(StateError, match="start again without the continuation state"):
            decode(text, request)
