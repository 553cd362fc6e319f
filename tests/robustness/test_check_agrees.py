"""Issue 33, finding 6: `guide check` counts against the output cap what a render counts, so an author can trust it.

A command that includes a 250,008-character partial four times prints 1,000,032
characters, under the cap of 1,048,576. Written in `é`, the partial is 500,016
bytes, and the render also counts an eighth of a template over 256 KiB each
time the engine is handed it: `guide check` said nothing and every read stopped
at the cap. Now the check counts the same (and says so with file and line),
Hypothesis holds the two to each other on generated templates, and the memos
keep 60 distinct reads of such a render well under 250 MB.
"""

import pytest
from fastmcp import Client
from hypothesis import event, given
from hypothesis import strategies as st
from mcp import MCPError
from support.eras import MODES
from support.fuzzing import fuzz

import guide.render as render_module
from guide.cli import main
from guide.docroot.partials import PartialGraph, expansion_problem
from guide.render import RenderTooLarge, inspect, render
from robustness.capped import capped_server, rss
from robustness.hostile import write

PARTIAL = 250_008
FOUR = "---\ndescription: Four inclusions.\n---\n{{>big}}{{>big}}{{>big}}{{>big}}{{kwargs.n}}\n"
HELD = 250 * 1000 * 1000
"""What 60 distinct reads of a 1 MB render may add to the server's resident memory (the issue's bound)."""


def four_docroot(root, letter: str):
    write(root / "_partials/big.md", letter * PARTIAL)
    write(root / "_commands/four.md", FOUR)
    return root


@pytest.mark.parametrize("letter", ["x", "é"])
async def test_33_6_check_passes_exactly_what_reads_render(tmp_path, capsys, connect, letter):
    root = four_docroot(tmp_path / "docroot", letter)
    status = main(["check", str(root)])
    printed = capsys.readouterr().out
    async with connect(root) as client:
        try:
            text = (await client.read_resource("guide://_four"))[0].text
        except MCPError as error:
            text = error.error.message
    if letter == "x":  # 1,000,032 characters of 250,008 bytes each: no share counted, under the cap
        assert status == 0 and text == "x" * (4 * PARTIAL) + "\n", printed
    else:
        assert status == 1 and printed.startswith("_commands/four.md:4: `{{>big}}` expands to about 1,250,0"), printed
        assert "an eighth of the bytes of a template over 256 KiB each time it is included" in printed
        assert "rendering stopped at the output cap" in text


def _template(first: int, count: int) -> st.SearchStrategy[str]:
    """Templates of text (ASCII or not), lookups that print nothing, sections, comments, and partials `p<first>` to `p<count - 1>`
    included inline or alone on an indented line (a partial includes only later ones: no loops)."""
    partial = st.integers(first, count - 1).map(lambda index: f"p{index}") if first < count else st.nothing()
    piece = st.one_of(
        st.integers(1, 300).flatmap(lambda n: st.sampled_from(["a" * n, "é" * n, "\u4e16" * n, "line\n" * (n // 5 + 1)])),
        st.sampled_from(["{{x}}", "{{{y}}}", "{{#s}}in{{/s}}", "{{^s}}out{{/s}}", "{{! note }}", "{{kwargs.z}}"]),
        partial.map(lambda name: f"{{{{>{name}}}}}"),
        st.tuples(st.integers(1, 40), partial).map(lambda pair: f"\n{' ' * pair[0]}{{{{>{pair[1]}}}}}\n"),
    )
    return st.lists(piece, max_size=12).map("".join)


@st.composite
def _docroots(draw) -> tuple[str, dict[str, str], int]:
    """A body, up to four partials and an output cap."""
    count = draw(st.integers(0, 4))
    partials = {f"p{index}": draw(_template(index + 1, count)) for index in range(count)}
    return draw(_template(0, count)), partials, draw(st.integers(50, 40_000))


@fuzz(60)
@given(_docroots())
def test_33_6_fuzz_a_template_the_check_passes_never_stops_at_the_cap(case):
    body, partials, cap = case
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render_module, "LARGE_TEMPLATE", 600)  # the share of a large template, at sizes a fast test reaches
        graph = PartialGraph(partials, lambda name: inspect(partials[name]))
        facts = inspect(body)
        indentation = graph.indentation(facts)
        problem = expansion_problem("_commands/c.md", 1, facts, graph.expansion(facts), indentation, cap=cap)
        event(f"the check {'refuses' if problem else 'passes'}")
        try:
            render(body, {}, partials.get, max_output=cap, indentation=indentation.cost)
        except RenderTooLarge:
            event("the render stops at the cap")
            assert problem is not None, f"the check passed, the render stopped at the cap of {cap}"


@pytest.mark.slow  # 60 reads of 1 MB over HTTP in each era: about 20 s
@pytest.mark.parametrize("mode", MODES)
async def test_33_6_sixty_distinct_reads_of_a_1_mb_render_stay_well_under_250_mb(tmp_path, mode):
    (tmp_path / "project").mkdir()
    with capped_server(four_docroot(tmp_path / "docroot", "x"), tmp_path / "project", tmp_path / "server.log") as (url, process):
        async with Client(url, mode=mode) as client:
            await client.read_resource("guide://_four?n=first")
            before = rss(process)
            for index in range(60):  # each read prints its keyword: 60 distinct texts of 1,000,032 characters
                text = (await client.read_resource(f"guide://_four?n={index}"))[0].text
                assert text.endswith(f"x{index}\n") and len(text) == 4 * PARTIAL + len(str(index)) + 1
            held = rss(process) - before
    assert held < HELD, f"60 distinct reads held {held / 1e6:.0f} MB more"
