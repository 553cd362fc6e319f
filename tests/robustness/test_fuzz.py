"""Issue 10: fuzzing every input Guide reads. No input may crash it: only `GuideError`s, each one line.

Frontmatter (arbitrary YAML values in every key), addresses, prompt lines, answers
and continuation states go through the code that reads them; answers also go
through a real client in both protocol eras. The CI budget is small; see
`robustness.conftest` for the command that runs over 100,000 cases.
"""

import datetime
import json
import math

import fastmcp.client.elicitation as client_elicitation
import pytest
import yaml
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from hypothesis import example, given
from hypothesis import strategies as st
from mcp import MCPError
from support.clocks import person
from support.eras import MODES
from support.fuzzing import fuzz

from guide.docroot.built import Built
from guide.docroot.entrypoints import Entrypoint, partial_report
from guide.docroot.folder import Docroot
from guide.docroot.store.disk import Store
from guide.errors import GuideError
from guide.forms import state
from guide.forms.step import Answer, Ask, Fail, Render, Request, step
from guide.routes import help as help_text
from guide.routes.lookup import AddressRead, Call, PromptRead, resolve
from guide.server.app import create_server
from guide.server.errors import UNEXPECTED
from robustness.hostile import write_docroot

MESSAGE_LIMIT = 2000
"""An error message stays within this many characters, whatever the input."""

# ---------------------------------------------------------------- values YAML can hold

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["", " ", "object", "string", "integer", "number", "boolean", "array", "render", "workflow-phases", "email", "[a-z]+", "(", "help"]),
    st.dates(),
    st.datetimes(),
    st.binary(max_size=8),
)
KEYS = st.one_of(st.text(max_size=12), st.integers(-5, 5), st.booleans(), st.none(), st.sampled_from(["type", "enum", "message", "schema"]))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4), st.frozensets(st.integers(), max_size=3)),
    max_leaves=12,
)

FRONTMATTER_KEYS = ["description", "aliases", "usage", "examples", "argrequired", "args", "includes", "fallback", "name", "license",
                    "compatibility", "metadata", "allowed-tools", "requires-team", "requires-workflow", "title"]
FIELD_KEYS = ["type", "title", "description", "default", "enum", "oneOf", "enumNames", "items", "source", "minLength", "maxLength",
              "pattern", "format", "minimum", "maximum", "minItems", "maxItems", "const", "anyOf"]


def _maybe(strategy):
    """A plausible value, or anything at all."""
    return st.one_of(strategy, VALUES)


FIELD = _maybe(st.dictionaries(st.sampled_from(FIELD_KEYS), VALUES, max_size=6))
SCHEMA = _maybe(st.fixed_dictionaries(
    {"type": _maybe(st.just("object")), "properties": _maybe(st.dictionaries(st.sampled_from(["a", "b", "mode", "_x", "help"]), FIELD, max_size=3))},
    optional={"required": _maybe(st.lists(st.sampled_from(["a", "b", "mode", "zz"]), max_size=3))},
))
FORM = _maybe(st.fixed_dictionaries(
    {"message": _maybe(st.just("Answer.")), "schema": SCHEMA},
    optional={"when": _maybe(st.dictionaries(st.sampled_from(["a", "b", "mode"]), VALUES, max_size=2)), "fallback": VALUES},
))
ELICITATION = _maybe(st.dictionaries(st.sampled_from(["one", "two", "three"]), FORM, max_size=3))
FRONTMATTER = st.fixed_dictionaries(
    {},
    optional={**{key: VALUES for key in FRONTMATTER_KEYS}, "elicitation": ELICITATION, "aliases": _maybe(st.lists(st.text(max_size=5), max_size=2))},
)


class _Dumper(yaml.SafeDumper):
    """YAML out of any generated value: frozensets become sets."""


_Dumper.add_representer(frozenset, lambda dumper, data: dumper.represent_set(set(data)))


def _file(meta: dict, body: str = "BODY {{kwargs.a}}\n") -> str:
    return "---\n" + yaml.dump(meta, Dumper=_Dumper, allow_unicode=True) + "---\n" + body


PARTIAL = _file({"elicitation": {"pp": {"message": "P", "schema": {"type": "object", "properties": {"p": {"type": "string"}}}}}})
CONFIG = "flags: {team: core}\nworkflow: {phases: [plan, build]}\n"
PATHS = {"command": "_commands/c.md", "skill": "_skills/c/SKILL.md"}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A docroot whose one command or skill (and one partial) each case rewrites."""
    root = tmp_path_factory.mktemp("frontmatter") / "docroot"
    for rel, text in {"_partials/p.md": PARTIAL, "guide.yaml": CONFIG}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _with(root, kind: str, text: str) -> Built:
    """The build of the scratch docroot holding `text` as its one entrypoint of `kind`, and as partial q."""
    for other in PATHS.values():
        (root / other).unlink(missing_ok=True)
    for rel in (PATHS[kind], "_partials/q.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return Docroot(root, store=Store(None)).build()


def _exercise(built: Built, entrypoint: Entrypoint) -> None:
    """Everything a server does with an entrypoint: describe it, list it, ask and render it."""
    help_text.describe(built, entrypoint)
    problems = built.problems(entrypoint)
    assert all("\n" not in str(problem) for problem in problems), problems
    _ = entrypoint.uri, entrypoint.description, [entrypoint.listed(key) for key in ("aliases", "args", "examples", "argrequired")]
    if problems:
        return
    request = Request(entrypoint=entrypoint.uri, forms=entrypoint.forms, arg_fields=entrypoint.listed("args"), active_phase="plan")
    assert isinstance(step(request), (Render, Ask, Fail))
    assert isinstance(step(Request(entrypoint=entrypoint.uri, forms=entrypoint.forms, can_elicit=False)), (Render, Fail))


@fuzz(150)
@given(meta=FRONTMATTER, kind=st.sampled_from(["command", "skill"]))
@example(meta={"elicitation": {"one": {"message": "m", "schema": {"type": "object", "properties": {"a": {"type": ["string"]}}}}}}, kind="command")
@example(meta={"args": 5, "aliases": 3, "examples": {"a": 1}, "argrequired": True}, kind="command")
@example(meta={"description": 10**400, "name": ["a"]}, kind="skill")
def test_fuzz_frontmatter_never_crashes_the_declaration_code(scratch, meta, kind):
    built = _with(scratch, kind, _file({**meta, "includes": meta.get("includes", ["p"])}))
    _exercise(built, built.entrypoint(kind, "c"))
    problems, notes = partial_report("_partials/q.md", built)
    assert all("\n" not in str(problem) for problem in problems + notes)


@pytest.mark.parametrize("text", ["---\na: " + "9" * 5000 + "\n---\n", "---\na: 2020-13-45\n---\n", "---\na: 2020-01-01 25:00:00\n---\n"])
def test_frontmatter_values_python_cannot_hold_are_authoring_errors(scratch, text):
    built = _with(scratch, "command", text)
    problems = built.problems(built.entrypoint("command", "c"))
    assert [problem.message.split(":")[0] for problem in problems] == ["frontmatter holds a value that cannot be read"]


# ---------------------------------------------------------------- addresses and prompt lines


@pytest.fixture(scope="module")
def docroot(tmp_path_factory) -> Built:
    return Docroot(write_docroot(tmp_path_factory.mktemp("fuzz") / "docroot"), store=Store(None)).build()


def _clear(error: GuideError) -> None:
    message = str(error)
    assert message and "\n" not in message and len(message) < MESSAGE_LIMIT, message


URI_TEXT = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda scheme, mark, body, query: scheme + mark + body + query,
        st.sampled_from(["guide://", "GUIDE://", "guide:", "guide:///", "http://"]),
        st.sampled_from(["", "_", "$", "_help/", "_nested/", "$tool-kit/", "lang/", "_ask/"]),
        st.text(alphabet=st.sampled_from(list("abk/.%2Ffe-_$?#&=é ")), max_size=30),
        st.sampled_from(["", "?", "?help", "?mode=careful", "?count=9999&count=1", "?detail=%ff", "?big=1e999", "?tags=x,y,z,w"]),
    ),
)


@fuzz(300)
@given(uri=URI_TEXT)
@example(uri="guide://_" + "a/" * 5000)
@example(uri="guide://_ask?big=" + "9" * 5000)
def test_fuzz_addresses_resolve_or_fail_clearly(docroot, uri):
    try:
        found = resolve(docroot, AddressRead(uri))
        if isinstance(found, Call):
            step(found.request(can_elicit=True, active_phase=None))
            step(found.request(can_elicit=False, active_phase=None))
    except GuideError as error:
        _clear(error)


PROMPT_TEXT = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda mark, name, rest: mark + name + rest,
        st.sampled_from(["_", ":", ";", "", "__"]),
        st.sampled_from(["ask", "plain", "nested/deep", "dp", "phase", "nothing", "help", ""]),
        st.lists(st.sampled_from(["--mode", "careful", "--mode=quick", "--help", "--no-verbose", "--count=3", "--count", "'", '"x y"', "\\", "--", "--=", "x"]),
                 max_size=5).map(lambda tokens: " " + " ".join(tokens)),
    ),
)


@fuzz(300)
@given(line=PROMPT_TEXT)
def test_fuzz_prompt_lines_resolve_or_fail_clearly(docroot, line):
    try:
        found = resolve(docroot, PromptRead(line))
        if isinstance(found, Call):
            step(found.request(can_elicit=True, active_phase=None))
    except GuideError as error:
        _clear(error)


# ---------------------------------------------------------------- answers and states

JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-(10**500), max_value=10**500),
              st.floats(allow_nan=False), st.text(max_size=10), st.sampled_from(["quick", "careful", "x", "plan", "a b", "@", "low"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8,
)
CONTENT = st.one_of(
    st.dictionaries(st.sampled_from(["mode", "detail", "email", "count", "ratio", "big", "verbose", "tags", "name", "level", "zz"]), JSON_VALUES, max_size=5),
    JSON_VALUES,
)
ANSWER = st.builds(Answer, st.sampled_from(["accept", "accept", "accept", "decline", "cancel"]), CONTENT)


def _calls(docroot: Built) -> list[Call]:
    return [resolve(docroot, AddressRead(uri)) for uri in ("guide://_ask", "guide://_nested/deep", "guide://$tool-kit", "guide://_withpartial")]


@fuzz(300)
@given(data=st.data())
def test_fuzz_answers_never_crash_the_step(docroot, data):
    call = data.draw(st.sampled_from(_calls(docroot)))
    request = call.request(can_elicit=True, active_phase=None)
    outcome = step(request)
    for _ in range(6):
        if not isinstance(outcome, Ask):
            break
        answers = {question.form: data.draw(ANSWER) for question in outcome.questions}
        outcome = step(request, outcome.progress, answers)
    assert isinstance(outcome, (Render, Ask, Fail))
    if isinstance(outcome, Fail):
        assert "\n" not in outcome.message and len(outcome.message) < MESSAGE_LIMIT


STATE_RECORD = st.fixed_dictionaries(
    {key: JSON_VALUES for key in "vedkaxcfrn"},
)


def _state_text(record, real: str) -> str:
    try:
        return json.dumps(record)
    except ValueError:  # an integer too long to write: keep the real state
        return real


@fuzz(300)
@given(data=st.data())
def test_fuzz_states_never_crash_the_resume(docroot, data):
    call = data.draw(st.sampled_from(_calls(docroot)))
    request = call.request(can_elicit=True, active_phase=None)
    first = step(request)
    real = state.encode(request, first.progress) if isinstance(first, Ask) else "{}"
    mutated = {**json.loads(real), **data.draw(st.dictionaries(st.sampled_from(list("vedkaxcfrn")), JSON_VALUES, max_size=4))}
    text = data.draw(st.one_of(st.just(_state_text(mutated, real)), st.text(max_size=30), st.just(real)))
    answers = data.draw(st.dictionaries(st.sampled_from(["pick", "detail", "numbers", "who", "level", "note", "zz"]), ANSWER, max_size=3))
    outcome = state.resume(request, text, answers)
    assert isinstance(outcome, (Render, Ask, Fail))
    if isinstance(outcome, Fail):
        assert "\n" not in outcome.message and len(outcome.message) < MESSAGE_LIMIT


# ---------------------------------------------------------------- answers through a real client, both eras


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("fuzz-server")
    (base / "project").mkdir()
    return create_server(write_docroot(base / "docroot"), base / "project", watch=False, clock=person())  # a person answers each form


@pytest.fixture
def unchecked_answers(monkeypatch):
    monkeypatch.setattr(client_elicitation, "_validate_form_content", lambda content, schema: None)


FLAT_CONTENT = st.dictionaries(
    st.sampled_from(["mode", "detail", "email", "count", "ratio", "big", "verbose", "tags", "name", "level", "zz"]),
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**300), max_value=10**300), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=12), st.lists(st.text(max_size=4), max_size=3)),
    max_size=5,
)


@pytest.mark.parametrize("mode", MODES)
@fuzz(10)
@given(data=st.data(), uri=st.sampled_from(["guide://_ask", "guide://_ask?mode=careful", "guide://_nested/deep", "guide://$tool-kit", "guide://_phase"]))
async def test_fuzz_e2e_answers_end_in_text_or_one_clear_line(server, unchecked_answers, mode, data, uri):
    async def handle(message, response_type, params, context):
        action = data.draw(st.sampled_from(["accept", "accept", "accept", "decline", "cancel"]))
        return ElicitResult(action=action, content=data.draw(FLAT_CONTENT) if action == "accept" else None)

    async with Client(server, mode=mode, elicitation_handler=handle) as client:
        try:
            text = (await client.read_resource(uri))[0].text
        except MCPError as error:
            message = error.error.message
            assert message != UNEXPECTED and "\n" not in message and len(message) < MESSAGE_LIMIT, message
        else:
            assert text.split()[0] in ("ASK", "DEEP", "SKILL", "PHASE")


def test_the_fuzz_values_cover_what_yaml_reads():
    loaded = yaml.safe_load(yaml.dump({"d": datetime.date(2020, 1, 1), "b": b"x", "n": math.inf, "s": frozenset({1})}, Dumper=_Dumper))
    assert loaded == {"d": datetime.date(2020, 1, 1), "b": b"x", "n": math.inf, "s": {1}}


@fuzz(20)
@given(state_text=st.one_of(st.text(max_size=40), st.binary(max_size=60).map(lambda raw: raw.hex())), form=st.sampled_from(["pick", "numbers", "zz"]),
       content=FLAT_CONTENT)
async def test_fuzz_e2e_forged_states_are_refused_in_one_line(server, state_text, form, content):
    responses = {form: {"action": "accept", "content": content}}
    async with Client(server, mode="2026-07-28") as client:
        try:
            await client.session.read_resource("guide://_ask", input_responses=responses, request_state=state_text, allow_input_required=True)
        except MCPError as error:
            message = error.error.message
            assert message != UNEXPECTED and "\n" not in message and len(message) < MESSAGE_LIMIT, message
        else:
            raise AssertionError("a forged state was accepted")
