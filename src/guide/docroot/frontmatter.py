"""Split a file into YAML frontmatter and body, read the YAML strictly, and locate keys by line.

The YAML is read with the safe loader and three more rules: a key may appear
only once in a mapping (YAML would silently keep the last), aliases may not
make it hold more than `yaml_loader.MAX_VALUES` values or `MAX_EXPANDED`
characters once written out (a small file cannot stand for a huge one), and
frontmatter is at most `MAX_FRONTMATTER` characters. Errors say how to
fix the common mistakes (a backslash in double quotes, an unquoted `on`).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from guide.docroot.yaml_loader import CountingLoader, ExpansionError, Loader, construct, loader_for

_FENCE = "---"
MAX_FRONTMATTER = 256 * 1024
"""The most characters of YAML a frontmatter may have."""
BOOLEAN_WORDS = ("on", "off", "yes", "no", "true", "false", "y", "n")
"""Unquoted words YAML 1.1 reads as booleans (any case)."""


@dataclass(frozen=True, slots=True)
class Front:
    """What a file's frontmatter says, and where its parts lie in the text (enough to list it without keeping the text)."""

    meta: Mapping[str, Any]
    first_line: int = 1
    """The file line the YAML starts on."""
    body_line: int = 1
    """The file line the body starts on."""
    yaml_start: int = 0
    yaml_end: int = 0
    body_start: int = 0


@dataclass(frozen=True)
class Parsed:
    """A file's text with its frontmatter read: the mapping, the body, and the raw YAML for locating keys."""

    front: Front
    text: str

    @property
    def meta(self) -> Mapping[str, Any]:
        """The frontmatter mapping (empty without frontmatter)."""
        return self.front.meta

    @property
    def body(self) -> str:
        """The text after the frontmatter."""
        return self.text[self.front.body_start:]

    @property
    def yaml_text(self) -> str:
        """The raw YAML between the fences (empty without frontmatter)."""
        return self.text[self.front.yaml_start:self.front.yaml_end]

    @property
    def first_line(self) -> int:
        """The file line the YAML starts on."""
        return self.front.first_line

    @property
    def body_line(self) -> int:
        """The file line the body starts on."""
        return self.front.body_line


@dataclass(frozen=True, slots=True)
class Summary:
    """What a listing needs of a file's frontmatter: its description, and which keys that change where it applies it has."""

    description: str
    marks: tuple[str, ...]
    """The top-level keys starting with one of `MARKED`, sorted: what decides where a file applies or what a name finds
    (`requires-`, `aliases`), and what a listing shows beside its description (`title`, `icon`, `audience`). Most files have none."""


MARKED = ("aliases", "requires-", "title", "icon", "audience")


def summary(front: "Front | FrontmatterError") -> Summary:
    """The summary of a file's frontmatter (an unreadable one has every mark: only its parse can tell)."""
    if isinstance(front, FrontmatterError):
        return Summary("", MARKED)
    marks = tuple(sorted(key for key in front.meta if isinstance(key, str) and key.startswith(MARKED)))
    return Summary(str(front.meta.get("description", "")), marks)


class FrontmatterError(ValueError):
    """The frontmatter is not a YAML mapping; `line` is the file line of the mistake."""

    def __init__(self, message: str, line: int | None):
        super().__init__(message)
        self.line = line

    def __reduce__(self) -> tuple:
        return FrontmatterError, (str(self), self.line)  # a worker process of `guide check` hands it back (docroot/ahead.py)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FrontmatterError) and (str(self), self.line) == (str(other), other.line)

    def __hash__(self) -> int:
        return hash((str(self), self.line))


def listed(meta: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """The strings of a list-valued frontmatter key such as `aliases`, `args` or `includes` (nothing when it is not a list)."""
    value = meta.get(key)
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


def split(text: str) -> Parsed:
    """Read the frontmatter between `---` lines (if any) and return it with the body."""
    if not text.startswith(_FENCE) or text[3:4] not in ("\n", "\r", ""):
        return Parsed(Front({}), text)
    yaml_start = 5 if text.startswith("---\r\n") else 4 if len(text) > 3 else 3
    offset, number = yaml_start, 1
    for line in text[yaml_start:].splitlines(keepends=True):
        number += 1
        if line.rstrip("\r\n") in (_FENCE, "..."):
            meta = load_mapping(text[yaml_start:offset], first_line=2)
            return Parsed(Front(meta, 2, number + 1, yaml_start, offset, offset + len(line)), text)
        offset += len(line)
    raise FrontmatterError("frontmatter opened with '---' is never closed", 1)


def load_mapping(yaml_text: str, first_line: int = 1) -> Mapping[str, Any]:
    """Parse YAML text that must be a mapping (or empty); raise `FrontmatterError` otherwise."""
    if len(yaml_text) > MAX_FRONTMATTER:
        raise FrontmatterError(f"frontmatter is longer than {MAX_FRONTMATTER // 1024} KiB; keep long text in the body", first_line)
    loader = loader_for(yaml_text)
    loader.first_line = first_line
    try:
        node = loader.get_single_node()
        data = None if node is None else loader.construct_document(node) if isinstance(loader, CountingLoader) else construct(loader, node)
    except ExpansionError as error:
        raise FrontmatterError(f"frontmatter {error}", first_line + error.line) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = first_line + mark.line if mark is not None else first_line
        reason = getattr(error, "problem", None) or str(error)
        raise FrontmatterError(f"frontmatter is not valid YAML: {reason}{_hint(reason)}", line) from None
    except ValueError as error:  # a scalar YAML reads but Python cannot hold: a date out of range, an integer of thousands of digits
        raise FrontmatterError(f"frontmatter holds a value that cannot be read: {str(error).split(':')[0]}", first_line) from None
    finally:
        loader.dispose()
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise FrontmatterError("frontmatter must be a YAML mapping of keys to values", first_line)
    return data


def locate(yaml_text: str, keys: Sequence[Any], first_line: int) -> int:
    """The file line of the deepest key of `keys` found in the YAML text (an integer key indexes a list)."""
    return line_in(composed(yaml_text), keys, first_line)


def composed(yaml_text: str) -> yaml.Node | None:
    """The YAML text as a tree of nodes with their positions (None when it is not valid YAML), for `line_in`."""
    try:
        return yaml.compose(yaml_text, Loader=Loader)
    except yaml.YAMLError:
        return None


def line_in(node: yaml.Node | None, keys: Sequence[Any], first_line: int) -> int:
    """The file line of the deepest of `keys` found under `node`: mapping keys by name, list items by index."""
    line = first_line
    for key in keys:
        if isinstance(node, yaml.SequenceNode) and type(key) is int and 0 <= key < len(node.value):
            node = node.value[key]
            line = first_line + node.start_mark.line
            continue
        if not isinstance(node, yaml.MappingNode):
            break
        match = next(((k, v) for k, v in node.value if _same_key(k, key)), None)
        if match is None:
            break
        line = first_line + match[0].start_mark.line
        node = match[1]
    return line


def _same_key(node: yaml.Node, key: Any) -> bool:
    if not isinstance(node, yaml.ScalarNode):
        return False
    if isinstance(key, bool):
        return node.value.lower() in BOOLEAN_WORDS and (node.value.lower() in ("on", "yes", "true", "y")) == key
    return node.value == str(key)


def _hint(reason: str) -> str:
    if "cannot start any token" in reason or "undefined alias" in reason or "expected alphabetic or numeric character" in reason:
        return "; in YAML a value that starts with @, *, & or a backquote must be quoted ('@guidelines', '**/intro')"
    if "unknown escape character" in reason:
        return (
            "; in double quotes a backslash starts an escape: write the text in single quotes"
            " ('INC-\\d+') or double the backslash (\"INC-\\\\d+\")"
        )
    return ""
