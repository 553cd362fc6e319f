"""Values end to end (C6), form applicability (C7.3-C7.6, C7.10) and what reaches the template (C9)."""

import pytest
from e2e_support import INVALID_PARAMS, missing_keywords_error, prompt_text, read, read_error


@pytest.fixture
def unchecked_client_answers(monkeypatch):
    """Let the client send answers its own jsonschema check would refuse, so Guide's checks are what decides."""
    monkeypatch.setattr("fastmcp.client.elicitation._validate_form_content", lambda content, schema: None)


# --- keywords ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "keyword"),
    [
        ("guide://_typed?count=3.7", "count"),
        ("guide://_typed?count=11", "count"),
        ("guide://_typed?count=two", "count"),
        ("guide://_typed?count=2&ratio=nan", "ratio"),
        ("guide://_typed?count=2&ratio=inf", "ratio"),
        ("guide://_typed?count=2&verbose=yes", "verbose"),
        ("guide://_review?mode=branch&reference=bad%20ref", "reference"),
        ("guide://_contact?email=nope", "email"),
        ("guide://_chain?kind=linked&link=not%20a%20uri", "link"),
        ("guide://_schema?name=bob&tags=x,w", "tags"),
        ("guide://_schema?name=bob&tags=x,y,z", "tags"),
        ("guide://_workflow/phase/shipping", "phase"),
    ],
)
async def test_invalid_keyword_names_it_and_what_it_accepts(server, connect, elicitor, uri, keyword):
    async with connect(server, elicitor) as client:
        error = await read_error(client, uri)
    message = error.error.message
    assert error.error.code == INVALID_PARAMS
    assert f"keyword {keyword}" in message and "accepts" in message and "\n" not in message
    assert elicitor.calls == []


async def test_arrays_take_repeated_or_comma_separated_keywords(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        comma = await read(client, "guide://_schema?name=bob&tags=x,y")
        repeated = await read(client, "guide://_schema?name=bob&tags=x&tags=y")
    assert comma.strip() == repeated.strip() == "SCHEMA name=bob tags=x, y count=2"
    assert elicitor.calls == []


async def test_blank_keyword_is_unresolved(server, connect, elicitor):
    elicitor.answer(focus={"focus": "tests"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_standup?focus=%20%20")
    assert text.strip() == "STANDUP focus=[tests]"
    assert elicitor.keys == ["focus"]


async def test_keyword_wins_over_an_answer_and_its_field_is_not_asked(server, connect, elicitor):
    elicitor.answer(zeta={"zeta": "Z", "alpha": "not me"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_pair?alpha=A")
    assert text.strip() == "PAIR A Z"
    schema = elicitor.calls[0].schema
    assert set(schema["properties"]) == {"zeta"} and schema["required"] == ["zeta"]  # C7.9: alpha is supplied already


async def test_positional_args_fill_fields_and_keep_encoded_slashes(server, connect, elicitor):
    async with connect(server, elicitor) as client:
        both = await read(client, "guide://_echo/a%2Fb/c")
        one = await read(client, "guide://_echo/only")
        prompt = await prompt_text(client, "guide", {"command": ":echo 'a b' c"})
    assert both.strip() == "ECHO first=a/b second=c args=[a/b, c]"
    assert one.strip() == "ECHO first=only second=two args=[only]"
    assert prompt.strip() == "ECHO first=a b second=c args=[a b, c]"
    assert elicitor.calls == []


# --- answers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "reason"),
    [({"count": "3"}, "not an integer"), ({"count": 3.5}, "not an integer"), ({"count": True}, "not an integer"), ({"count": 11}, "maximum"), ({}, "required")],
    ids=["text", "fraction", "boolean", "too-big", "missing"],
)
async def test_answer_of_the_wrong_json_type_is_asked_again(server, connect, elicitor, unchecked_client_answers, bad, reason):
    elicitor.answer(count=[bad, {"count": 3.0, "verbose": False}])
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_typed")
    assert text.strip() == "TYPED count=3 ratio=0.5 verbose=false"
    first, second = elicitor.calls
    assert first.message == "Set the numbers."
    assert second.message.startswith("Set the numbers.") and reason in second.message and "count" in second.message


async def test_full_match_pattern_on_answers(server, connect, elicitor, unchecked_client_answers):
    elicitor.answer(reference=[{"reference": "feature/x!"}, {"reference": "  "}, {"reference": "feature/x"}])
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_review?mode=branch")
    assert text.strip() == "REVIEW mode=branch reference=feature/x extra="
    assert "pattern" in elicitor.calls[1].message and "required" in elicitor.calls[2].message


async def test_multi_select_answer_is_checked(server, connect, elicitor, unchecked_client_answers):
    elicitor.answer(name=[{"name": "bob", "tags": ["x", "y", "z"]}, {"name": "bob", "tags": "x"}, {"name": "bob", "tags": ["z"]}])
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_schema")
    assert text.strip() == "SCHEMA name=bob tags=z count=2"
    assert len(elicitor.calls) == 3 and "tags" in elicitor.calls[1].message[len("Fill in everything."):]


# --- applicability ------------------------------------------------------------------------------


async def test_supplier_without_required_fields_is_asked_for_a_waiting_form(server, connect, elicitor):
    elicitor.answer(area=[{}, {"area": "api"}, {"area": "ui"}], endpoint={"endpoint": "/v1"})
    async with connect(server, elicitor) as client:
        left_empty = await read(client, "guide://_optional")
        api = await read(client, "guide://_optional")
        ui = await read(client, "guide://_optional")
        keyword = await read(client, "guide://_optional?area=ui")
    assert left_empty.strip() == "OPTIONAL area=[] endpoint=[]"
    assert api.strip() == "OPTIONAL area=[api] endpoint=[/v1]"
    assert ui.strip() == "OPTIONAL area=[ui] endpoint=[]"
    assert keyword.strip() == "OPTIONAL area=[ui] endpoint=[]"
    assert elicitor.keys == ["area", "area", "endpoint", "area"]


async def test_cancelled_supplier_without_required_fields_is_defaulted(server, connect, elicitor):
    elicitor.answer(area="cancel")
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_optional")
    assert text.strip() == "DEFAULTED(scope) OPTIONAL area=[] endpoint=[]"
    assert elicitor.keys == ["area"]


async def test_no_capability_defaults_a_supplier_without_required_fields(server, connect, mode):
    async with connect(server) as client:
        text = await read(client, "guide://_optional")
        error = await read_error(client, "guide://_optional?area=api")
    assert text.strip() == "DEFAULTED(scope) OPTIONAL area=[] endpoint=[]"
    missing_keywords_error(error, mode, "endpoint")


async def test_defaults_decide_a_later_condition(server, connect, elicitor, mode):
    elicitor.answer(kind="cancel", link={"link": "https://example.com/a"})
    async with connect(server, elicitor) as client:
        text = await read(client, "guide://_chain")
    assert text.strip() == "CHAIN kind=linked link=https://example.com/a"
    assert elicitor.keys == ["kind", "link"]
    async with connect(server) as client:
        error = await read_error(client, "guide://_chain")
        plain = await read(client, "guide://_chain?kind=plain")
    missing_keywords_error(error, mode, "link")
    assert plain.strip() == "CHAIN kind=plain link="


# --- rendering ----------------------------------------------------------------------------------


async def test_values_are_never_read_as_templates(server, connect, elicitor):
    elicitor.answer(zeta={"zeta": "{{>extra}}", "alpha": "{{kwargs.zeta}}"})
    async with connect(server, elicitor) as client:
        keyword = await read(client, "guide://_review?mode=uncommitted&extra=%7B%7Bkwargs.mode%7D%7D")
        answered = await read(client, "guide://_pair")
    assert keyword.strip() == "REVIEW mode=uncommitted reference= extra={{kwargs.mode}}"
    assert answered.strip() == "PAIR {{kwargs.zeta}} {{&gt;extra}}"  # escaped, never rendered


async def test_interpolation_escapes_as_standard_mustache(server, connect):
    async with connect(server) as client:
        text = await read(client, "guide://_review?mode=uncommitted&extra=%3Cb%3E%26%22")
    assert text.strip() == "REVIEW mode=uncommitted reference= extra=&lt;b&gt;&amp;&quot;"
