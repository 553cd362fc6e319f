"""Issue 25: fuzzing YAML anchors and aliases, in a command's frontmatter and in `guide.yaml`.

Generated texts layer anchors, aliases that fan out over earlier anchors (the
"billion laughs" shape), long anchored strings, merges, aliases inside their own
anchor, undefined aliases, reused anchor names and stray YAML punctuation. Every
case must end in a loaded value whose expansion stays within the bounds, or in
one-line authoring errors naming a line of the file; rendering what loaded stays
within the output cap. Nothing may raise anything but Guide's own errors, and a
real client in either era never sees "Guide failed unexpectedly".
`GUIDE_FUZZ_EXAMPLES` sets the number of cases (see `robustness.conftest`).
"""

from typing import Any

import pytest
import yaml
from fastmcp import Client
from hypothesis import example, given, settings
from hypothesis import strategies as st
from mcp import MCPError
from support.eras import MODES
from support.files import write_files
from support.fuzzing import fuzz

from guide.docroot import yaml_loader
from guide.docroot.folder import Docroot
from guide.docroot.store.disk import Store
from guide.errors import GuideError
from guide.forms.step import Render, step
from guide.render import MAX_OUTPUT
from guide.routes.finish import finish
from guide.routes.lookup import AddressRead, Call, resolve
from guide.server.app import create_server
from guide.server.errors import UNEXPECTED

MESSAGE_LIMIT = 2000
E2E_SHARE = 20
"""The end-to-end fuzz runs one case in this many of `GUIDE_FUZZ_EXAMPLES`: each case starts an in-process server, a
task of which keeps its docroot after the client has gone (about 180 KB a case); the cases above cover the volume."""
KEYS = ["description", "aliases", "args", "usage", "examples", "title", "big", "team", "items", "x", "y", "<<"]
FLAG_KEYS = ["big", "team", "items", "x", "y"]
SIZES = st.sampled_from([0, 1, 7, 40, 1000, 30_000, 120_000])
JUNK = st.text(alphabet=st.sampled_from(list("&*[]{}:,-!|>'\"#%@` \nxa0")), max_size=30)
SHAPES = ["scalar", "string", "fan", "block", "map", "merge", "alias", "self", "undefined", "reused", "junk"]


@st.composite
def aliased_lines(draw) -> list[str]:
    """Top-level `key: value` lines of a YAML mapping, with anchors and aliases over the earlier anchors."""
    lines: list[str] = []
    anchors: list[str] = []

    def refs(count: int) -> list[str]:
        return [f"*{draw(st.sampled_from(anchors))}" if anchors else "lit" for _ in range(count)]

    for index in range(draw(st.integers(1, 8))):
        key, name, shape = draw(st.sampled_from(KEYS)), f"a{index}", draw(st.sampled_from(SHAPES))
        if shape == "scalar":
            lines.append(f"{key}: &{name} {draw(st.sampled_from(['12', 'true', '2020-01-01', '1e3', 'null', 'plain text', '~']))}")
        elif shape == "string":
            lines.append(f'{key}: &{name} "{"x" * draw(SIZES)}"')
        elif shape == "fan":
            lines.append(f"{key}: &{name} [{', '.join(refs(draw(st.integers(0, 30))))}]")
        elif shape == "block":
            lines += [f"{key}: &{name}"] + [f"  - {ref}" for ref in refs(draw(st.integers(1, 30)))]
        elif shape == "map":
            lines.append(f"{key}: &{name} {{{', '.join(f'k{i}: {ref}' for i, ref in enumerate(refs(draw(st.integers(0, 10)))))}}}")
        elif shape == "merge":
            lines.append(f"{key}: {{<<: {refs(1)[0]}, z: 1}}")
        elif shape == "alias":
            lines.append(f"{key}: {refs(1)[0]}")
        elif shape == "self":
            lines.append(f"{key}: &{name} [1, *{name}]")
        elif shape == "undefined":
            lines.append(f"{key}: *nowhere")
        elif shape == "reused":
            lines.append(f"{key}: &{draw(st.sampled_from(anchors or ['a0']))} again")
        else:
            lines.append(f"{key}: {draw(JUNK)}")
        anchors.append(name)
    return lines


def _expanded(value: Any, budget: list[int]) -> None:
    """Walk `value` as a render or an encoder would, every shared part each time, spending the budget [values, characters]."""
    budget[0] -= 1
    if isinstance(value, str):
        budget[1] -= len(value)
    if budget[0] < 0 or budget[1] < 0:
        raise AssertionError("loaded data expands past the alias bounds")
    if isinstance(value, dict):
        for key, item in value.items():
            _expanded(key, budget)
            _expanded(item, budget)
    elif isinstance(value, list):
        for item in value:
            _expanded(item, budget)


def _within_bounds(value: Any) -> None:
    _expanded(value, [yaml_loader.MAX_VALUES, yaml_loader.MAX_EXPANDED])


def _one_line(message: str) -> None:
    assert message and "\n" not in message, message


def _short(message: str) -> None:
    """A message about something other than the author's own text (which authoring errors may quote whole) is short."""
    _one_line(message)
    assert len(message) < MESSAGE_LIMIT, message[:MESSAGE_LIMIT]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("aliases") / "docroot"


FLAGS_BODY = "".join(f"[{{{{flags.{key}}}}}|{{{{#flags.{key}}}}}<{{{{.}}}}>{{{{/flags.{key}}}}}]" for key in FLAG_KEYS) + "\n"


def _render(built, uri: str) -> None:
    """Read `uri` as a client that cannot answer forms: text within the cap, or one of Guide's one-line errors."""
    try:
        call = resolve(built, AddressRead(uri))
        assert isinstance(call, Call)
        outcome = step(call.request(can_elicit=False, active_phase=None))
        if isinstance(outcome, Render):
            assert len(finish(call, outcome, None)) <= MAX_OUTPUT
    except GuideError as error:
        _one_line(str(error))


@fuzz(60)
@given(lines=aliased_lines())
@example(lines=['big: &a0 "' + "x" * 50_000 + '"', "items: &a1"] + ["  - *a0"] * 30)
@example(lines=["description: &a0 12", 'aliases: &a1 "' + "x" * 30_000 + '"', "args: &a2 [*a1]"])
@example(lines=["x: &a0 [lit, lit, lit, lit, lit, lit, lit, lit, lit, lit]"] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)])
def test_fuzz_frontmatter_aliases_load_within_bounds_or_fail_on_a_line(scratch, lines):
    text = "---\n" + "\n".join(lines) + "\n---\nBODY {{kwargs.a}}\n"
    write_files(scratch, {"_commands/c.md": text})
    built = Docroot(scratch, store=Store(None)).build()
    entrypoint = built.entrypoint("command", "c")
    problems = built.problems(entrypoint)
    for problem in problems:
        _one_line(str(problem))
        if problem.message.startswith("frontmatter "):
            _short(str(problem))
        assert problem.line is None or 1 <= problem.line <= text.count("\n") + 1, problem
    if entrypoint.meta:
        _within_bounds(dict(entrypoint.meta))
    _render(built, "guide://_c")


@fuzz(60)
@given(lines=aliased_lines())
def test_fuzz_the_counting_loader_reads_what_libyaml_reads(lines):
    text = "\n".join(lines) + "\n"
    counted = yaml_loader.CountingLoader(text)
    try:
        node = counted.get_single_node()
        value = counted.construct_document(node) if node is not None else None
    except yaml_loader.ExpansionError:
        return  # the bound, which libyaml's composer does not know
    except (yaml.YAMLError, ValueError) as error:
        with pytest.raises(type(error)):
            yaml.load(text, Loader=yaml_loader.Loader)
        return
    finally:
        counted.dispose()
    assert yaml.load(text, Loader=yaml_loader.Loader) == value


@fuzz(60)
@given(lines=aliased_lines(), workflow=st.sampled_from(["", "workflow: {phases: [plan, build]}\n", "workflow: *a0\n"]))
@example(lines=["team: core", 'big: &a1 "' + "y" * 100_000 + '"', "items: &a2"] + ["  - *a1"] * 20, workflow="")
def test_fuzz_guide_yaml_aliases_load_within_bounds_or_fail_on_a_line(scratch, lines, workflow):
    text = "flags:\n" + "".join(f"  {line}\n" for line in lines) + workflow
    write_files(scratch, {"guide.yaml": text, "_commands/c.md": "---\ndescription: flags\n---\n" + FLAGS_BODY})
    built = Docroot(scratch, store=Store(None)).build()
    for problem in built.snapshot.config_problems:
        _short(str(problem))
        assert problem.line is None or 1 <= problem.line <= text.count("\n") + 1, problem
    _within_bounds(dict(built.config.flags))
    _render(built, "guide://_c")


@pytest.mark.parametrize("mode", MODES)
@settings(fuzz(5), max_examples=max(5, fuzz(5).max_examples // E2E_SHARE))
@given(front=aliased_lines(), flags=aliased_lines())
async def test_fuzz_e2e_aliases_never_fail_unexpectedly(tmp_path_factory, mode, front, flags):
    base = tmp_path_factory.mktemp("aliases-e2e")
    root = write_files(base / "docroot", {
        "_commands/c.md": "---\n" + "\n".join(front) + "\n---\nBODY\n",
        "_commands/f.md": "---\ndescription: flags\n---\n" + FLAGS_BODY,
        "_commands/ok.md": "---\ndescription: healthy\n---\nOK\n",
        "guide.yaml": "flags:\n" + "".join(f"  {line}\n" for line in flags),
    })
    async with Client(create_server(root, base, watch=False), mode=mode) as client:
        listed = {str(resource.uri) for resource in await client.list_resources()}
        assert "guide://_ok" in listed
        assert (await client.read_resource("guide://_ok"))[0].text == "OK\n"
        for uri in ("guide://_c", "guide://_f"):
            try:
                text = (await client.read_resource(uri))[0].text
            except MCPError as error:
                assert error.error.message != UNEXPECTED
                _one_line(error.error.message)
            else:
                assert len(text) <= MAX_OUTPUT
