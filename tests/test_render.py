"""C9: rendering is standard Mustache (the official spec files, run as data), the template context, partials."""

import json
from pathlib import Path

import pytest

from guide import render
from guide.render import context, inspect

# The required modules of the spec, vendored with their licence (see tests/data/mustache-spec/README.md).
SPEC_DIR = Path(__file__).resolve().parent / "data" / "mustache-spec"
SPEC_MODULES = {"comments", "delimiters", "interpolation", "inverted", "partials", "sections"}


def spec_cases() -> list:
    """One case per test of every vendored spec file; a failing placeholder if the files are gone."""
    # Optional modules (`~lambdas.json`, `~inheritance.json`, ...) are not vendored: a Guide
    # context never holds callables, and inheritance is not part of standard Mustache.
    files = sorted(SPEC_DIR.glob("*.json"))
    if not files:
        return [pytest.param(None, id="mustache-spec-missing")]
    return [
        pytest.param(case, id=f"{path.stem}: {case['name']}")
        for path in files
        for case in json.loads(path.read_text(encoding="utf-8"))["tests"]
    ]


# Every spec test runs unchanged: `{{x}}` HTML-escapes as the spec says (and `{{{x}}}` or
# `{{&x}}` inserts verbatim), so no escaping test needs skipping or adapting.
@pytest.mark.parametrize("case", spec_cases())
def test_c9_mustache_spec(case):
    assert case is not None, f"no Mustache spec files in {SPEC_DIR}"
    assert render.render(case["template"], case["data"], case.get("partials", {}).get) == case["expected"], case["desc"]


def test_c9_every_required_spec_module_is_vendored_and_run():
    assert {path.stem for path in SPEC_DIR.glob("*.json")} == SPEC_MODULES
    assert (SPEC_DIR / "LICENSE").is_file()
    assert len(spec_cases()) == 136  # every case of the six files, none filtered out


# Values


def test_c9_escapes_the_four_html_characters_only_and_triple_mustache_is_verbatim():
    value = "a & b < c > d \" e ' f / g = h ` i"
    rendered = render.render("{{v}}|{{{v}}}|{{&v}}", {"v": value}, {}.get)
    assert rendered == "a &amp; b &lt; c &gt; d &quot; e ' f / g = h ` i|" + value + "|" + value


def test_c9_booleans_lists_and_none_render_as_text():
    data = {"yes": True, "no": False, "items": ["a", "b", 3], "nothing": None, "zero": 0, "empty": ""}
    template = "{{yes}} {{no}} [{{items}}] [{{nothing}}] {{zero}} [{{empty}}]"
    assert render.render(template, data, {}.get) == "true false [a, b, 3] [] 0 []"


def test_c9_list_items_render_like_top_level_values():
    assert render.render("{{items}}", {"items": [True, False, None, "a"]}, {}.get) == "true, false, , a"


def test_c9_a_list_is_still_a_section_to_iterate():
    assert render.render("{{#items}}<{{.}}>{{/items}}", {"items": ["a", "b"]}, {}.get) == "<a><b>"


TEMPLATE_LIKE = "{{x}} {{{x}}} {{#x}}s{{/x}} {{>p}}"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{{v}}}", TEMPLATE_LIKE),
        ("{{&v}}", TEMPLATE_LIKE),
        ("{{#list}}{{{.}}}{{/list}}", TEMPLATE_LIKE),
        ("{{v}}", TEMPLATE_LIKE.replace(">", "&gt;")),  # escaped, but still not expanded
        ("{{#list}}{{.}}{{/list}}", TEMPLATE_LIKE.replace(">", "&gt;")),
    ],
)
def test_c9_values_are_never_read_as_templates(template, expected):
    data = {"v": TEMPLATE_LIKE, "list": [TEMPLATE_LIKE], "x": "EXPANDED"}
    assert render.render(template, data, {"p": "PARTIAL"}.get) == expected


def test_c9_a_partial_body_is_a_template_but_a_value_inside_it_is_not():
    partials = {"p": "[{{v}}]"}
    assert render.render("{{>p}}", {"v": "{{w}}", "w": "no"}, partials.get) == "[{{w}}]"


# Partials


def test_c9_partials_come_from_the_mapping_including_nested_ones():
    partials = {"outer": "<{{>inner}}>", "inner": "{{name}}"}
    assert render.render("{{>outer}}", {"name": "n"}, partials.get) == "<n>"


def test_c9_a_missing_partial_renders_empty_and_nothing_is_read_from_disk(tmp_path, monkeypatch):
    for name in ("missing", "missing.mustache", "missing.md", "_partials/missing.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("FROM DISK", encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    def no_disk(*args, **kwargs):
        raise AssertionError(f"render read from disk: {args}")

    monkeypatch.setattr("builtins.open", no_disk)
    monkeypatch.setattr(Path, "read_text", no_disk)
    monkeypatch.setattr(Path, "read_bytes", no_disk)
    assert render.render("[{{>missing}}]", {}, {}.get) == "[]"
    assert render.render("[{{>missing}}]", {}, {"other": "x"}.get) == "[]"


def test_c9_partials_are_looked_up_by_name_in_the_mapping_only():
    class Recording(dict):
        def __init__(self, *args):
            super().__init__(*args)
            self.asked = []

        def get(self, name, default=None):
            self.asked.append(name)
            return super().get(name, default)

    partials = Recording({"a": "A{{>b}}"})
    assert render.render("{{>a}}{{>c}}", {}, partials.get) == "A"
    assert sorted(partials.asked) == ["a", "b", "c"]


# Context


def test_c9_context_shape_for_a_command():
    built = context(
        kind="command",
        name="review",
        kwargs={"mode": "branch", "reference": "feature/x"},
        args=("one", "two"),
        defaulted=iter(["depth"]),
        phase="planning",
        phases=("discussion", "planning", "review"),
        flags={"workflow": True, "team": "platform"},
        opened=["signin"],
    )
    assert built == {
        "kwargs": {"mode": "branch", "reference": "feature/x"},
        "args": ["one", "two"],
        "elicitation": {"defaulted_forms": {"depth": True}, "opened": {"signin": True}},
        "command": {"name": "review"},
        "workflow": {"phase": "planning", "phases": ["discussion", "planning", "review"]},
        "flags": {"workflow": True, "team": "platform"},
    }


def test_c9_context_shape_for_a_skill_with_no_phase_and_nothing_defaulted():
    built = context(kind="skill", name="workflow-review", kwargs={}, args=[], defaulted=[], phase=None, phases=[], flags={})
    assert built == {
        "kwargs": {},
        "args": [],
        "elicitation": {"defaulted_forms": {}, "opened": {}},
        "skill": {"name": "workflow-review"},
        "workflow": {"phase": None, "phases": []},
        "flags": {},
    }
    assert "command" not in built


def test_c9_context_copies_what_it_is_given():
    kwargs, flags = {"mode": "branch"}, {"team": "platform"}
    built = context(kind="command", name="c", kwargs=kwargs, args=[], defaulted=[], phase=None, phases=[], flags=flags)
    kwargs["mode"] = "changed"
    flags["team"] = "changed"
    assert built["kwargs"] == {"mode": "branch"}
    assert built["flags"] == {"team": "platform"}


def test_c9_every_context_key_renders():
    built = context(
        kind="command",
        name="review",
        kwargs={"mode": "branch", "tags": ["a", "b"]},
        args=["x", "y"],
        defaulted=["depth"],
        phase="planning",
        phases=["discussion", "planning"],
        flags={"workflow": True, "team": "platform"},
    )
    template = (
        "{{command.name}} {{kwargs.mode}} {{kwargs.tags}} {{args}}"
        "{{#elicitation.defaulted_forms.depth}} defaulted{{/elicitation.defaulted_forms.depth}}"
        "{{^elicitation.defaulted_forms.target}} target-asked{{/elicitation.defaulted_forms.target}}"
        " {{workflow.phase}} {{#workflow.phases}}<{{.}}>{{/workflow.phases}}"
        " {{flags.workflow}} {{#flags.workflow}}on{{/flags.workflow}} {{flags.team}}"
    )
    expected = "review branch a, b x, y defaulted target-asked planning <discussion><planning> true on platform"
    assert render.render(template, built, {}.get) == expected


def test_c9_no_active_phase_renders_empty_and_counts_as_falsy():
    built = context(kind="command", name="c", kwargs={}, args=[], defaulted=[], phase=None, phases=["a"], flags={})
    assert render.render("[{{workflow.phase}}]{{^workflow.phase}} none{{/workflow.phase}}", built, {}.get) == "[] none"


# Syntax errors


def _problem(body: str):
    return inspect(body).problem


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        ("title\n\n{{#open}}\nnever closed\n", 3, "Unclosed section"),
        ("title\n{{/close}}\n", 2, "Unopened section"),
        ("one\ntwo\nthree {{value\n", 3, "Unclosed token"),
        ("{{#a}}\n{{/b}}\n", 2, "Unopened section"),
        ("{{= | =}}", 1, "Invalid delimiters"),
    ],
)
def test_c9_template_problem_reports_the_line_and_what_is_wrong(body, line, words):
    found = _problem(body)
    assert found is not None
    assert found[0] == line
    assert found[1].startswith("template error: ")
    assert words in found[1]
    assert "\n" not in found[1]


def test_c9_template_problem_quotes_a_standalone_tag_without_an_escaped_newline():
    found = _problem("title\n{{#open}}\nbody\n")
    assert found == (2, "template error: Unclosed section `{{#open}}`: it is opened here and never closed; end it with `{{/open}}`")


@pytest.mark.parametrize("body", ["", "plain text", "{{#a}}{{b}}{{/a}}\n{{>missing}}\n{{! comment }}", "{{=<% %>=}}<%x%>"])
def test_c9_template_problem_is_none_for_a_valid_body(body):
    assert _problem(body) is None
