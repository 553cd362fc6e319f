"""A pattern whose nested counted repeats would expand past `PATTERN_EXPANSION_LIMIT` is refused before `regex` compiles it (issue 33, finding 1)."""

import gc
import subprocess
import sys
import textwrap
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

from guide.forms.keywords import DeclarationError, compile_pattern
from guide.forms.pattern_size import PATTERN_EXPANSION_LIMIT, expanded_size

NESTED = "(?<=x)(?:(?:(?:a{1000}){1000}){1000})"  # a look-behind: RE2 refuses it, so only `regex` would compile it

CHECK = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))
    from guide.cli import main
    code = main(["check", sys.argv[1]])
    print("peak", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, "MB")
    sys.exit(code)
    """
)


def test_guide_check_refuses_the_nested_repeat_in_one_line_and_stays_small(tmp_path):
    (tmp_path / "_commands").mkdir()
    (tmp_path / "_commands" / "pm.md").write_text(
        "---\ndescription: d\nelicitation:\n  f:\n    message: M.\n    schema:\n      type: object\n      properties:\n"
        f"        x: {{type: string, pattern: '{NESTED}'}}\n---\nb\n"
    )
    done = subprocess.run([sys.executable, "-c", CHECK, str(tmp_path)], capture_output=True, text=True, timeout=120)
    errors = [line for line in done.stdout.splitlines() if "repeats too much" in line]
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(errors) == 1 and "_commands/pm.md:" in errors[0], done.stdout
    assert "more than 100,000 characters" in errors[0]
    assert int(done.stdout.split("peak ")[1].split()[0]) < 400


def test_the_limit_refuses_only_what_expands_past_it():
    assert expanded_size("(?<=x)(?:a{100}){100}") < PATTERN_EXPANSION_LIMIT
    compile_pattern("(?<=x)(?:a{100}){100}")
    for pattern in (NESTED, "(?<=x)(?:a{1000}){1000}", r"\p{L}{1000}(?:b{1000})"):
        try:
            compile_pattern(pattern)
        except DeclarationError as error:
            assert "repeats too much" in str(error) and "\n" not in str(error)
        else:
            raise AssertionError(pattern)


def _patterns() -> st.SearchStrategy[tuple[str, int]]:
    """Patterns built of atoms, classes, look-arounds and nested counted repeats, each with its true expanded size."""
    atoms = st.sampled_from([("a", 1), ("[a-z]", 1), (r"\d", 1), (".", 1)])

    def extend(inner: st.SearchStrategy[tuple[str, int]]) -> st.SearchStrategy[tuple[str, int]]:
        repeat = st.tuples(inner, st.integers(0, 2000)).map(lambda pair: (f"(?:{pair[0][0]}){{{pair[1]}}}", max(1, pair[1]) * pair[0][1]))
        ahead = inner.map(lambda part: (f"(?={part[0]})", part[1]))
        both = st.tuples(inner, inner).map(lambda pair: (pair[0][0] + pair[1][0], pair[0][1] + pair[1][1]))
        return repeat | ahead | both

    return st.recursive(atoms, extend, max_leaves=8).map(lambda part: ("(?<=x)" + part[0], part[1] + 1))


@settings(max_examples=150, deadline=None)
@given(_patterns())
def test_the_check_never_crashes_and_never_lets_a_large_pattern_through(case):
    pattern, size = case
    assert expanded_size(pattern) >= size
    try:
        compile_pattern(pattern)
    except DeclarationError as error:
        assert "repeats too much" in str(error)
        return
    assert size <= PATTERN_EXPANSION_LIMIT


def test_compiled_patterns_are_held_only_by_their_forms():
    """A pattern near the bound compiles to megabytes: regex's own cache (500 patterns) kept those of every build an edit replaced."""
    tracemalloc.start()
    try:
        for count in range(300, 310):  # ten distinct patterns of about 90,000 units, none kept here
            compile_pattern(f"(?<=x)(?:(?:[a-z]{{300}}){{{count}}})")
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 20 * 1024 * 1024, f"{held:,} bytes still held"  # before: about 130 MB
