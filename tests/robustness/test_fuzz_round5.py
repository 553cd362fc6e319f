"""Issue 33: fuzzing what round 5's findings let in. No input crashes Guide, none is an internal error, and memory stays bounded.

- Patterns built of nested counted repeats, look-arounds, classes, alternations,
  back-references and syntax only `regex` reads, plus junk: each compiles within
  the expansion bound (and checks values within its time budget) or is refused
  with one short line; read through a real client in both eras, it renders or
  fails with an authoring line, never "Guide failed unexpectedly".
- Source values of every length and character: what a source offers stays
  within its bounds whatever it is given, git's output is cut the same way however
  it arrives, and real files and real `packed-refs` give a bounded tuple or one line.
- Log fields: any text in any argument of any record, and in an exception's
  message, is written on one short line; a traceback's lines are indented.

The default run takes a few cases of each; `python -m bench.probes.fuzz_round5`
runs over 100,000 under an address-space ceiling and reports the peak memory.
"""

import time

from hypothesis import event, given
from hypothesis import strategies as st
from mcp import MCPError
from support.fuzzing import fuzz
from support.gitrepo import git, make_repo
from support.logs import written

from guide.forms.keywords import DeclarationError, PatternTimeout, compile_pattern, needs_budget, request_budget
from guide.forms.pattern_size import PATTERN_EXPANSION_LIMIT, expanded_size
from guide.forms.sources import FILES, GIT_BRANCHES, MAX_CHOICE_LENGTH, MAX_CHOICES, MAX_OFFERED, Source, Unreadable, within_bounds
from guide.project.sources import LINE_BYTES, _Lines, read_source
from guide.server.errors import UNEXPECTED
from guide.server.logs import LOG_LINE_LENGTH
from robustness.hostile import write

MESSAGE_LIMIT = 400
"""An authoring line about a pattern stays within this many characters, whatever the pattern."""

# ---------------------------------------------------------------- patterns

ATOMS = st.one_of(
    st.sampled_from(["a", "b", ".", r"\d", r"\w", r"\s", "[a-z]", "[^0-9]", "[ab-]", r"\p{L}", r"\N{LATIN SMALL LETTER A}", "é", "\u4e16",
                     r"\b", "^", "$", r"\1", "(?i:a)", r"\x41"]),
    st.characters(blacklist_categories=("Cs",)).map(lambda char: "\\" + char if char in "()[]{}?*+|\\^$." else char),
)
COUNTS = st.one_of(st.integers(0, 12), st.integers(0, 5000), st.sampled_from([99, 100, 316, 317, 999, 1000, 1001, 100_000, 10**9]))


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    repeat = st.tuples(inner, COUNTS, st.sampled_from(["", "+", "?"])).map(lambda part: f"(?:{part[0]}){{{part[1]}}}{part[2]}")
    ranged = st.tuples(inner, COUNTS, COUNTS).map(lambda part: f"(?:{part[0]}){{{min(part[1:])},{max(part[1:])}}}")
    star = st.tuples(inner, st.sampled_from(["*", "+", "?", "*?", "++", "{3,}"])).map("".join)
    around = st.tuples(st.sampled_from(["(?=", "(?!", "(?<=", "(?<!", "(?>", "(", "(?:", "(?P<g>"]), inner).map(lambda part: f"{part[0]}{part[1]})")
    either = st.tuples(inner, inner).map(lambda pair: f"(?:{pair[0]}|{pair[1]})")
    both = st.tuples(inner, inner).map("".join)
    return repeat | ranged | star | around | either | both


PATTERNS = st.one_of(
    st.recursive(ATOMS, _extend, max_leaves=10).flatmap(lambda body: st.sampled_from([body, "(?<=x)" + body, body + r"(?=\d)"])),
    st.text(alphabet="ab(){}[]?*+|\\^$.-,0123456789<=!:PLp", max_size=40),
)


def _values(pattern: str) -> list[str]:
    return ["", "a", "x" + "a" * 30, "ab" * 20 + "!", "1", "é\u4e16", pattern[:60]]


@fuzz(60)
@given(PATTERNS)
def test_fuzz_33_a_pattern_compiles_within_the_bound_or_is_refused_in_one_line(pattern):
    try:
        matcher = compile_pattern(pattern)
    except DeclarationError as error:
        message = str(error)
        event("refused: " + ("repeats too much" if "repeats too much" in message else "not valid"))
        assert "\n" not in message and len(message) < MESSAGE_LIMIT, message
        return
    event("backtracking" if needs_budget(matcher) else "RE2")
    if needs_budget(matcher):
        assert expanded_size(pattern) <= PATTERN_EXPANSION_LIMIT
    with request_budget(time.monotonic, seconds=0.2):
        for value in _values(pattern):
            try:
                matcher.fullmatch(value)
            except PatternTimeout:
                event("a value took its time budget")


@fuzz(4)
@given(PATTERNS)
async def test_fuzz_33_a_read_of_a_pattern_renders_or_fails_in_one_line(tmp_path, connect, pattern):
    quoted = pattern.replace("'", "''")
    write(tmp_path / "p" / "_commands/p.md", "---\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema:\n      type: object\n"
          f"      properties:\n        x: {{type: string, pattern: '{quoted}'}}\n---\nP {{{{kwargs.x}}}}\n")
    async with connect(tmp_path / "p") as client:
        for uri in ("guide://_p?x=a", "guide://_p?x=xaaaa"):
            try:
                text = (await client.read_resource(uri))[0].text
            except MCPError as error:
                message = error.error.message
                assert message != UNEXPECTED and "\n" not in message and len(message) < 2 * MESSAGE_LIMIT, message
                event("refused: the pattern" if message.startswith("_commands/p.md") else "refused: the value")
            else:
                assert text.startswith("P ")
                event("rendered")


# ---------------------------------------------------------------- source values

NAMES = st.one_of(
    st.text(min_size=1, max_size=40),
    st.integers(MAX_CHOICE_LENGTH - 2, MAX_CHOICE_LENGTH + 2).map(lambda n: "n" * n),
    st.tuples(st.characters(blacklist_categories=("Cs",)), st.integers(1, 5000)).map(lambda pair: pair[0] * pair[1]),
)


@fuzz(100)
@given(st.lists(NAMES, max_size=150), st.integers(1, MAX_CHOICES))
def test_fuzz_33_what_a_source_offers_stays_within_its_bounds(names, count):
    ordered = sorted(set(names))
    offered = within_bounds(ordered, count)
    assert len(offered.values) <= count and sum(map(len, offered.values)) <= MAX_OFFERED
    assert all(len(value) <= MAX_CHOICE_LENGTH for value in offered.values)
    assert list(offered.values) == [value for value in ordered if value in offered.values]  # in order, nothing made up
    left = offered.too_long + offered.past_total
    assert (offered.note() is None) == (left == 0) and (offered.note() or "").count("\n") == 0


@fuzz(100)
@given(st.lists(st.binary(max_size=6000), max_size=30), st.data())
def test_fuzz_33_git_output_is_cut_line_by_line_however_it_arrives(lines, data):
    output = b"\n".join(lines)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(output)), max_size=8)))
    reader = _Lines(LINE_BYTES)
    for start, end in zip([0, *cuts], [*cuts, len(output)], strict=True):
        reader.feed(output[start:end])
    assert reader.text() == b"\n".join(line[:LINE_BYTES] for line in lines)


FILE_NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=60).filter(
    lambda name: name not in (".", "..") and len(name.encode()) <= 255
)


@fuzz(10)
@given(st.lists(st.tuples(st.integers(0, 4), FILE_NAMES), min_size=1, max_size=12))
def test_fuzz_33_file_names_of_every_length_and_character_give_a_bounded_tuple_or_one_line(tmp_path_factory, files):
    project = tmp_path_factory.mktemp("files")
    for depth, name in files:
        folder = project.joinpath("d", *["f" * 200] * depth)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"x")
    _bounded(read_source(Source(FILES, "d/**"), project))


REF_NAMES = st.one_of(
    st.text(st.characters(min_codepoint=0x21, blacklist_characters=" ~^:?*[\\\x7f", blacklist_categories=("Cs",)), min_size=1, max_size=30),
    st.integers(MAX_CHOICE_LENGTH - 20, 300_000).map(lambda n: "n" * n),
)


@fuzz(5)
@given(st.lists(REF_NAMES, min_size=1, max_size=8))
def test_fuzz_33_branch_names_of_every_length_in_packed_refs_give_a_bounded_tuple_or_one_line(tmp_path_factory, names):
    repo = make_repo(tmp_path_factory.mktemp("refs"))
    head = git(repo, "rev-parse", "HEAD").strip()
    lines = "".join(f"{head} refs/heads/{name}\n" for name in sorted(set(names)) if "\n" not in name)
    (repo / ".git" / "packed-refs").write_text(lines, encoding="utf-8", errors="surrogateescape")
    _bounded(read_source(Source(GIT_BRANCHES), repo))
    _bounded(read_source(Source(GIT_BRANCHES), repo, wanted=tuple(names[:3])))


def _bounded(found) -> None:
    """A source's answer: one short line, or values within every bound."""
    if isinstance(found, Unreadable):
        event("unreadable")
        assert "\n" not in found.message and len(found.message) < 500, found.message
        return
    event("offered")
    assert len(found) <= MAX_CHOICES + 3 and all(len(value) <= MAX_CHOICE_LENGTH for value in found)
    assert sum(map(len, found)) <= MAX_OFFERED + 3 * MAX_CHOICE_LENGTH


# ---------------------------------------------------------------- log fields

FIELDS = st.one_of(
    st.text(),
    st.text(alphabet="\n\r\x0b\x0c\x1b\x85\u2028\u2029\u202e\u2066\t2026-01-01 INFO", max_size=50),
    st.integers(0, 20_000).map(lambda n: "2026-01-01 00:00:00,000 INFO forged\n" * (n // 36 + 1)),
)


def _written(emit) -> list[str]:
    return written(emit).splitlines()


@fuzz(100)
@given(st.lists(FIELDS, min_size=1, max_size=4))
def test_fuzz_33_any_logged_value_is_one_short_line(fields):
    [line] = _written(lambda logger: logger.info(" ".join(["%s"] * len(fields)), *fields))
    assert len(line) <= 6 * LOG_LINE_LENGTH + 100  # each kept character escaped at worst
    assert not any(char in line for char in "\x1b\u202e\u2066\x85")


@fuzz(50)
@given(FIELDS, FIELDS)
def test_fuzz_33_a_traceback_never_starts_a_line_of_its_own(message, argument):
    def emit(logger):
        try:
            raise ValueError(message)
        except ValueError:
            logger.exception("failed on %s", argument)

    first, *rest = _written(emit)
    assert len(first) <= 6 * LOG_LINE_LENGTH + 100
    assert all(line.startswith("    ") for line in rest)
