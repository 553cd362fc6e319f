"""C7.12: one person's answers render the same text through every channel, for generated declarations.

A generated command (every field type: strings free, formatted and chosen
(untitled, titled with `oneOf`, legacy `enumNames`), integers, numbers,
booleans, multi-selects untitled and titled; defaults,
required and optional fields, `when` branches on earlier forms, `fallback:
render`, URL steps with a fallback) is read by a real client in this era through
each channel: native forms (the client answers each form it is shown), the App
form's tools (`open_form`, then `submit_form` until it renders), the agent
channel (the client reads the failure's questions, asks the "person", and reads
the address it is given with the answers, as often as it is asked) and plain
keywords (every answer the person gave the native forms, in the first address). The person is the same in all of
them: they answer each form only they can complete (a value for each required
field without a default, and for some others), and leave the rest, which a
client without forms settles by defaults and `fallback: render` without asking
(C7.6). The texts must be equal, and the agent's questions never ask for a
field that has a default or that the address already gives.

What differs by design is not printed: `elicitation.defaulted_forms` says how a
value was got (a form the agent's client settles by its defaults is defaulted, one
a person submitted pre-filled is not, C7.6 and C7.12). Declines and cancels are not
answers an agent can carry, so the person always answers a form; a URL step is not
opened (the native client cancels it), so its fallback renders in every channel.
"""

import asyncio
import tempfile
from pathlib import Path
from urllib.parse import quote

import yaml
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from hypothesis import given
from hypothesis import strategies as st
from mcp import MCPError
from mcp.client import advertise
from support.fuzzing import fuzz

from guide.server.app import create_server
from guide.server.channels.app import OPEN_TOOL, SUBMIT_TOOL
from guide.server.channels.base import APP_MIME

URI = "guide://_c"
TITLED = [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}, {"const": "c", "title": "Gamma"}]
ITEMS = ["x", "y", "z"]
TITLED_ITEMS = [{"const": item, "title": item.upper()} for item in ITEMS]
DAYS = ["2026-01-31", "2026-02-01", "2026-12-24"]
KINDS = ("choice", "titled", "legacy", "text", "day", "count", "amount", "flag", "multi", "titled-multi")
SUPPLIERS = ("choice", "titled", "legacy", "count", "amount", "flag")
"""The kinds a `when` may wait on in these cases (one value each)."""
ROUNDS = 8
"""The most reads one channel may take before it is counted as stuck."""


def schema_for(kind: str) -> dict:
    return {
        "choice": {"type": "string", "enum": ["a", "b", "c"]},
        "titled": {"type": "string", "title": "Letter", "oneOf": TITLED},
        "legacy": {"type": "string", "enum": ["a", "b", "c"], "enumNames": ["Alpha", "Beta", "Gamma"]},
        "text": {"type": "string", "maxLength": 5, "pattern": "[a-z]+"},
        "day": {"type": "string", "format": "date"},
        "count": {"type": "integer", "minimum": 0, "maximum": 3},
        "amount": {"type": "number", "minimum": 0, "maximum": 2},
        "flag": {"type": "boolean"},
        "multi": {"type": "array", "items": {"type": "string", "enum": ITEMS}, "maxItems": 2},
        "titled-multi": {"type": "array", "items": {"anyOf": TITLED_ITEMS}, "minItems": 1},
    }[kind]


def values_of(kind: str):
    return {
        "choice": st.sampled_from(["a", "b", "c"]),
        "titled": st.sampled_from(["a", "b", "c"]),
        "legacy": st.sampled_from(["a", "b", "c"]),
        "text": st.text("abc", min_size=1, max_size=5),
        "day": st.sampled_from(DAYS),
        "count": st.integers(0, 3),
        "amount": st.sampled_from([0.5, 1.25, 2.0]),
        "flag": st.booleans(),
        "multi": st.lists(st.sampled_from(ITEMS), min_size=1, max_size=2, unique=True),
        "titled-multi": st.lists(st.sampled_from(ITEMS), min_size=1, max_size=3, unique=True),
    }[kind]


def as_text(value) -> str:
    """A value as an address writes it (a list comma-separated, a boolean in lower case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(value)
    return str(value)


@st.composite
def cases(draw):
    """A command's elicitation, a person's values and the address's first keywords.

    A form the person answers is one that needs them: a required field without a default that the address does not
    give, and no `fallback: render`. They give a value for each such field and for some others; they leave every
    other form (a client without forms settles it by its defaults or fallback without asking, C7.6; a native client
    cancels it, with the same effect).
    """
    kinds: dict[str, str] = {}
    elicitation: dict[str, dict] = {}
    person: dict[str, object] = {}
    for index in range(draw(st.integers(1, 4))):
        if kinds and draw(st.integers(0, 5)) == 0:
            elicitation[f"u{index}"] = {"mode": "url", "message": f"Sign in {index}.", "url": f"https://accounts.example.com/{index}",
                                        "fallback": "render"}
            continue
        properties, required, defaults = {}, [], set()
        for position, kind in enumerate(draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=3))):
            name = f"f{index}{position}"
            properties[name], kinds[name] = schema_for(kind), kind
            if draw(st.integers(0, 2)) == 0:
                properties[name]["default"] = draw(values_of(kind))
                defaults.add(name)
            if draw(st.booleans()):
                required.append(name)
        declaration = {"message": f"Form {index}.", "schema": {"type": "object", "properties": properties, "required": required}}
        earlier = sorted(name for name in kinds if name not in properties and kinds[name] in SUPPLIERS)
        if earlier and draw(st.booleans()):
            name = draw(st.sampled_from(earlier))
            declaration["when"] = {name: draw(st.lists(values_of(kinds[name]), min_size=1, max_size=2, unique=True))}
        if draw(st.integers(0, 4)) == 0:
            declaration["fallback"] = "render"
        elicitation[f"form{index}"] = declaration
        if needs_the_person(declaration):
            for name in properties:
                if (name in required and name not in defaults) or draw(st.booleans()):
                    person[name] = draw(values_of(kinds[name]))
    given_first = {name: person[name] for name in draw(st.lists(st.sampled_from(sorted(person)), unique=True, max_size=2))} if person else {}
    return elicitation, kinds, person, given_first


def needs_the_person(form: dict) -> bool:
    """Whether only the person can complete a form: it requires a field without a default, and has no `fallback: render`."""
    properties = form.get("schema", {}).get("properties", {})
    return "fallback" not in form and any("default" not in properties[name] for name in form.get("schema", {}).get("required", ()))


def body(kinds: dict[str, str], elicitation: dict) -> str:
    lines = [f"{name}={{{{#kwargs.{name}}}}}{{{{.}}}},{{{{/kwargs.{name}}}}}" if kind.endswith("multi") else f"{name}=[{{{{kwargs.{name}}}}}]"
             for name, kind in kinds.items()]
    lines += [f"{form}: {{{{#elicitation.opened.{form}}}}}opened{{{{/elicitation.opened.{form}}}}}" for form in elicitation if form.startswith("u")]
    return "\n".join(lines) + "\n"


def docroot(elicitation: dict, kinds: dict[str, str]) -> Path:
    root = Path(tempfile.mkdtemp(prefix="parity-"))
    (root / "_commands").mkdir()
    front = yaml.safe_dump({"elicitation": elicitation}, sort_keys=False)
    (root / "_commands" / "c.md").write_text(f"---\n{front}---\n{body(kinds, elicitation)}", encoding="utf-8")
    (root / "guide.yaml").write_text("url-hosts: [accounts.example.com]\n", encoding="utf-8")
    return root


def address(keywords: dict[str, object]) -> str:
    query = "&".join(f"{name}={quote(as_text(value), safe=',')}" for name, value in keywords.items())
    return f"{URI}?{query}" if query else URI


def answer_form(schema: dict, person: dict) -> dict:
    """What the person submits in a form: their values, and the pre-filled default of each required field they leave blank."""
    content = {}
    for name, field in schema.get("properties", {}).items():
        if name in person:
            content[name] = person[name]
        elif name in schema.get("required", ()) and "default" in field:
            content[name] = field["default"]
    return content


def answered(elicitation: dict, form: str, schema: dict) -> bool:
    """Whether the person answers a form as it is shown (`schema`, without what the address gave), or leaves it (cancels: its defaults
    or fallback stand in): they answer only what nothing else completes."""
    return needs_the_person({**elicitation[form], "schema": schema})


async def native(server, mode: str, elicitation: dict, person: dict, first: dict, submitted: dict) -> str:
    """A client that shows each form: the person answers it or leaves it (what they submit is kept in `submitted`)."""
    async def handler(message, response_type, params, context):
        form = f"form{message.removeprefix('Form ').split('.')[0]}"
        if getattr(params, "mode", "form") == "url" or not answered(elicitation, form, params.requested_schema):
            return ElicitResult(action="cancel")  # a link not opened, a form left: the fallback or the defaults stand in
        content = answer_form(params.requested_schema, person)
        submitted.update(content)
        return content

    async with Client(server, mode=mode, elicitation_handler=handler) as client:
        return (await client.read_resource(address(first)))[0].text


async def app_form(server, mode: str, elicitation: dict, person: dict, first: dict) -> str:
    uri = address(first)
    async with Client(server, mode=mode, extensions=[advertise("io.modelcontextprotocol/ui", {"mimeTypes": [APP_MIME]})]) as client:
        shown = (await client.call_tool(OPEN_TOOL, {"uri": uri})).structured_content
        for _ in range(ROUNDS):
            if shown["guide"] == "rendered":
                return shown["text"]
            answers = {form["id"]: {"action": "accept", "content": answer_form(form["schema"], person)} if answered(elicitation, form["id"], form["schema"])
                       else {"action": "cancel"} for form in shown["forms"]}
            shown = (await client.call_tool(SUBMIT_TOOL, {"uri": uri, "state": shown["state"], "answers": answers})).structured_content
    raise AssertionError(f"the App form still asks after {ROUNDS} rounds")


def holds(condition: dict | None, known: dict) -> bool | None:
    """A question's condition against what the agent knows: True, False, or None while a field it names is unknown."""
    for name, values in (condition or {}).items():
        if name not in known:
            return None
        if not any(known[name] == value and isinstance(known[name], bool) == isinstance(value, bool) for value in values):
            return False
    return True


def defaulted(elicitation: dict) -> set[str]:
    """Every field declared with a default."""
    return {name for form in elicitation.values() for name, field in form.get("schema", {}).get("properties", {}).items() if "default" in field}


def check_the_questions(message: str, data: dict, elicitation: dict, keywords: dict) -> None:
    """The agent is never asked for a field the address gives or one with a default, nor promised a link it will not get.

    The text first (what the agent reads), then the same questions in the failure's data.
    """
    for name in keywords:
        assert f"- `{name}` (" not in message and f"{name}=<" not in message, f"{name} is asked although the address gives it"
    for name in defaulted(elicitation) - set(keywords):
        assert f"- `{name}` (" not in message, f"{name} has a default but is asked as a question"
    assert "link to open" not in message, "a URL step with a fallback is never promised to the agent"
    for question in data["questions"]:
        assert all(field["keyword"] not in keywords for field in question["fields"] + question["defaults"])
        assert all(field["default"] is None for field in question["fields"]) and "url" not in question


async def agent(server, mode: str, elicitation: dict, person: dict, first: dict) -> str:
    """A client without forms: it asks the person each question the failure lists, in order, and reads the address with the answers."""
    keywords = dict(first)
    async with Client(server, mode=mode) as client:
        for _ in range(ROUNDS):
            try:
                return (await client.read_resource(address(keywords)))[0].text
            except MCPError as error:
                message, data = error.error.message, error.error.data
            assert data["reason"] == "missing", data
            check_the_questions(message, data, elicitation, keywords)
            known = dict(keywords)
            for question in data["questions"]:
                if holds(question["when"], known) is not True:
                    continue
                needed = "fallback" not in elicitation[question["form"]] and any(field["required"] for field in question["fields"])
                for field in question["fields"] + question["defaults"]:
                    if needed and field["keyword"] in person:
                        keywords[field["keyword"]] = known[field["keyword"]] = person[field["keyword"]]
                    elif field["default"] is not None:
                        known[field["keyword"]] = field["default"]
    raise AssertionError(f"the agent is still asked after {ROUNDS} reads")


async def keywords_only(server, mode: str, values: dict) -> str:
    """A read that brings every value in its address: nothing is asked."""
    async with Client(server, mode=mode) as client:
        return (await client.read_resource(address(values)))[0].text


async def every_channel(case, mode: str) -> dict[str, str]:
    elicitation, kinds, person, first = case
    server = create_server(docroot(elicitation, kinds), watch=False)
    submitted: dict = {}
    texts = {"native": await native(server, mode, elicitation, person, first, submitted)}
    texts["app"] = await app_form(server, mode, elicitation, person, first)
    texts["agent"] = await agent(server, mode, elicitation, person, first)
    texts["keywords"] = await keywords_only(server, mode, {**first, **submitted})  # what the person gave the forms, as keywords
    return texts


@fuzz(25)
@given(case=cases())
def test_c7_12_every_channel_renders_the_same_text_for_the_same_answers(case, mode):
    texts = asyncio.run(every_channel(case, mode))
    assert len(set(texts.values())) == 1, texts
