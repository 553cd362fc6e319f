"""Split a file into YAML frontmatter and body, and locate keys by line."""

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

_FENCE = "---"
INTERNED_LENGTH = 40


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """Safe YAML loading that shares short strings: keys such as `type` and `message` recur in every file."""


def _shared_str(loader: yaml.BaseLoader, node: yaml.ScalarNode) -> str:
    value = node.value
    return sys.intern(value) if len(value) <= INTERNED_LENGTH else value


_Loader.add_constructor("tag:yaml.org,2002:str", _shared_str)


@dataclass(frozen=True)
class Parsed:
    """A file's frontmatter mapping, its body, and the raw YAML text for locating keys."""

    meta: Mapping[str, Any]
    body: str
    yaml_text: str
    first_line: int
    body_line: int = 1


class FrontmatterError(ValueError):
    """The frontmatter is not a YAML mapping; `line` is the file line of the mistake."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line


def split(text: str) -> Parsed:
    """Read the frontmatter between `---` lines (if any) and return it with the body."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != _FENCE:
        return Parsed({}, text, "", 1)
    for number, line in enumerate(lines[1:], start=1):
        if line.rstrip("\r\n") in (_FENCE, "..."):
            yaml_text = "".join(lines[1:number])
            body = "".join(lines[number + 1:])
            return Parsed(load_mapping(yaml_text, first_line=2), body, yaml_text, 2, number + 2)
    raise FrontmatterError("frontmatter opened with '---' is never closed", 1)


def load_mapping(yaml_text: str, first_line: int = 1) -> Mapping[str, Any]:
    """Parse YAML text that must be a mapping (or empty); raise `FrontmatterError` otherwise."""
    try:
        data = yaml.load(yaml_text, Loader=_Loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        reason = getattr(error, "problem", None) or str(error)
        raise FrontmatterError(f"frontmatter is not valid YAML: {reason}", line) from None
    except ValueError as error:  # a scalar YAML reads but Python cannot hold: a date out of range, an integer of thousands of digits
        raise FrontmatterError(f"frontmatter holds a value that cannot be read: {str(error).split(':')[0]}", first_line) from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise FrontmatterError("frontmatter must be a YAML mapping of keys to values", first_line)
    return data


def locate(yaml_text: str, keys: Sequence[Any], first_line: int) -> int:
    """The file line of the deepest key of `keys` found in the YAML text."""
    try:
        node = yaml.compose(yaml_text, Loader=_Loader)
    except yaml.YAMLError:
        return first_line
    line = first_line
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            break
        match = next(((k, v) for k, v in node.value if k.value == str(key)), None)
        if match is None:
            break
        line = first_line + match[0].start_mark.line
        node = match[1]
    return line
