"""Issue 19, finding 1: rendered output is capped while it is rendered, and `guide check` finds a partial bomb.

Partials p0..p6 that each include the next ten times, and p7 of ten characters,
would render 10^8 characters (80 s and 1.2 GB before the cap). A read of such a
command now stops at the output cap (`guide.render.MAX_OUTPUT`) with one line
naming the command and the cap; the server goes on serving. The timeouts below
are only a safety net: nothing here measures speed.
"""

import asyncio
import json
import tracemalloc

import pytest
from mcp import MCPError

from guide.cli import main
from guide.docroot.folder import Docroot
from guide.docroot.partials import COUNTED
from guide.errors import GuideError
from guide.forms.step import step
from guide.render import MAX_OUTPUT, RenderTooLarge, render
from guide.routes.finish import finish
from guide.routes.lookup import AddressRead, resolve
from robustness.hostile import write

SAFETY = 120
"""Seconds a capped read may take at most before the test gives up (it takes well under one)."""
LEVELS = 8
CAPPED = f"rendering stopped at the output cap of {MAX_OUTPUT:,} characters (lookups, loops and partials count too)"


def bomb_partials(levels: int = LEVELS, leaf: str = "0123456789") -> dict[str, str]:
    """Partials p0..p{levels-1}: each includes the next ten times; the last is `leaf`."""
    partials = {f"p{level}": "".join(f"{{{{>p{level + 1}}}}}" for _ in range(10)) for level in range(levels - 1)}
    partials[f"p{levels - 1}"] = leaf
    return partials


def bomb_docroot(root, levels: int = LEVELS, leaf: str = "0123456789", **more: str):
    files = {"_commands/bomb.md": "---\ndescription: Expands to a lot.\n---\nIntro.\n\n{{>p0}}\n", "_commands/fine.md": "FINE\n", **more}
    files.update({f"_partials/{name}.md": text for name, text in bomb_partials(levels, leaf).items()})
    for rel, text in files.items():
        write(root / rel, text)
    return root


def read_directly(root, uri: str) -> str:
    """Resolve and render `uri` as the server does, without a client."""
    found = resolve(Docroot(root).build(), AddressRead(uri))
    if isinstance(found, str):
        return found
    return finish(found, step(found.request(can_elicit=False, active_phase=None)), None)


async def test_19_1_a_render_bomb_fails_fast_and_the_server_stays_up(tmp_path, connect):
    root = bomb_docroot(tmp_path / "docroot")
    async with connect(root) as client:
        with pytest.raises(MCPError) as raised:
            await asyncio.wait_for(client.read_resource("guide://_bomb"), SAFETY)
        assert raised.value.error.message == f"guide://_bomb: {CAPPED}"
        [content] = await asyncio.wait_for(client.read_resource("guide://_fine"), SAFETY)
        assert content.text == "FINE\n"


def test_19_1_a_capped_render_holds_about_the_cap_in_memory():
    partials = bomb_partials()
    tracemalloc.start()
    try:
        with pytest.raises(RenderTooLarge) as raised:
            render("{{>p0}}", {}, partials.get, name="guide://_bomb")
        assert str(raised.value) == f"guide://_bomb: {CAPPED}"
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * MAX_OUTPUT, f"peak {peak:,} bytes"  # measured 3.6 times the cap; the whole 10^8 characters would be 100 times


@pytest.mark.parametrize("leaf", ["", "{{kwargs.nothing}}"], ids=["empty", "silent-lookup"])
def test_19_1_a_bomb_that_prints_nothing_is_stopped_by_its_work(leaf):
    # The same expansion renders no text at all: the lookups and inclusions it makes count against the cap.
    with pytest.raises(RenderTooLarge) as raised:
        render("{{>p0}}", {}, bomb_partials(leaf=leaf).get, name="guide://_bomb")
    assert str(raised.value) == f"guide://_bomb: {CAPPED}"


@pytest.mark.parametrize(
    "body",
    [
        "{{#kwargs.items}}{{#kwargs.items}}{{.}},{{/kwargs.items}}{{/kwargs.items}}",
        "{{#kwargs.items}}{{#kwargs.items}}{{#kwargs.items}}{{/kwargs.items}}{{/kwargs.items}}{{/kwargs.items}}",
    ],
    ids=["printing", "silent"],
)
def test_19_1_a_list_default_with_thousands_of_entries_looped_over_is_bounded(tmp_path, body):
    values = [f"v{number}" for number in range(3000)]
    head = (
        "---\ndescription: Loops.\nelicitation:\n  pick:\n    message: Pick.\n    schema:\n      type: object\n      properties:\n"
        f"        items: {{type: array, items: {{type: string, enum: {json.dumps(values)}}}, default: {json.dumps(values)}}}\n---\n"
    )
    write(tmp_path / "_commands/loops.md", head + body + "\n")
    with pytest.raises(RenderTooLarge) as raised:
        read_directly(tmp_path, "guide://_loops")
    assert str(raised.value) == f"guide://_loops: {CAPPED}"


def test_19_1_a_render_under_the_cap_is_whole_and_the_cap_is_a_parameter():
    partials = bomb_partials(levels=4, leaf="ab")  # 1,111 inclusions, 2,000 characters
    assert render("{{>p0}}", {}, partials.get) == "ab" * 1000
    assert render("{{>p0}}", {}, partials.get, max_output=2000 + 1111 * 8) == "ab" * 1000
    with pytest.raises(RenderTooLarge, match="guide://_small: rendering stopped at the output cap of 10,000 characters"):
        render("{{>p0}}", {}, partials.get, name="guide://_small", max_output=10_000)


def test_19_1_check_reports_the_partial_expansion_and_its_chain(tmp_path, capsys):
    root = bomb_docroot(tmp_path)
    assert main(["check", str(root), "--format", "json"]) == 1
    [error] = json.loads(capsys.readouterr().out)["errors"]
    chain = " -> ".join(f"p{level}" for level in range(LEVELS))
    assert (error["path"], error["line"]) == ("_commands/bomb.md", 6)
    assert error["message"] == (
        f"`{{{{>p0}}}}` expands to about {10**8 + 9 + 8 * 11_111_111:,} characters through partials {chain}, past the output cap of {MAX_OUTPUT:,},"
        f" so every read would stop there ({COUNTED}); include fewer partials, or each fewer times"
    )


def test_19_1_check_is_silent_below_the_cap_and_counts_without_rendering(tmp_path, capsys):
    bomb_docroot(tmp_path / "small", levels=5)  # 10^4 x 10 characters: under the cap
    assert main(["check", str(tmp_path / "small"), "--strict"]) == 0, capsys.readouterr().out
    bomb_docroot(tmp_path / "huge", levels=40)  # 10^40 characters: counted, never rendered
    assert main(["check", str(tmp_path / "huge")]) == 1
    assert "expands to about 1" in capsys.readouterr().out


def test_19_1_a_bomb_read_by_guide_render_is_one_line(tmp_path, capsys):
    root = bomb_docroot(tmp_path)
    assert main(["render", "guide://_bomb", "--docroot", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"guide render: guide://_bomb: {CAPPED}"
    assert issubclass(RenderTooLarge, GuideError)
