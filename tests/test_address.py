"""C3: every guide:// address is parsed and formatted by one module, and the two are inverses."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guide import address
from guide.address import Target
from guide.errors import InputError, NotFoundError

# Text with the characters that need quoting in an address: separators, percent signs, spaces, non-ASCII.
TRICKY = st.text(alphabet=st.sampled_from(list("ab/%&=?#+ é字-_.~$:")), min_size=1, max_size=12)
# `.` and `..` are left out: no URL can carry them as segments (normalising removes them).
SEGMENT = TRICKY.filter(lambda text: text.strip("/") == text and "/" not in text and text not in (".", ".."))
NAME = st.from_regex(r"[a-z0-9]+(-[a-z0-9]+)*", fullmatch=True).filter(lambda name: name != "help")
KEYWORDS = st.dictionaries(TRICKY.filter(lambda name: name != "help"), st.lists(st.text(max_size=8), min_size=1, max_size=3).map(tuple), max_size=3)


@settings(max_examples=300)
@given(name=st.lists(NAME, min_size=1, max_size=3), args=st.lists(SEGMENT, max_size=3), keywords=KEYWORDS, wants_help=st.booleans())
def test_c3_command_address_round_trips(name, args, keywords, wants_help):
    target = Target("command", (*name, *args), keywords, wants_help)
    assert address.parse(address.format(target)) == target


@settings(max_examples=200)
@given(name=NAME, keywords=KEYWORDS, wants_help=st.booleans())
def test_c3_skill_address_round_trips(name, keywords, wants_help):
    target = Target("skill", (name,), keywords, wants_help)
    assert address.parse(address.format(target)) == target


@settings(max_examples=200)
@given(skill=NAME, member=st.lists(SEGMENT, min_size=1, max_size=3).map("/".join))
def test_c3_member_address_round_trips(skill, member):
    target = Target("member", (skill, member))
    assert address.parse(address.format(target)) == target


@settings(max_examples=200)
@given(path=st.lists(SEGMENT.filter(lambda s: s[0] not in "_$"), min_size=1, max_size=3).map("/".join))
def test_c3_document_address_round_trips(path):
    target = Target("document", (path,))
    assert address.parse(address.format(target)) == target


@settings(max_examples=200)
@given(path=st.lists(SEGMENT.filter(lambda s: s[0] not in "_$@"), min_size=1, max_size=3).map("/".join))
def test_a_folder_address_round_trips_with_its_trailing_slash(path):
    target = Target("folder", (path,))
    assert address.format(target).endswith("/")
    assert address.parse(address.format(target)) == target


@given(name=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,20}", fullmatch=True))
def test_a_collection_address_round_trips_and_survives_normalisation(name):
    target = Target("collection", (name,))
    written = address.format(target)
    assert written == f"guide://%40{name}" and address.normal(written) == written  # what a client sends is what it was given
    assert address.parse(written) == target


def test_an_at_sign_after_the_scheme_is_dropped_by_normalisation_on_every_route():
    assert address.normal("guide://@guidelines") == "guide://guidelines"  # why the listing writes %40
    assert address.parse("guide://@guidelines") == address.parse("guide://guidelines") == Target("document", ("guidelines",))


@given(command=st.lists(NAME, max_size=2))
def test_c3_help_address_round_trips(command):
    target = Target("help", tuple(command))
    assert address.parse(address.format(target)) == target


def test_c3_builders_write_the_documented_addresses():
    assert address.command_address("review") == "guide://_review"
    assert address.command_address("workflow/phase", ["planning"]) == "guide://_workflow/phase/planning"
    assert address.command_address("review", ["feature/x"], {"mode": ("branch",)}) == "guide://_review/feature%2Fx?mode=branch"
    assert address.skill_address("workflow-review", {"mode": ("phase",)}) == "guide://$workflow-review?mode=phase"
    assert address.member_address("workflow-review", "checklist.md") == "guide://$workflow-review/checklist.md"
    assert address.document_address("lang/python") == "guide://lang/python"
    assert address.folder_address("lang") == address.folder_address("lang/") == "guide://lang/"
    assert address.collection_address("guidelines") == "guide://%40guidelines"
    assert address.help_address() == "guide://_help" and address.help_address("review") == "guide://_help/review"
    assert address.template("guide://_review", ["mode", "reference"]) == "guide://_review{?mode,reference}"
    assert address.address_of_template("guide://$workflow-review{?mode}") == "guide://$workflow-review"


def test_c3_keywords_keep_ampersands_equals_spaces_and_non_ascii():
    keywords = {"note": ("a&b=c d",), "naïve": ("日本",)}
    uri = address.command_address("review", keywords=keywords)
    assert "&b" not in uri and " " not in uri
    assert address.parse(uri).keywords == keywords


def test_c3_prompt_names_and_routes():
    assert address.prompt_name("workflow/phase") == "workflow.phase"
    assert address.command_of_prompt("workflow.phase") == "workflow/phase"
    assert [address.prompt_route("review", typed) for typed in ("", ":re", ";", "_r")] == ["_review", ":review", ";review", "_review"]
    route = address.parse_prompt(":workflow/phase --to=review extra")
    assert route == address.PromptRoute(("workflow", "phase"), ("--to=review", "extra"))


@pytest.mark.parametrize("uri", ["http://example.com/x", "guide://_", "guide://", "guide://@", "guide://%40/"])
def test_c3_addresses_that_name_nothing(uri):
    with pytest.raises(NotFoundError):
        address.parse(uri)


@pytest.mark.parametrize("line", ["", "review", "_", "'unclosed"])
def test_c3_prompt_lines_that_name_no_command(line):
    with pytest.raises(InputError):
        address.parse_prompt(line)


@pytest.mark.parametrize(
    ("tokens", "keywords", "args"),
    [
        (["--severity", "sev2", "--ticket", "INC-2222"], {"severity": ("sev2",), "ticket": ("INC-2222",)}, []),
        (["--severity=sev2", "rest"], {"severity": ("sev2",)}, ["rest"]),
        (["--urgent", "INC-1"], {"urgent": ("true",)}, ["INC-1"]),
        (["--no-urgent"], {"urgent": ("false",)}, []),
        (["--extra", "x"], {"extra": ("true",)}, ["x"]),
        (["--label", "--odd"], {"label": ("--odd",)}, []),
    ],
)
def test_c3_flags_of_fields_that_take_a_value_take_the_next_token(tokens, keywords, args):
    found, positional, wants_help = address.read_flags(tokens, argrequired=["label"], valued=["severity", "ticket"])
    assert (found, positional, wants_help) == (keywords, args, False)


@pytest.mark.parametrize("tokens", [["--severity"], ["--severity", "--ticket=INC-1"]])
def test_c3_a_valued_flag_without_its_value_says_how_to_write_it(tokens):
    with pytest.raises(InputError, match="flag --severity needs a value: write --severity=VALUE"):
        address.read_flags(tokens, valued=["severity"])
