"""What YAML's safe loader produces survives the parse cache's JSON encoding unchanged (issue 11)."""

import datetime
import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support.files import same

from guide.docroot import yaml_codec
from guide.docroot.frontmatter import load_mapping

# The safe loader gives a datetime a fixed offset (or none), never a named zone.
FIXED_OFFSETS = st.integers(-14 * 60, 14 * 60).map(lambda minutes: datetime.timezone(datetime.timedelta(minutes=minutes)))


def round_trip(value):
    return yaml_codec.decode(json.loads(json.dumps(yaml_codec.encode(value, 10_000))))


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20), st.binary(max_size=20),
    st.dates(), st.datetimes(timezones=st.one_of(st.none(), FIXED_OFFSETS)),
)
keys = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.dates(), st.just("!"))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4), st.tuples(inner, inner),
        st.frozensets(st.one_of(st.text(max_size=5), st.integers()), max_size=4).map(set),
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_any_safe_value_round_trips(value):
    assert same(round_trip(value), value)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20), st.dates()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=20)))
def test_what_the_loader_reads_from_dumped_yaml_round_trips(mapping):
    loaded = load_mapping(yaml.safe_dump(mapping))
    assert same(round_trip(dict(loaded)), dict(loaded))


def test_every_safe_yaml_type_round_trips():
    loaded = load_mapping("""
due: 2026-09-30
at: 2026-09-30 12:30:00.25+05:30
utc: 2026-09-30T12:30:00Z
blob: !!binary aGVsbG8=
tags: !!set {a, b}
ordered: !!omap [{x: 1}, {y: 2}]
pairs: !!pairs [{x: 1}, {x: 2}]
keys: {2: one, 2.5: two, true: yes, null: none, 2026-01-01: day}
"!": bang
floats: [.inf, -.inf, .nan, -0.0, 1e-300]
big: 123456789012345678901234567890
merged: {<<: {a: 1}, b: 2}
""")
    assert same(round_trip(dict(loaded)), dict(loaded))
    assert type(round_trip(dict(loaded))["at"]) is datetime.datetime


def test_plain_json_data_is_stored_untagged():
    plain = {"description": "x", "elicitation": {"f": {"schema": {"type": "object", "required": ["a"]}}}, "n": [1, 2.5, None, True]}
    assert yaml_codec.encode(plain, 1000) == plain


@pytest.mark.parametrize("make", [
    lambda: (lambda a: (a.append(a), a)[1])([]),  # a list containing itself, as `&a [*a]` loads
    lambda: object(),
])
def test_what_cannot_be_stored_is_refused(make):
    with pytest.raises(yaml_codec.Unencodable):
        yaml_codec.encode({"x": make()}, 1000)


def test_alias_expansion_is_bounded():
    shared = ["x"] * 10
    for _ in range(6):
        shared = [shared] * 10  # a million leaves held in a few objects, as nested aliases load
    with pytest.raises(yaml_codec.Unencodable):
        yaml_codec.encode({"bomb": shared}, 10_000)


@pytest.mark.parametrize("data", [{"!": "nope", "v": 1}, {"!": "date", "v": "not a date"}, {"!": "set", "v": [[1]]}, {"!": "date"},
                                  {"!": "binary", "v": "###"}, {"!": "map", "v": [[1]]}])
def test_data_it_could_not_have_written_is_rejected(data):
    with pytest.raises(ValueError):
        yaml_codec.decode({"x": data})
