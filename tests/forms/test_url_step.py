"""C5 (turn 4), C7: URL-mode steps in the pure step: when they are asked, what their link is, and what each answer does."""

import pytest
from support.forms import declared, form

from guide.forms import state
from guide.forms.step import Answer, Ask, Fail, Progress, Render, Request, step
from guide.forms.url_step import MAX_LINK_LENGTH, UrlQuestion, link_problem, render_link

HOSTS = ("accounts.example.com", "*.example.org")
FORMS = {
    "target": form({"env": {"type": "string", "enum": ["staging", "production"]}, "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}},
                   ["env"]),
    "signin": {"mode": "url", "message": "Sign in.", "url": "https://accounts.example.com/in?env={{kwargs.env}}&t={{kwargs.tags}}"},
    "after": form({"note": {"type": "string"}}, ["note"]),
}


def request(elicitation=FORMS, keywords=None, **options) -> Request:
    words = {name: (value,) for name, value in (keywords or {}).items()}
    return Request("guide://_c", declared(elicitation), words, url_hosts=HOSTS, **{"url_mode": True, **options})


def test_c5_url_a_url_step_waits_for_the_forms_before_it_then_goes_with_the_forms_after_it():
    req = request()
    first = step(req)
    assert [question.form for question in first.questions] == ["target", "after"]
    second = step(req, first.progress, {"target": Answer("accept", {"env": "production", "tags": ["a", "b"]}), "after": Answer("accept", {"note": "n"})})
    assert second.questions == (UrlQuestion("signin", "Sign in.", "https://accounts.example.com/in?env=production&t=a%2Cb"),)
    done = step(req, second.progress, {"signin": Answer("accept", {"smuggled": "secret"})})
    assert done == Render({"env": "production", "tags": ["a", "b"], "note": "n"}, (), frozenset(), frozenset({"signin"}))


def test_c5_url_keywords_make_the_link_due_at_once_and_the_state_carries_it():
    req = request(keywords={"env": "staging", "note": "n"})
    asked = step(req)
    assert [question.form for question in asked.questions] == ["signin"]
    carried = state.decode(state.encode(req, asked.progress), req)
    assert carried.requested == ("signin",)
    done = step(req, carried, {"signin": Answer("accept")})
    assert done.opened == frozenset({"signin"}) and "signin" in state.decode(state.encode(req, Progress(completed=frozenset({"signin"}))), req).completed


@pytest.mark.parametrize(("action", "reason"), [("decline", "declined"), ("cancel", "cancelled")])
def test_c7_10_url_decline_and_cancel_fail_without_fallback(action, reason):
    req = request(keywords={"env": "staging", "note": "n"})
    failed = step(req, step(req).progress, {"signin": Answer(action)})
    assert isinstance(failed, Fail) and (failed.kind, failed.message) == (reason, f"form signin was {reason}")


def test_c7_10_url_a_cancel_with_fallback_renders_it_defaulted_and_not_opened():
    forms = {**FORMS, "signin": {**FORMS["signin"], "fallback": "render"}}
    req = request(forms, keywords={"env": "staging", "note": "n"})
    done = step(req, step(req).progress, {"signin": Answer("cancel")})
    assert isinstance(done, Render) and done.defaulted == frozenset({"signin"}) and done.opened == frozenset()
    declined = step(req, step(req).progress, {"signin": Answer("decline")})
    assert isinstance(declined, Fail) and declined.kind == "declined"  # a decline never takes the fallback


def test_c5_url_a_client_without_url_mode_fails_with_the_link_or_takes_the_fallback():
    req = request(keywords={"env": "staging", "note": "n"}, url_mode=False)
    failed = step(req)
    assert isinstance(failed, Fail) and failed.kind == "link"
    assert failed.links == (("signin", "Sign in.", "https://accounts.example.com/in?env=staging&t="),)
    forms = {**FORMS, "signin": {**FORMS["signin"], "fallback": "render"}}
    for can_elicit in (True, False):
        done = step(request(forms, keywords={"env": "staging", "note": "n"}, url_mode=False, can_elicit=can_elicit))
        assert isinstance(done, Render) and done.defaulted == frozenset({"signin"}) and done.opened == frozenset()


def test_c5_url_the_agent_is_given_the_link_once_the_forms_before_it_are_answered():
    waiting = step(request(can_elicit=False, url_mode=False))
    assert waiting.kind == "missing"
    assert [(question.form, question.url) for question in waiting.questions] == [("target", None), ("signin", ""), ("after", None)]
    due = step(request(keywords={"env": "production"}, can_elicit=False, url_mode=False))
    assert [(question.form, question.url) for question in due.questions][0] == ("signin", "https://accounts.example.com/in?env=production&t=")
    assert "give the person this link to open: https://accounts.example.com/in?env=production&t=" in due.instructions


def test_c5_url_a_rendered_link_off_the_list_is_a_one_line_failure():
    forms = {"where": form({"host": {"type": "string"}}, ["host"]), "go": {"mode": "url", "message": "Go.", "url": "https://{{{kwargs.host}}}/x"}}
    failed = step(request(forms, keywords={"host": "accounts.example.com@evil.test"}))
    assert isinstance(failed, Fail) and failed.kind == "invalid" and "\n" not in failed.message
    assert failed.message.startswith("form go: the link https://accounts.example.com@evil.test/x carries a user name or password")
    asked = step(request(forms, keywords={"host": "a.example.org"}))
    assert isinstance(asked, Ask) and asked.questions[0].url == "https://a.example.org/x"


@pytest.mark.parametrize(("link", "problem"), [
    ("https://accounts.example.com/a b", "holds white space or control characters"),
    ("https://accounts.example.com:99999/", "is not a valid address"),
    ("javascript:alert(1)", "has scheme javascript"),
    ("https:///path", "names no host"),
    ("http://accounts.example.com/", "uses http on accounts.example.com"),
    ("https://example.org/", "goes to host example.org, which is not listed"),
    ("https://accounts.example.com.evil.test/", "goes to host accounts.example.com.evil.test, which is not listed"),
    # A browser reads a backslash as a slash: this link opens evil.test, though its text ends in a listed domain.
    ("https://evil.test\\.accounts.example.org/", "holds a backslash"),
    ("https://evil.test%2F.accounts.example.org/", "is not a plain host name"),
])
def test_c5_url_link_problems(link, problem):
    assert problem in link_problem(link, HOSTS)


@pytest.mark.parametrize("link", ["https://ACCOUNTS.example.com/x", "https://deep.team.example.org/", "http://localhost:9/", "http://[::1]:8/",
                                  "http://127.0.0.2/"])
def test_c5_url_links_that_may_be_sent(link):
    assert link_problem(link, (*HOSTS, "localhost", "::1", "127.0.0.2")) is None


def test_c5_url_a_link_stops_at_its_length_cap_and_calls_no_method():
    with pytest.raises(ValueError, match=f"longer than {MAX_LINK_LENGTH} characters"):
        render_link("https://accounts.example.com/{{kwargs.a}}{{kwargs.a}}", {"kwargs": {"a": "x" * MAX_LINK_LENGTH}}, HOSTS)
    assert render_link("https://accounts.example.com/{{kwargs.get}}{{kwargs.a.upper}}", {"kwargs": {"a": "x"}}, HOSTS) == "https://accounts.example.com/"


def test_c7_12_url_the_agent_gets_a_link_that_names_nothing_unknown_before_it_is_due():
    forms = {"target": FORMS["target"], "page": {"mode": "url", "message": "Page.", "url": "https://accounts.example.com/static"}}
    failed = step(request(forms, can_elicit=False, url_mode=False))
    assert [(question.form, question.url) for question in failed.questions] == [("target", None), ("page", "https://accounts.example.com/static")]
