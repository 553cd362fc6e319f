"""Issue 25: fuzzing the templates a docroot may hold: section nesting, indented standalone partials, partial fan-out.

Each case writes a command and a chain of partials, checks the docroot as
`guide check` does and reads the command as the server does. No case may crash
(only `GuideError`s, each one line), and the process stays under an address-space
ceiling raised only 1 GiB above what it used when the test began (a case that made
the engine copy a template hundreds of times would pass it). The CI budget is
small; `GUIDE_FUZZ_EXAMPLES` runs more (see `robustness.conftest`).
"""

import resource
from pathlib import Path

import pytest
from fastmcp import Client
from hypothesis import example, given
from hypothesis import strategies as st
from mcp import MCPError
from support.eras import MODES
from support.fuzzing import fuzz

from guide.docroot.folder import Docroot
from guide.docroot.lint import report as lint_report
from guide.docroot.store.disk import Store
from guide.errors import GuideError
from guide.forms.step import step
from guide.render import MAX_NESTING, MAX_OUTPUT
from guide.routes.finish import finish
from guide.routes.lookup import AddressRead, Call, resolve
from guide.server.app import create_server
from guide.server.errors import UNEXPECTED

MESSAGE_LIMIT = 2000
HEADROOM = 1024 * 1024 * 1024
"""How much more address space than at its start a fuzz test may use (1 GiB)."""

LABELS = st.sampled_from(["a", "kwargs.a", "kwargs", "flags.team", "workflow.phase", ".", "args", "elicitation.defaulted_forms.one", "kwargs.a.b"])
PIECES = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["{{", "}}", "{{{", "}}}", "{{#a}}", "{{/a}}", "{{^kwargs.a}}", "{{/kwargs.a}}", "{{kwargs.a}}", "{{.}}", "{{=<% %>=}}",
                     "<%={{ }}=%>", "{{! note }}", "\n", "   ", "{{>p0}}", "{{>p1}}", "{{>nothing}}", "{{&kwargs}}", "{{#kwargs}}{{.}}{{/kwargs}}"]),
)
FRAGMENT = st.lists(PIECES, max_size=12).map("".join)


@st.composite
def docroots(draw) -> dict[str, str]:
    """A command nesting sections around a chain of partials, each including the next a few times, indented, ending in a long leaf."""
    depth, label, sigil = draw(st.integers(0, 2 * MAX_NESTING)), draw(LABELS), draw(st.sampled_from(["#", "^"]))
    levels, fan_out = draw(st.integers(1, 6)), draw(st.integers(0, 12))
    indent = draw(st.one_of(st.sampled_from([0, 1, 4, 200, 3000]), st.integers(0, 4000)))
    files = {}
    for level in range(levels - 1):
        spaces = " " * draw(st.one_of(st.just(indent), st.integers(0, 40)))
        includes = "".join(f"{spaces}{{{{>p{level + 1}}}}}\n" for _ in range(fan_out))
        files[f"_partials/p{level}.md"] = draw(FRAGMENT) + "\n" + includes + draw(FRAGMENT)
    files[f"_partials/p{levels - 1}.md"] = draw(FRAGMENT) + "x\n" * draw(st.integers(0, 40_000))
    opened, closed = f"{{{{{sigil}{label}}}}}\n" * depth, f"{{{{/{label}}}}}\n" * depth
    files["_commands/c.md"] = "---\ndescription: Fuzzed.\n---\n" + opened + draw(FRAGMENT) + "\n" + " " * indent + "{{>p0}}\n" + closed
    files["_commands/fine.md"] = "FINE\n"
    return {"meta": {"depth": depth}, **files}


def _written(root: Path, files: dict) -> Path:
    for old in root.rglob("*.md"):
        old.unlink()
    for rel, text in files.items():
        if rel != "meta":
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def ceiling():
    """An address-space ceiling on this process, `HEADROOM` above what it uses now, for the module's tests."""
    used = int(next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmSize:")).split()[1]) * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (used + HEADROOM, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("templates") / "docroot"


def _clear(message: str) -> None:
    assert message and "\n" not in message and len(message) < MESSAGE_LIMIT, message


@fuzz(40)
@given(files=docroots(), keywords=st.sampled_from(["", "?a=1", "?a=x&zz=2", "?kwargs=3"]))
@example(files={"meta": {"depth": 20_000}, "_commands/c.md": "{{#a}}\n" * 20_000 + "{{/a}}\n" * 20_000, "_partials/p0.md": "x"}, keywords="")
@example(files={"meta": {"depth": 0}, "_commands/c.md": " " * 3000 + "{{>p0}}\n", "_partials/p0.md": "a\n" * 500_000}, keywords="")
@example(files={"meta": {"depth": 0}, "_commands/c.md": "{{>p0}}", **{f"_partials/p{n}.md": f"  {{{{>p{n + 1}}}}}\n" * 10 for n in range(8)}}, keywords="")
def test_fuzz_templates_are_checked_and_read_without_a_crash(ceiling, scratch, files, keywords):
    built = Docroot(_written(scratch, files), store=Store(None)).build()
    problems, notes = lint_report(built)
    for problem in problems + notes:
        _clear(str(problem))
    if files["meta"]["depth"] > MAX_NESTING:
        assert any(problem.path == "_commands/c.md" and "nests sections" in problem.message for problem in problems), problems
    try:
        call = resolve(built, AddressRead("guide://_c" + keywords))
        assert isinstance(call, Call)
        text = finish(call, step(call.request(can_elicit=False, active_phase=None)), None)
    except GuideError as error:
        _clear(str(error))
    else:
        assert len(text) <= MAX_OUTPUT


@pytest.mark.parametrize("mode", MODES)
@fuzz(4)
@given(files=docroots())
async def test_fuzz_e2e_template_reads_end_in_text_or_one_clear_line(ceiling, tmp_path_factory, mode, files):
    base = tmp_path_factory.mktemp("served")
    (base / "project").mkdir()
    server = create_server(_written(base / "docroot", files), base / "project", watch=False)
    async with Client(server, mode=mode) as client:
        try:
            await client.read_resource("guide://_c?a=1")
        except MCPError as error:
            message = error.error.message
            assert message != UNEXPECTED, message
            _clear(message)
        assert (await client.read_resource("guide://_fine"))[0].text.strip() == "FINE"
