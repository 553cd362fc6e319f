"""Generated scenario files never crash `guide test`: each run ends with a report and exit status 0, 1 or 2, and writes nothing outside `_tests`.

The files mix well-formed scenarios (addresses and prompt lines of the
docroot, its form ids and field names, answers of every JSON type, each client,
each expectation) with near misses, wrong types, paths that climb out of
`_tests`, and YAML that is not a mapping or not YAML. A run may take `--update`.
The default run reads a few dozen files; the slow test reads 1,000.
"""

import json
import os

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from support.files import write_files
from support.fuzzing import fuzz

from guide.cli import main

COMMAND = """---
elicitation:
  target:
    message: Which?
    schema:
      type: object
      properties:
        mode: {type: string, enum: [a, b]}
        count: {type: integer, minimum: 1, default: 2}
      required: [mode]
  more:
    message: More?
    when: {mode: b}
    fallback: render
    schema:
      type: object
      properties:
        tags: {type: array, items: {type: string, enum: [x, y]}}
        note: {type: string, pattern: "[a-z]+"}
      required: [note]
  link:
    mode: url
    message: Open it.
    url: https://accounts.example.com/{{kwargs.mode}}
    fallback: render
---
{{kwargs.mode}} {{kwargs.count}} {{#kwargs.tags}}{{.}},{{/kwargs.tags}} {{kwargs.note}}
"""
SKILL = "---\nname: helper\ndescription: Helps.\nelicitation:\n  who:\n    message: Who?\n    schema:\n      type: object\n" \
        "      properties:\n        name: {type: string}\n      required: [name]\n---\nHello {{kwargs.name}}.\n"
DOCROOT = {"guide.yaml": "url-hosts: [accounts.example.com]\n", "_commands/pick.md": COMMAND, "_skills/helper/SKILL.md": SKILL,
           "notes.md": "# Notes\n", "_tests/projects/p/.guide.yaml": "phase: x\n"}

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 5), st.floats(allow_nan=False, allow_infinity=False, width=32),
                    st.sampled_from(["a", "b", "x", "y", "abc", "", " ", "decline", "cancel", "declin", "A1"]), st.text(max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                      max_leaves=6)
READS = st.sampled_from(["guide://_pick", "guide://_pick?mode=b", "guide://_pick?mode=c", "guide://_pick?mdoe=a", "guide://_pik",
                         "guide://$helper", "guide://$helper?name=Ada", "skill://helper/SKILL.md", "guide://notes", "guide://_help",
                         "not an address", "guide://_pick?count=0&mode=a", "guide://_pick?project=/tmp"])
PROMPTS = st.sampled_from(["_pick --mode a", ":pick --mode b", ";pick", "_pick --help", "pick", "_nothing", "_pick 'unclosed"])
FIELDS = st.sampled_from(["mode", "count", "tags", "note", "name", "mdoe", "nothing"])
FORMS = st.sampled_from(["target", "more", "link", "who", "targte", "none"])
ANSWER = st.one_of(st.sampled_from(["decline", "cancel", "declin", {}]), st.dictionaries(FIELDS, VALUES, max_size=3), VALUES)
CLIENTS = st.one_of(st.sampled_from(["forms", "apps", "agent", "keywords", "url", "agnet"]),
                    st.lists(st.sampled_from(["forms", "apps", "agent", "keywords", "url", "x"]), max_size=4), VALUES)
PATHS = st.sampled_from(["snapshots/a.md", "snapshots/b.md", "a.md", "../escape.md", "/etc/passwd", "other.yaml", "snap/../../x.md",
                         "projects/p", "projects/none", ""])
EXPECT = st.fixed_dictionaries({}, optional={
    "text": st.one_of(st.text(max_size=20), st.sampled_from(["a 2  \n", "b 2  \n"]), VALUES),
    "snapshot": st.one_of(PATHS, VALUES),
    "asks": st.one_of(st.lists(FORMS, max_size=4), VALUES),
    "fails": st.one_of(st.fixed_dictionaries({"reason": st.sampled_from(["missing", "declined", "cancelled", "invalid", "unknown-keyword",
                                                                          "link", "declind"])},
                                              optional={"fields": st.one_of(st.lists(FIELDS, max_size=2), VALUES)}), VALUES),
    "txet": VALUES})
SCENARIO = st.fixed_dictionaries({}, optional={
    "read": st.one_of(READS, VALUES), "prompt": st.one_of(PROMPTS, VALUES), "answers": st.one_of(st.dictionaries(FORMS, ANSWER, max_size=3), VALUES),
    "clients": CLIENTS, "project": st.one_of(PATHS, VALUES), "expect": st.one_of(EXPECT, VALUES), "answer": VALUES})
GOOD_ANSWERS = st.fixed_dictionaries({}, optional={
    "target": st.one_of(st.fixed_dictionaries({"mode": st.sampled_from(["a", "b"])}, optional={"count": st.integers(-1, 4)}),
                        st.sampled_from(["decline", "cancel"])),
    "more": st.one_of(st.fixed_dictionaries({}, optional={"tags": st.lists(st.sampled_from(["x", "y"]), max_size=2, unique=True),
                                                           "note": st.sampled_from(["abc", "ABC", ""])}), st.sampled_from(["decline", "cancel"])),
    "link": st.sampled_from([{}, "decline", "cancel"])})
GOOD_EXPECT = st.one_of(st.fixed_dictionaries({"text": st.sampled_from(["a 2  \n", "b 2  abc\n", "x"])}),
                        st.fixed_dictionaries({"snapshot": st.sampled_from(["snapshots/a.md", "snapshots/b.md"])}),
                        st.fixed_dictionaries({"asks": st.lists(st.sampled_from(["target", "more", "link"]), max_size=3, unique=True)}),
                        st.fixed_dictionaries({"fails": st.fixed_dictionaries({"reason": st.sampled_from(["declined", "cancelled", "invalid"])})}))
GOOD = st.fixed_dictionaries({"read": st.sampled_from(["guide://_pick", "guide://_pick?mode=b", "guide://_pick?count=0&mode=a"]),
                              "expect": GOOD_EXPECT},
                             optional={"answers": GOOD_ANSWERS, "clients": st.lists(st.sampled_from(["forms", "apps", "url"]), min_size=1,
                                                                                   max_size=3, unique=True), "project": st.just("projects/p")})
FILE = st.one_of(
    st.dictionaries(st.text(min_size=1, max_size=12), GOOD, min_size=1, max_size=4).map(lambda data: yaml.safe_dump(data, allow_unicode=True)),
    st.dictionaries(st.one_of(st.text(min_size=1, max_size=12), st.integers(0, 3)), st.one_of(GOOD, SCENARIO, VALUES), min_size=1, max_size=4)
    .map(lambda data: yaml.safe_dump(data, allow_unicode=True)),
    st.text(max_size=60),
    st.sampled_from(["a: [b\n", "- x\n", "a: &x [*x]\n", "a: 1\na: 2\n", "\x00", ""]),
)


def outside(docroot) -> dict[str, bytes]:
    """Every file beside and in the docroot but outside its `_tests` folder, with its bytes."""
    found = {}
    tests = os.path.join(docroot, "_tests", "")
    for folder, _, names in os.walk(docroot.parent):
        for name in names:
            path = os.path.join(folder, name)
            if not path.startswith(tests):
                with open(path, "rb") as file:
                    found[path] = file.read()
    return found


def run_files(root, texts: list[str], update: bool) -> None:
    write_files(root, DOCROOT)
    for index, text in enumerate(texts):
        (root / "_tests" / f"s{index}.yaml").write_bytes(text.encode("utf-8", "surrogatepass"))
    before = outside(root)
    status = main(["test", str(root), "--format", "json", *(["--update"] if update else [])])
    assert status in (0, 1, 2)
    assert outside(root) == before


def check_report(out: str) -> None:
    if not out.strip():
        return  # no scenario at all: the error line went to standard error
    report = json.loads(out)
    summary = report["summary"]
    assert summary["scenarios"] == len(report["scenarios"]) == sum(summary[status] for status in ("passed", "failed", "error", "updated"))


@fuzz(5)
@given(texts=st.lists(FILE, min_size=1, max_size=3), update=st.booleans())
def test_generated_scenario_files_never_crash_the_runner(tmp_path_factory, capsys, texts, update):
    capsys.readouterr()  # each case reads only its own report
    root = tmp_path_factory.mktemp("fuzz") / "docroot"
    run_files(root, texts, update)
    check_report(capsys.readouterr().out)


@pytest.mark.slow
@fuzz(125)
@given(texts=st.lists(FILE, min_size=8, max_size=8), update=st.booleans())
def test_a_thousand_generated_scenario_files_never_crash_the_runner(tmp_path_factory, capsys, texts, update):
    capsys.readouterr()
    root = tmp_path_factory.mktemp("fuzz") / "docroot"
    run_files(root, texts, update)
    check_report(capsys.readouterr().out)
