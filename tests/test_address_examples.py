"""C3, C7.6: skill-file addresses round-trip, and example addresses with placeholders are written by the address module."""

from hypothesis import given, settings
from hypothesis import strategies as st

from guide import address
from guide.address import Target

NAME = st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True)
KEYWORDS = st.dictionaries(st.text(alphabet="ab&=?% é", min_size=1, max_size=6).filter(lambda k: k != "help"), st.lists(st.text(max_size=6), min_size=1, max_size=2).map(tuple), max_size=3)


@settings(max_examples=200)
@given(name=NAME, keywords=KEYWORDS)
def test_c3_skill_file_address_round_trips(name, keywords):
    target = Target("skill", (name,), keywords, skill_file=True)
    assert address.format(target).startswith(f"skill://{name}/SKILL.md")
    assert address.parse(address.format(target)) == target


def test_c7_6_placeholders_list_the_choices_quoted_or_name_the_type():
    assert address.placeholder(["uncommitted", "branch", "pull-request"], "string") == "<uncommitted|branch|pull-request>"
    assert address.placeholder(["a b", "c&d"], "string") == "<a%20b|c%26d>"
    assert address.placeholder(None, "integer") == "<integer>"


def test_c7_6_an_example_keeps_args_and_keywords_quoted_and_leaves_blanks_as_written():
    example = address.example("guide://_workflow/phase", ["x/y"], {"note": ("a&b",)}, {"to": "<plan|build>"})
    assert example == "guide://_workflow/phase/x%2Fy?note=a%26b&to=<plan|build>"
    assert address.example("guide://$triage") == "guide://$triage"
    filled = address.parse(example.replace("<plan|build>", "plan"))
    assert filled == Target("command", ("workflow", "phase", "x/y"), {"note": ("a&b",), "to": ("plan",)})
