"""C5/C6: the near-miss rule that names what a misspelt key or keyword resembles."""

import pytest

from guide.spelling import edits, is_near_miss, near_miss


@pytest.mark.parametrize(
    "name, known",
    [
        ("Elicitation", "elicitation"),  # case only
        ("elicitaton", "elicitation"),  # delete
        ("elicitatoin", "elicitation"),  # swap
        ("elicitationn", "elicitation"),  # insert
        ("severty", "severity"),  # delete
        ("sevirity", "severity"),  # replace
        ("descripton", "description"),
        ("mesage", "message"),
        ("requires", "required"),  # two long names, one replace
        ("propertes", "properties"),
        ("fallbak", "fallback"),
        ("inclues", "includes"),
        ("descriptoin", "description"),
        ("messag", "message"),
        ("elictaton", "elicitation"),  # two edits, both long
        ("tpye", "type"),  # swap in a short name
    ],
)
def test_near_misses(name, known):
    assert is_near_miss(name, known)


@pytest.mark.parametrize(
    "name, known",
    [
        ("title", "type"),  # short names two edits apart are strangers
        ("tags", "args"),  # two edits, and short
        ("version", "description"),
        ("owner", "when"),
        ("xyz", "schema"),
        ("elicitation", "elicitation"),  # the same name is not a miss
    ],
)
def test_strangers(name, known):
    assert not is_near_miss(name, known)


def test_one_edit_is_near_however_short():
    assert is_near_miss("id", "if")


def test_edits_counts_a_swap_as_one():
    assert edits("ab", "ba") == 1
    assert edits("abcdef", "abcdfe") == 1
    assert edits("kitten", "sitting", limit=5) == 3


def test_near_miss_picks_the_closest_then_alphabetical():
    assert near_miss("bat", ["cat", "bar", "ticket"]) == "bar"  # both one edit: alphabetical
    assert near_miss("ticekt", ["ticket", "tickets"]) == "ticket"
    assert near_miss("title", ["type", "message", "schema"]) is None
    assert near_miss("Mode", ["mode", "node"]) == "mode"  # case-only wins over one edit
