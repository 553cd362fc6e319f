"""The frontmatter's own value builder (`yaml_loader.construct`) gives what PyYAML's safe loader with Guide's rules gives, error for error."""

import datetime

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from support.fuzzing import fuzz
from yaml.composer import Composer

from guide.docroot.frontmatter import FrontmatterError, load_mapping
from guide.docroot.yaml_loader import CountingLoader, Loader, construct


def both(text: str) -> tuple[object, object]:
    """What the builder and PyYAML's constructor make of `text`: a value, or the error's kind and words."""
    results = []
    for build in (lambda loader, node: construct(loader, node), lambda loader, node: loader.construct_document(node)):
        loader = Loader(text)
        try:
            node = loader.get_single_node()
            results.append(None if node is None else build(loader, node))
        except (yaml.YAMLError, ValueError) as error:
            results.append((type(error).__name__, str(error)))
        finally:
            loader.dispose()
    return results[0], results[1]


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=50), st.dates(),
                    st.sampled_from(["yes", "on", "~", "1e3", "0x1F", "2020-01-01 10:00:00", "'quoted'", "a: b", "- x"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.one_of(st.text(max_size=12), st.integers()),
                                                                                                    inner, max_size=4)), max_leaves=20)
JUNK = st.text(alphabet=st.sampled_from(list("abk: -[]{},!&|>'\"#%@`?<\n\t01.~")), max_size=80)


@given(VALUES, st.sampled_from([None, True, False]))
@fuzz(200)
def test_values_written_out_by_yaml_come_back_the_same_way(value, flow):
    built, pyyaml = both(yaml.safe_dump({"key": value}, default_flow_style=flow, allow_unicode=True))
    assert built == pyyaml and type(built) is type(pyyaml)


@given(JUNK)
@fuzz(300)
def test_any_text_gives_the_same_value_or_the_same_error(text):
    built, pyyaml = both(text)
    assert built == pyyaml and type(built) is type(pyyaml)


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb:\n  c: [1, 2, {d: x}]\n  e: !!str 12\n",
        "a: 1\na: 2\n",  # a key twice
        "a:\n  b: 1\n  b: 2\nc: 1\nc: 2\n",  # twice at two levels: the upper level's is reported, as PyYAML's order finds it
        "a:\n  - {x: 1, x: 2}\nb: 2020-13-45\n",  # a nested repeat and a date that is no date: the date is met first
        "base: &b {x: 1}\n",  # an anchor without an alias
        "m:\n  <<: {x: 1}\n  y: 2\n",  # a merge: built by the loader
        "? [1, 2]\n: x\n",  # a key that cannot be a key
        "a: !!set {x, y}\nb: !!binary aGVsbG8=\nc: !!omap [{x: 1}]\nd: !!float 1\n",
        "a: !!str {x: 1}\n",  # a tag that does not fit its node
        "a: !unknown x\n",
        "when: {on: yes, 1: 2, null: ~, 2.5: x}\n",
        "when: 2020-01-01\nat: 2020-01-01T10:00:00Z\n",
    ],
)
def test_the_cases_pyyaml_builds_its_own_way_come_out_the_same(text):
    built, pyyaml = both(text)
    assert built == pyyaml and type(built) is type(pyyaml)


def test_strings_are_shared_and_values_typed_as_before():
    meta = load_mapping("description: Short one.\nwhen: 2020-01-01\nn: 3\nitems: [a, b]\n")
    assert meta == {"description": "Short one.", "when": datetime.date(2020, 1, 1), "n": 3, "items": ["a", "b"]}
    again = load_mapping("description: Short one.\n")
    assert again["description"] is meta["description"]  # short strings recur in every file: one copy


def test_a_string_tag_on_a_mapping_is_a_frontmatter_error_not_a_crash():
    with pytest.raises(FrontmatterError) as raised:
        load_mapping("a: 1\nb: !!str {x: 1}\n", first_line=2)
    assert raised.value.line == 3 and "expected a scalar node, but found mapping" in str(raised.value)


def test_a_repeated_key_names_its_file_line():
    with pytest.raises(FrontmatterError) as raised:
        load_mapping("a:\n  b: 1\n  b: 2\n", first_line=2)
    assert raised.value.line == 4 and "key 'b' appears twice in one mapping (first on line 3)" in str(raised.value)


def tags(node: yaml.Node | None) -> object:
    """Every node's kind and tag, in the tree's shape."""
    if node is None:
        return None
    if isinstance(node, yaml.ScalarNode):
        return ("scalar", node.tag, node.value)
    if isinstance(node, yaml.SequenceNode):
        return ("seq", node.tag, [tags(item) for item in node.value])
    return ("map", node.tag, [(tags(key), tags(value)) for key, value in node.value])


def composed_by(loader_class: type, text: str) -> object:
    """The tagged tree `loader_class` composes of `text`, or its error's kind and words."""
    try:
        return tags(yaml.compose(text, Loader=loader_class))
    except yaml.YAMLError as error:
        return (type(error).__name__, str(error))


PLAIN = st.one_of(st.text(max_size=30), st.text(alphabet=st.sampled_from(list("0123456789+-._:eExXoObBTtFfNnYy~<=!&* ")), max_size=24),
                  st.sampled_from(["", "~", "null", "Null", "NULL", "true", "True", "TRUE", "yes", "Yes", "off", "ON", "y", "n",
                                   "1_000", "0b101", "0o17", "017", "0x_1F", "190:20:30", "-1.5e+3", ".inf", "-.Inf", ".NaN",
                                   "2001-12-14t21:59:43.10-05:00", "2002-12-14", "<<", "=", "!", "&", "*"]))


@given(PLAIN, st.booleans(), st.booleans())
@fuzz(300)
def test_a_scalar_is_resolved_to_the_tag_pyyaml_resolves(value, plain, quoted_implicit):
    """Guide's resolver keeps PyYAML's rules (libyaml asks it the tag of every node it composes)."""
    implicit = (plain, quoted_implicit)
    assert Loader("").resolve(yaml.ScalarNode, value, implicit) == yaml.SafeLoader("").resolve(yaml.ScalarNode, value, implicit)


def test_lists_and_mappings_are_resolved_as_pyyaml_resolves_them():
    for kind in (yaml.SequenceNode, yaml.MappingNode):
        assert Loader("").resolve(kind, None, (True, False)) == yaml.SafeLoader("").resolve(kind, None, (True, False))


class ComposedInPython(Composer, yaml.CSafeLoader):
    """PyYAML's safe loader over libyaml's events, composed in Python as `CountingLoader` composes."""

    def __init__(self, stream: str):
        yaml.CSafeLoader.__init__(self, stream)
        Composer.__init__(self)


@given(st.one_of(JUNK, VALUES.map(lambda value: yaml.safe_dump({"key": value}, allow_unicode=True))))
@fuzz(300)
def test_a_text_composes_to_the_nodes_and_tags_pyyaml_composes(text):
    """Every node's tag as PyYAML's own resolver makes it, through libyaml's composer and through the counting one."""
    assert composed_by(Loader, text) == composed_by(yaml.CSafeLoader, text)
    assert composed_by(CountingLoader, text) == composed_by(ComposedInPython, text)
