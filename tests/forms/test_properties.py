"""C7 properties: `step` driven by generated form sets and answer sequences."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.forms import declared

from guide.forms import state
from guide.forms.step import Answer, Ask, Fail, Render, Request, step

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHOICES = ["a", "b", "c"]
ITEMS = ["x", "y", "z"]


def schema_for(kind):
    return {
        "choice": {"type": "string", "enum": CHOICES},
        "text": {"type": "string", "maxLength": 5, "pattern": "[a-z]+"},
        "count": {"type": "integer", "minimum": 0, "maximum": 3},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "flag": {"type": "boolean"},
        "multi": {"type": "array", "items": {"type": "string", "enum": ITEMS}, "maxItems": 2},
    }[kind]


def valid_values(kind):
    return {
        "choice": st.sampled_from(CHOICES),
        "text": st.text("abc", min_size=1, max_size=5),
        "count": st.integers(0, 3),
        "ratio": st.floats(0, 1),
        "flag": st.booleans(),
        "multi": st.lists(st.sampled_from(ITEMS), min_size=1, max_size=2, unique=True),
    }[kind]


def as_text(kind, value):
    if kind == "flag":
        return "TRUE" if value else "false"
    if kind == "multi":
        return ",".join(value)
    return repr(value) if kind == "ratio" else str(value)


ANY_JSON = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 9), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6), st.lists(st.sampled_from(ITEMS + ["w", ""]), max_size=3),
)


@st.composite
def scenarios(draw):
    """Forms with random fields, `when` only on earlier forms (so no cycles), and valid keywords."""
    kinds = {}
    elicitation = {}
    for index in range(draw(st.sampled_from([1, 2, 3, 3, 4, 4]))):
        properties = {}
        for position, kind in enumerate(draw(st.lists(st.sampled_from(["choice", "text", "count", "ratio", "flag", "multi"]), min_size=1, max_size=3))):
            name = f"f{index}{position}"
            properties[name] = dict(schema_for(kind))
            kinds[name] = kind
            if draw(st.integers(0, 3)) == 0:
                properties[name]["default"] = draw(valid_values(kind))
        required = [name for name in properties if draw(st.sampled_from([True, True, False]))]
        declaration = {"message": f"Form {index}.", "schema": {"type": "object", "properties": properties, "required": required}}
        testable = sorted(name for name in kinds if name not in properties and kinds[name] in ("choice", "count", "flag"))
        if testable and draw(st.integers(0, 3)) > 0:
            names = draw(st.lists(st.sampled_from(testable), min_size=1, max_size=2, unique=True))
            declaration["when"] = {name: draw(st.lists(valid_values(kinds[name]), min_size=1, max_size=3)) for name in names}
        if draw(st.integers(0, 3)) == 0:
            declaration["fallback"] = "render"
        elicitation[f"form{index}"] = declaration
    form_set = declared(elicitation)
    keyword_values = {}
    for name in draw(st.lists(st.sampled_from(sorted(kinds)), unique=True, max_size=2)):
        keyword_values[name] = draw(valid_values(kinds[name]))
    keywords = {name: (as_text(kinds[name], value),) for name, value in keyword_values.items()}
    request = Request("c", form_set, keywords, can_elicit=draw(st.integers(0, 4)) > 0)
    return request, kinds, keyword_values


def draw_answer(data, form, kinds):
    action = data.draw(st.sampled_from(["valid"] * 4 + ["random"] * 2 + ["decline", "cancel"]))
    if action in ("decline", "cancel"):
        return Answer(action)
    content = {}
    for field in form.fields:
        if action == "valid" and (field.name in form.required or data.draw(st.booleans())):
            content[field.name] = data.draw(valid_values(kinds[field.name]))
        elif action == "random" and data.draw(st.booleans()):
            content[field.name] = data.draw(ANY_JSON)
    return Answer("accept", content)


def when_matches(form, known):
    """C7.3: every listed field is known and equals one of its listed values (same kind)."""
    return all(
        name in known and any(known[name] == value and isinstance(known[name], bool) == isinstance(value, bool) for value in values)
        for name, values in form.when.items()
    )


def drive(request, kinds, data):
    """Run one interaction to its end; return every outcome in order."""
    by_id = {form.id: form for form in request.forms.forms}
    outcomes = [step(request)]
    while isinstance(outcomes[-1], Ask):
        progress = outcomes[-1].progress
        questions = outcomes[-1].questions
        # A legacy client answers the first question only; a 2026 client answers every one.
        answered = questions if data.draw(st.booleans()) else questions[:1]
        answers = {question.form: draw_answer(data, by_id[question.form], kinds) for question in answered}
        outcomes.append(step(request, state.decode(state.encode(request, progress), request), answers))
        assert len(outcomes) <= 4 * len(by_id) + 1
    return outcomes


@SETTINGS
@given(scenarios(), st.data())
def test_c7_step_always_ends_in_render_or_fail_without_raising(scenario, data):
    request, kinds, _ = scenario
    outcomes = drive(request, kinds, data)
    assert isinstance(outcomes[-1], (Render, Fail))
    assert all(isinstance(outcome, Ask) and outcome.questions for outcome in outcomes[:-1])
    if not request.can_elicit:
        assert len(outcomes) == 1


@SETTINGS
@given(scenarios(), st.data())
def test_c7_3_never_asks_a_form_whose_when_does_not_match(scenario, data):
    request, kinds, keyword_values = scenario
    by_id = {form.id: form for form in request.forms.forms}
    for outcome in drive(request, kinds, data)[:-1]:
        known = {**outcome.progress.values, **keyword_values}
        for question in outcome.questions:
            assert when_matches(by_id[question.form], known), (question.form, known)


@SETTINGS
@given(scenarios(), st.data())
def test_c7_never_asks_a_completed_form_again(scenario, data):
    request, kinds, _ = scenario
    completed = set()
    for outcome in drive(request, kinds, data)[:-1]:
        assert completed <= outcome.progress.completed
        assert not completed & {question.form for question in outcome.questions}
        completed |= outcome.progress.completed


@SETTINGS
@given(scenarios(), st.data())
def test_c7_2_keywords_reach_the_render_unchanged(scenario, data):
    request, kinds, keyword_values = scenario
    final = drive(request, kinds, data)[-1]
    if isinstance(final, Render):
        for name, value in keyword_values.items():
            assert final.kwargs[name] == value


@SETTINGS
@given(scenarios(), st.data())
def test_c8_state_round_trip_keeps_progress(scenario, data):
    request, kinds, _ = scenario
    for outcome in drive(request, kinds, data)[:-1]:
        assert state.decode(state.encode(request, outcome.progress), request) == outcome.progress
