"""C5 sources in the pure step: live choices arrive as plain values (`Request.live`); lists are declared choices with titles."""

from dataclasses import replace

from support.forms import declared, form

from guide.forms.offered import delivered_schema
from guide.forms.sources import Unreadable
from guide.forms.step import Answer, Ask, Fail, Render, Request, step

LISTS = {"envs": (("staging", None), ("production", None)), "regions": (("eu", "Europe"), ("us", "United States"))}
BRANCH = {"pick": form({"branch": {"type": "string", "source": "git-branches"}}, ["branch"])}
RELEASE = {
    "where": form(
        {"env": {"type": "string", "source": "list:envs", "default": "staging"}, "regions": {"type": "array", "items": {"type": "string", "source": "list:regions"}}},
        ["env"],
    )
}
READ = ("feature/x", "main")


def branch_request(keywords=None, live=None, **options) -> Request:
    words = {name: (value,) for name, value in (keywords or {}).items()}
    forms = declared(BRANCH, allow_source=True)
    return Request("guide://_checkout", forms, words, live={"branch": READ} if live is None else live, **options)


def test_c5_a_live_field_is_asked_with_the_choices_read_and_an_answer_among_them_renders():
    request = branch_request()
    outcome = step(request)
    assert isinstance(outcome, Ask)
    assert outcome.questions[0].schema["properties"] == {"branch": {"type": "string", "enum": ["feature/x", "main"]}}
    done = step(request, outcome.progress, {"pick": Answer("accept", {"branch": "main"})})
    assert done == Render({"branch": "main"}, (), frozenset())


def test_c5_an_answer_outside_the_choices_read_is_asked_again():
    request = branch_request()
    first = step(request)
    again = step(request, first.progress, {"pick": Answer("accept", {"branch": "gone"})})
    assert isinstance(again, Ask) and "gone is not one of the choices; it accepts one of: feature/x, main" in again.questions[0].message


def test_c5_a_keyword_is_checked_against_the_choices_read():
    assert step(branch_request({"branch": "main"})) == Render({"branch": "main"}, (), frozenset())
    refused = step(branch_request({"branch": "nope"}))
    assert isinstance(refused, Fail) and refused.message.startswith("invalid keyword branch: nope is not one of the choices; it accepts one of: feature/x, main")


def test_c5_an_unreadable_source_fails_in_one_line_whether_asked_named_or_answered():
    cannot = {"branch": Unreadable("source git-branches cannot be read: the project folder is not a git repository")}
    asked = step(branch_request(live=cannot))
    named = step(branch_request({"branch": "main"}, live=cannot))
    assert isinstance(asked, Fail) and asked.message == "form pick: field branch: source git-branches cannot be read: the project folder is not a git repository"
    assert isinstance(named, Fail) and named.message.startswith("invalid keyword branch: its choices cannot be read: source git-branches cannot be read")
    first = step(branch_request())
    answered = step(branch_request(live=cannot), first.progress, {"pick": Answer("accept", {"branch": "main"})})  # read again for the retry
    assert isinstance(answered, Fail) and answered.message == asked.message


def test_c5_a_live_field_the_server_did_not_read_offers_nothing_and_fails():
    outcome = step(branch_request(live={}))
    assert isinstance(outcome, Fail) and outcome.message == "form pick: field branch: source git-branches gave no choices"


def test_c5_without_a_client_the_failure_names_the_choices_read():
    outcome = step(branch_request(can_elicit=False))
    assert isinstance(outcome, Fail) and "branch (string, required; one of: feature/x, main)" in outcome.message


def test_c5_a_list_is_declared_choices_delivered_plain_or_titled():
    forms = declared(RELEASE, allow_source=True, lists=LISTS)
    schema = delivered_schema(forms.forms[0], None)
    assert schema["properties"] == {
        "env": {"type": "string", "enum": ["staging", "production"], "default": "staging"},
        "regions": {"type": "array", "items": {"anyOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "United States"}]}},
    }
    request = Request("guide://_release", forms, {"env": ("qa",)})
    refused = step(request)
    assert isinstance(refused, Fail) and "qa is not one of the choices; it accepts one of: staging, production" in refused.message
    chosen = step(replace(request, keywords={"regions": ("us,eu",)}, can_elicit=False))
    assert chosen == Render({"regions": ["us", "eu"], "env": "staging"}, (), frozenset({"where"}))


def test_c5_a_list_named_like_the_active_phase_keeps_every_value():
    forms = declared(RELEASE, allow_source=True, lists=LISTS)
    schema = delivered_schema(forms.forms[0], "staging")  # only workflow-phases leaves out the active phase
    assert schema["properties"]["env"]["enum"] == ["staging", "production"]
