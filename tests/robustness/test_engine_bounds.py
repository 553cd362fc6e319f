"""Issue 25, findings 1, 5 and 6: work done inside the Mustache engine is bounded before the engine does it.

- Sections nested 20,000 deep (a 240 KB command) had cost 2.3 GB in `guide check`,
  which then printed "ok", and on the server's first read: mstache copies each
  section's inner text into its closing token. Guide's own tag scan now refuses
  a template nested past `MAX_NESTING` before the engine sees it.
- A standalone partial indented 3,000 spaces is copied indented (1.5 GB for a
  1 MiB partial) before the output cap counted anything. The indentation is now
  counted against the cap before the copy, and `guide check` counts it.
- Reads with keywords no template prints each kept a new rendered text (about
  5 MB a read here: 60 reads took 103 -> 394 MiB). They now share one.

Servers run in a child process under an address-space ceiling (`robustness.capped`),
so a regression fails instead of taking the machine down.
"""

import os
import resource
import subprocess
import sys

import pytest
from fastmcp import Client
from mcp import MCPError
from support.eras import MODES

from guide.docroot.folder import Docroot
from guide.docroot.lint import report as lint_report
from guide.docroot.memo import Memo
from guide.docroot.store.disk import Store
from guide.errors import GuideError
from guide.forms.step import step
from guide.render import MAX_NESTING, MAX_OUTPUT
from guide.routes.finish import RENDERS, finish
from guide.routes.lookup import AddressRead, resolve
from guide.server.errors import UNEXPECTED
from robustness.capped import CEILING, capped_server, rss
from robustness.hostile import write

LEVELS = 20_000
INDENT = 3_000
PARTIAL_LINES = 500_000
"""An indented partial of this many short lines (1 MB) would be copied to 1.5 GB: past the ceiling on its own."""
HELD = 150 * 1024 * 1024
"""What the server may gain in resident memory over a test's reads (before the fixes: far past the ceiling, or 290 MiB)."""


def nested(levels: int, label: str = "a") -> str:
    return f"{{{{#{label}}}}}\n" * levels + "x\n" + f"{{{{/{label}}}}}\n" * levels


def hostile_docroot(root):
    files = {
        "_commands/deep.md": "---\ndescription: Nested too deeply.\n---\n" + nested(LEVELS),
        "_commands/usesdeep.md": "---\ndescription: Includes a partial nested too deeply.\n---\nIntro.\n{{>deep}}\n",
        "_partials/deep.md": nested(LEVELS, "b"),
        "_commands/wide.md": "---\ndescription: Indents a long partial.\n---\nIntro.\n\n" + " " * INDENT + "{{>long}}\n",
        "_partials/long.md": "a\n" * PARTIAL_LINES,
        "_commands/fine.md": "FINE {{#kwargs.x}}{{kwargs.x}}{{/kwargs.x}}\n",
    }
    for rel, text in files.items():
        write(root / rel, text)
    return root


def capped_check(root) -> subprocess.CompletedProcess:
    """`guide check` in a child process under the address-space ceiling."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CEILING, CEILING))

    return subprocess.run([sys.executable, "-m", "guide", "check", str(root)], capture_output=True, text=True, timeout=300,
                          preexec_fn=limit, env={**os.environ, "GUIDE_NO_CACHE": "1"})


def test_25_1_and_5_guide_check_names_the_file_and_line_of_deep_nesting_and_heavy_indentation(tmp_path):
    checked = capped_check(hostile_docroot(tmp_path / "docroot"))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    depth = MAX_NESTING + 1
    assert f"_commands/deep.md:{4 + MAX_NESTING}: template error: `{{{{#a}}}}` nests sections {depth} deep, past the limit of {MAX_NESTING};" \
        " close some sections first, or move the inner part into a partial" in lines
    assert f"_partials/deep.md:{depth}: template error: `{{{{#b}}}}` nests sections {depth} deep, past the limit of {MAX_NESTING};" \
        " close some sections first, or move the inner part into a partial" in lines
    [wide] = [line for line in lines if line.startswith("_commands/wide.md:")]
    assert wide.startswith("_commands/wide.md:6: `{{>long}}` expands to about ")
    assert f" characters, {2 * PARTIAL_LINES * INDENT:,} of them indentation (built, then printed):" in wide
    assert f"partial long ({PARTIAL_LINES:,} lines) is indented {INDENT:,} spaces, past the output cap of {MAX_OUTPUT:,}" in wide
    assert not [line for line in lines if line.startswith(("_commands/fine.md", "_commands/usesdeep.md"))]


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    base = tmp_path_factory.mktemp("engine")
    (base / "project").mkdir()
    with capped_server(hostile_docroot(base / "docroot"), base / "project", base / "server.log") as (url, process):
        yield url, process, base / "server.log"


async def failure(client, uri: str) -> str:
    with pytest.raises(MCPError) as raised:
        await client.read_resource(uri)
    message = raised.value.error.message
    assert message != UNEXPECTED and "\n" not in message, message
    return message


@pytest.mark.parametrize("mode", MODES)
async def test_25_1_and_5_hostile_reads_fail_in_one_line_and_the_server_serves_on(hostile_server, mode):
    url, process, log = hostile_server
    async with Client(url, mode=mode) as client:
        assert (await client.read_resource("guide://_fine?x=ok"))[0].text.rstrip() == "FINE ok"
        before = rss(process)
        assert await failure(client, "guide://_deep") == (
            f"_commands/deep.md:{4 + MAX_NESTING}: template error: `{{{{#a}}}}` nests sections {MAX_NESTING + 1} deep,"
            f" past the limit of {MAX_NESTING}; close some sections first, or move the inner part into a partial"
        )
        assert await failure(client, "guide://_usesdeep") == (
            f"guide://_usesdeep: partial deep, line {MAX_NESTING + 1}: `{{{{#b}}}}` nests sections {MAX_NESTING + 1} deep,"
            f" past the limit of {MAX_NESTING}; close some sections first, or move the inner part into a partial; guide check names the file"
        )
        assert (await failure(client, "guide://_wide")).startswith(
            f"guide://_wide: rendering stopped at the output cap of {MAX_OUTPUT:,} characters: partial long as indented here would be copied"
        )
        for _ in range(3):  # each read again: nothing was kept that a second read would add to
            await failure(client, "guide://_usesdeep")
            await failure(client, "guide://_wide")
        assert (await client.read_resource("guide://_fine?x=still"))[0].text.rstrip() == "FINE still"
        held = rss(process) - before
    assert process.poll() is None, log.read_text(errors="replace")[-2000:]
    assert held < HELD, f"the server held {held >> 20} MiB more after the hostile reads"


def memo_docroot(root, reads_everything: bool):
    """A command rendering about 990,000 characters (one of them outside Latin-1, so each text is about 4 MB)."""
    prints = "{{#kwargs}}{{.}}{{/kwargs}}" if reads_everything else "{{kwargs.seen}}"
    write(root / "_partials/p.md", "\U0001f600" + "w" * 988 + "\n")
    write(root / "_commands/big.md", "---\ndescription: Big.\n---\n" + "{{>p}}" * 1000 + prints + "\n")
    write(root / "_commands/fine.md", "FINE\n")
    return root


@pytest.mark.parametrize("mode", MODES)
async def test_25_6_reads_with_keywords_no_template_prints_keep_no_new_text(tmp_path, mode):
    (tmp_path / "project").mkdir()
    with capped_server(memo_docroot(tmp_path / "docroot", False), tmp_path / "project", tmp_path / "server.log") as (url, process):
        async with Client(url, mode=mode) as client:
            first = (await client.read_resource("guide://_big"))[0].text
            before = rss(process)
            for index in range(60):
                assert (await client.read_resource(f"guide://_big?unread={index}"))[0].text == first
            assert (await client.read_resource("guide://_big?seen=yes"))[0].text == first[:-1] + "yes\n"
            held = rss(process) - before
    assert held < 60 * 1024 * 1024, f"60 reads with unread keywords held {held >> 20} MiB more"  # before: 291 MiB


@pytest.mark.parametrize("mode", MODES)
async def test_25_6_distinct_renders_are_kept_within_the_memos_size(tmp_path, mode):
    (tmp_path / "project").mkdir()
    with capped_server(memo_docroot(tmp_path / "docroot", True), tmp_path / "project", tmp_path / "server.log") as (url, process):
        async with Client(url, mode=mode) as client:
            await client.read_resource("guide://_big")
            before = rss(process)
            for index in range(60):  # every keyword is printed: each read is a new text, and the memos keep only a few
                assert f"'any': '{index}'" in (await client.read_resource(f"guide://_big?any={index}"))[0].text
            held = rss(process) - before
    assert held < HELD, f"60 distinct renders held {held >> 20} MiB more"  # before: about 290 MiB


def test_25_6_a_memo_keeps_within_its_characters_and_forgets_the_oldest():
    memo = Memo(count=100, characters=1000)
    for key in range(10):
        memo.keep(key, "x" * 300)
    assert memo.size <= 1000 and len(memo) == 3 and [memo.get(key) is not None for key in (6, 7, 8, 9)] == [False, True, True, True]
    assert memo.keep("huge", "y" * 2000) == "y" * 2000 and memo.get("huge") is None  # larger than the whole bound: never kept


def test_25_6_the_render_memo_of_a_build_stays_within_its_characters(tmp_path):
    built = Docroot(memo_docroot(tmp_path / "docroot", True), store=Store(None)).build()
    for index in range(20):
        call = resolve(built, AddressRead(f"guide://_big?any={index}"))
        finish(call, step(call.request(can_elicit=False, active_phase=None)), None)
    memo = built._memos.of(RENDERS)
    assert 0 < len(memo) < 20 and memo.size <= RENDERS.characters


def test_25_1_renders_never_fill_the_engine_s_own_cache_and_guide_s_stays_within_its_size(monkeypatch):
    import mstache

    from guide import compiled
    from guide.render import render

    kept = compiled.CompiledTemplates(max_weight=64 * 1024 * 1024)
    monkeypatch.setattr("guide.render.TEMPLATES", kept)
    before = len(mstache.default_cache)
    for index in range(20):  # 20 distinct templates of 150 KB, each about 6.5 MB once tokenized
        assert render(f"{index}" + "{{#a}}x{{/a}}\n" * 10_000, {"a": False}, {}.get) == f"{index}" + "\n" * 10_000
    assert len(mstache.default_cache) == before
    assert 0 < len(kept) < 20 and kept.weight <= kept.max_weight


def _built(root, files: dict[str, str]):
    for rel, text in files.items():
        write(root / rel, text)
    return Docroot(root, store=Store(None)).build()


def test_25_5_indentation_adds_up_through_the_partials_that_include_each_other(tmp_path):
    built = _built(tmp_path / "docroot", {
        "_commands/c.md": "Intro.\n  {{>a}}\n{{>a}}\n",
        "_partials/a.md": "A\n    {{>b}}\n",
        "_partials/b.md": "B\n" * 10,
        "_partials/loose.md": "    {{>b}}\n",
    })
    indentation = built.indentation("_commands/c.md")
    assert dict(indentation.spaces) == {"a": 2, "b": 6}
    assert indentation.cost("a") == 2 * 2 and indentation.cost("b") == 6 * 10 and indentation.cost("loose") == 0
    assert indentation.size == 2 * (2 * 2) + 2 * (6 * 10)  # each of the two inclusions of a, and b within each
    assert indentation.chain == ("a", "b")


def test_25_5_a_partial_indented_past_the_cap_through_another_stops_the_read_before_the_copy(tmp_path):
    root = tmp_path / "docroot"
    built = _built(root, {
        "_commands/c.md": "---\ndescription: Indents through a partial.\n---\n" + " " * 40 + "{{>a}}\n",
        "_partials/a.md": "A\n" + " " * 60 + "{{>b}}\n",
        "_partials/b.md": "b\n" * 20_000,
    })
    call = resolve(built, AddressRead("guide://_c"))
    with pytest.raises(GuideError) as raised:
        finish(call, step(call.request(can_elicit=False, active_phase=None)), None)
    assert str(raised.value).startswith(f"guide://_c: rendering stopped at the output cap of {MAX_OUTPUT:,} characters: partial b as indented here")
    [problem] = [problem for problem in lint_report(built)[0] if problem.path == "_commands/c.md"]
    assert problem.line == 4 and "partial b (20,000 lines) is indented 100 spaces through partials a -> b" in problem.message


@pytest.mark.parametrize(("body", "partial", "seen"), [
    ("{{kwargs.a}} {{#kwargs.b}}x{{/kwargs.b}}", "", ({"a", "b"}, False)),
    ("{{kwargs.a}}", "{{kwargs.c.d}} {{^kwargs.e}}{{/kwargs.e}}", ({"a", "c", "e"}, False)),
    ("{{#kwargs.tags}}{{.}}{{/kwargs.tags}} {{#args}}{{.}}{{/args}}", "", ({"tags"}, True)),
    ("{{kwargs.a}}", "{{#kwargs}}{{.}}{{/kwargs}}", (None, True)),
    ("{{.}}", "", (None, True)),
    ("{{=<% %>=}}<% kwargs.a %>", "<% kwargs.b %>", ({"a"}, False)),
])
def test_25_6_the_render_memo_is_keyed_by_what_the_templates_can_print(tmp_path, body, partial, seen):
    from guide.routes.finish import sight

    built = _built(tmp_path / "docroot", {"_commands/c.md": body + "\n{{>p}}\n", "_partials/p.md": partial + "\n"})
    found = sight(resolve(built, AddressRead("guide://_c")))
    assert (None if found.keywords is None else set(found.keywords), found.args) == seen


async def test_25_a_partial_with_a_syntax_error_fails_a_read_in_one_line(tmp_path, connect):
    # Found by the template fuzzing: the engine's exception had escaped as "Guide failed unexpectedly".
    root = tmp_path / "docroot"
    for rel, text in {"_commands/c.md": "Hi {{>p}}\n", "_partials/p.md": "{{\n", "_commands/fine.md": "FINE\n"}.items():
        write(root / rel, text)
    async with connect(root) as client:
        assert await failure(client, "guide://_c") == "guide://_c: partial p, line 1: Unclosed token '{{'; guide check names the file"
        assert (await client.read_resource("guide://_fine"))[0].text.strip() == "FINE"


def test_25_a_large_partial_that_prints_nothing_is_tokenized_a_bounded_number_of_times(monkeypatch):
    import mstache

    from guide.render import TEXT_SHARE, RenderTooLarge, render

    tokenized = []
    real = mstache.tokenize
    monkeypatch.setattr(mstache, "tokenize", lambda *args, **options: tokenized.append(1) or real(*args, **options))
    big = "{{#no}}" + "{{a}}" * 60_000 + "{{/no}}"  # 300 KB and 60,000 tokens: about 10 MB tokenized, too heavy to keep
    with pytest.raises(RenderTooLarge):
        render("{{>big}}" * 1000, {}, {"big": big}.get, name="guide://_c")
    assert len(tokenized) <= 2 + MAX_OUTPUT // (len(big) // TEXT_SHARE)  # not once per inclusion: 1,000 would take minutes
