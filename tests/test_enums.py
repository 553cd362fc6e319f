"""C11: the public enum schema helpers, their types checked by a type checker (issue 21 item 6)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import guide.enums
from guide.enums import (
    EnumOption,
    LegacyEnumOption,
    enum_schema,
    legacy_enum,
    titled_enum,
    titled_multi_enum,
    untitled_enum,
    untitled_multi_enum,
)


def test_c11_enum_schema_uses_the_mapping_itself():
    fields = {"plan": untitled_enum(["free", "pro"])}
    schema = enum_schema(fields)
    assert schema == {"type": "object", "properties": fields}
    assert schema["properties"] is fields


def test_c11_untitled_enum_copies_its_values():
    values = ["a", "b"]
    schema = untitled_enum(values)
    values.append("c")
    assert schema == {"type": "string", "enum": ["a", "b"]}


def test_c11_titled_enum():
    assert titled_enum([EnumOption("free", "Free"), EnumOption("pro", "Pro")]) == {
        "type": "string",
        "oneOf": [{"const": "free", "title": "Free"}, {"const": "pro", "title": "Pro"}],
    }


def test_c11_legacy_enum():
    assert legacy_enum([LegacyEnumOption("dev", "Developer"), LegacyEnumOption("pm", "Product")]) == {
        "type": "string",
        "enum": ["dev", "pm"],
        "enumNames": ["Developer", "Product"],
    }


def test_c11_multi_enums():
    assert untitled_multi_enum(("x", "y")) == {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}
    assert titled_multi_enum([EnumOption("x", "X")]) == {
        "type": "array",
        "items": {"anyOf": [{"const": "x", "title": "X"}]},
    }


def test_c11_helpers_take_empty_input_without_raising():
    assert untitled_enum([]) == {"type": "string", "enum": []}
    assert titled_multi_enum([]) == {"type": "array", "items": {"anyOf": []}}
    assert legacy_enum([]) == {"type": "string", "enum": [], "enumNames": []}


def test_c11_titled_enum_takes_plain_mappings():
    """Fail-loudly row: `titled_enum([{"value": "a", "title": "A"}])` raised KeyError: 0."""
    assert titled_enum([{"value": "a", "title": "A"}]) == {"type": "string", "oneOf": [{"const": "a", "title": "A"}]}
    assert legacy_enum([{"value": "a", "name": "A"}]) == {"type": "string", "enum": ["a"], "enumNames": ["A"]}
    assert titled_multi_enum([("a", "A")]) == {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}


ANYTHING = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3))


@given(ANYTHING)
def test_c11_helpers_never_raise_and_skip_what_is_not_an_option(options):
    for helper in (untitled_enum, titled_enum, legacy_enum, untitled_multi_enum, titled_multi_enum):
        schema = helper(options)
        assert schema["type"] in ("string", "array")


SRC = Path(guide.enums.__file__).resolve().parents[1]
TYPED = """\
    from guide.enums import (
        ElicitationEnumFieldSchema, ElicitationEnumObjectSchema, EnumObjectSchema, EnumOption, LegacyEnumOption,
        enum_schema, legacy_enum, titled_enum, titled_multi_enum, untitled_enum, untitled_multi_enum,
    )

    fields: dict[str, ElicitationEnumFieldSchema] = {
        "plan": titled_enum([EnumOption("free", "Free"), {"value": "pro", "title": "Pro"}, ("team", "Team")]),
        "role": legacy_enum([LegacyEnumOption("dev", "Developer")]),
        "size": untitled_enum(["s", "m"]),
        "features": untitled_multi_enum(["sso"]),
        "extras": titled_multi_enum([EnumOption("x", "X")]),
    }
    schema: ElicitationEnumObjectSchema = enum_schema(fields)
    former: EnumObjectSchema = schema
    plan: ElicitationEnumFieldSchema = schema["properties"]["plan"]
    written: ElicitationEnumObjectSchema = {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}}}
"""
UNTYPED = """\
    from guide.enums import ElicitationEnumObjectSchema, enum_schema

    counted = enum_schema({"count": {"type": "integer", "minimum": 1}})
    loose: ElicitationEnumObjectSchema = {"type": "object", "properties": {"mode": {"type": "string"}}}
"""


def test_21_6_every_public_builder_and_type_is_in_all():
    imported = {"Any", "Iterable", "Literal", "Mapping", "NamedTuple", "TypeAlias", "TypedDict"}
    public = {name for name in vars(guide.enums) if not name.startswith("_")} - imported
    assert sorted(guide.enums.__all__) == sorted(public)
    assert {"ElicitationEnumFieldSchema", "ElicitationEnumObjectSchema", "EnumObjectSchema", "enum_schema"} <= set(guide.enums.__all__)
    assert guide.enums.EnumObjectSchema is guide.enums.ElicitationEnumObjectSchema


def test_21_6_a_type_checker_accepts_typed_schemas_and_rejects_an_untyped_shape(tmp_path):
    (tmp_path / "typed.py").write_text(textwrap.dedent(TYPED))
    (tmp_path / "untyped.py").write_text(textwrap.dedent(UNTYPED))
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), "typed.py", "untyped.py"]
    found = subprocess.run(command, cwd=tmp_path, env={**os.environ, "MYPYPATH": str(SRC)}, capture_output=True, text=True, timeout=300)
    errors = [line for line in found.stdout.splitlines() if ": error: " in line]
    assert found.returncode == 1, found.stdout + found.stderr
    assert [line.split(": error: ")[0] for line in errors] == ["untyped.py:3", "untyped.py:4"], found.stdout
    for line in errors:
        assert 'expected "str": "UntitledEnumSchema | TitledEnumSchema' in line, line
