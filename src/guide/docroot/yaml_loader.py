"""The YAML loaders of frontmatter and `guide.yaml`: PyYAML's safe loader with Guide's rules, and a bound on aliases.

A YAML alias (`*name`) repeats the value its anchor (`&name`) marks. PyYAML
shares that value instead of copying it, so the loaded data stays small, but
everything that walks it later (the kept parses written as JSON, a render of
`{{flags.x}}`, a check) meets every repetition: one anchored 50 KB string used
10,000 times is 500 MB of text for them. So a text with aliases is composed by
`CountingLoader`, which adds up, while composing and before any value is
built, what the document holds once every alias is written out: at most
`MAX_VALUES` values and `MAX_EXPANDED` characters of scalars. The alias that
crosses a bound raises `ExpansionError`, which carries its place in the text.
"""

import sys
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent, CollectionStartEvent, ScalarEvent

from guide.text import clip, quoted

INTERNED_LENGTH = 40
MAX_VALUES = 100_000
"""The most values (counting every repetition an alias makes) a YAML text may hold."""
MAX_EXPANDED = 1024 * 1024
"""The most characters of scalars (keys and values, counting every repetition an alias makes) a YAML text may hold.

Four times the longest frontmatter Guide reads (256 KiB), and the default caps of
a docroot file and of one render: a text with aliases may hold as much as a file
at the cap could write out, never more.
"""
_MERGE = "tag:yaml.org,2002:merge"
_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ExpansionError(yaml.YAMLError):
    """Aliases make the text hold more than a bound allows; `line` is the 0-based line of the alias that crossed it."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


class Loader(_SafeLoader):
    """Safe YAML loading that refuses duplicate keys and shares short strings (keys recur in every file)."""

    first_line = 1

    def resolve(self, kind: type, value: str | None, implicit: tuple[bool, bool]) -> str:
        """A node's tag by PyYAML's rules, without the path resolvers safe loading never has (libyaml asks it of every node)."""
        if kind is yaml.ScalarNode:
            if implicit[0]:
                for tag, pattern in _IMPLICIT.get(value[:1], _CATCH_ALL):  # type: ignore[index]
                    if pattern.match(value):
                        return tag
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    def descend_resolver(self, current_node: yaml.Node | None, current_index: Any) -> None:
        """Nothing: path resolvers are never added to a safe loader."""

    def ascend_resolver(self) -> None:
        """Nothing: path resolvers are never added to a safe loader."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE or not isinstance(key_node, yaml.ScalarNode):
                continue
            key = self.construct_object(key_node)
            if key in seen:
                problem = f"key {quoted(key_node.value)} appears twice in one mapping (first on line {seen[key]}); YAML would keep only the last"
                raise ConstructorError(None, None, problem, key_node.start_mark)
            seen[key] = self.first_line + key_node.start_mark.line
        return super().construct_mapping(node, deep)


def _shared_str(loader: yaml.constructor.SafeConstructor, node: yaml.ScalarNode) -> str:
    value = loader.construct_scalar(node)  # a tag `!!str` on a mapping or list: PyYAML's own error, as for any misplaced tag
    return sys.intern(value) if len(value) <= INTERNED_LENGTH else value


Loader.add_constructor("tag:yaml.org,2002:str", _shared_str)
assert not Loader.yaml_path_resolvers, "Loader.resolve leaves path resolvers out"
_CATCH_ALL = tuple(Loader.yaml_implicit_resolvers.get(None, ()))
_IMPLICIT = {first: tuple(resolvers) + _CATCH_ALL for first, resolvers in Loader.yaml_implicit_resolvers.items() if first is not None}
"""PyYAML's implicit resolvers of a plain scalar by its first character ('' for the empty scalar), each list with the catch-all ones after it."""


class CountingLoader(Composer, Loader):
    """`Loader` composing in Python over the same events, adding up what each alias repeats as it is met.

    PyYAML's composer and libyaml's build the same nodes; only this one can be
    told about each alias, so it is used for texts that have one.
    """

    def __init__(self, stream: str):
        Loader.__init__(self, stream)
        Composer.__init__(self)
        self.values = 0
        self.chars = 0
        self._sizes: dict[str, tuple[int, int]] = {}  # anchor -> (values, characters) of the value it marks, once composed

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            self._repeat(event)
            return super().compose_node(parent, index)
        before = (self.values, self.chars)
        self.values += 1
        if isinstance(event, ScalarEvent):
            self.chars += len(event.value)
        node = super().compose_node(parent, index)
        if isinstance(event, (ScalarEvent, CollectionStartEvent)) and event.anchor is not None:
            self._sizes[event.anchor] = (self.values - before[0], self.chars - before[1])
        return node

    def _repeat(self, alias: AliasEvent) -> None:
        """Count what `alias` repeats; raise `ExpansionError` when that crosses a bound."""
        if alias.anchor not in self.anchors:
            return  # PyYAML's own error follows ("found undefined alias")
        size = self._sizes.get(alias.anchor)
        line, name = alias.start_mark.line, clip(alias.anchor)
        if size is None:
            raise ExpansionError(f"aliases expand without end here (`*{name}` is inside the value `&{name}` marks); write the values out", line)
        values, chars = size
        self.values += values
        self.chars += chars
        if self.chars > MAX_EXPANDED:
            raise ExpansionError(
                f"aliases expand to more than {MAX_EXPANDED:,} characters here (`*{name}` repeats {chars:,} each time);"
                " use fewer aliases of long values or write the values out", line)
        if self.values > MAX_VALUES:
            raise ExpansionError(
                f"aliases expand to more than {MAX_VALUES:,} values here (`*{name}` repeats {values:,} each time);"
                " use fewer aliases or write the values out", line)


def loader_for(text: str) -> Loader:
    """A loader for `text`: one that counts what aliases repeat when it may hold one (`*name`), else the faster one."""
    return CountingLoader(text) if "*" in text else Loader(text)


def construct(loader: Loader, root: yaml.Node) -> Any:
    """The value of a node tree without aliases, as `loader.construct_document` makes it, about twice as fast.

    Plain strings, mappings with plain keys, and lists are built here; any other
    node (a number, a date, a merge, an explicit tag) is built by the loader. The
    order is PyYAML's too, so a text with two faults reports the same one first:
    a mapping's keys before its values, and a level's containers filled only after
    the level above (the loader defers them the same way).
    """
    pending: list[tuple[Any, yaml.Node]] = []
    value = _value(loader, root, pending)
    while pending:
        level, pending = pending, []
        for made, node in level:
            if isinstance(made, dict):
                _fill_mapping(loader, made, node, pending)
            else:
                made.extend([_value(loader, item, pending) for item in node.value])  # from a list, sized as PyYAML sizes it
    return value


def _value(loader: Loader, node: yaml.Node, pending: list[tuple[Any, yaml.Node]]) -> Any:
    """A node's value; a mapping or list is returned empty and filled when its level comes (`pending`)."""
    tag = node.tag
    if tag == _STR and type(node) is yaml.ScalarNode:
        value = node.value
        return sys.intern(value) if len(value) <= INTERNED_LENGTH else value
    if tag == _MAP and type(node) is yaml.MappingNode and all(type(key) is yaml.ScalarNode and key.tag != _MERGE for key, _ in node.value):
        made: Any = {}
    elif tag == _SEQ and type(node) is yaml.SequenceNode:
        made = []
    else:
        return loader.construct_object(node, deep=True)
    pending.append((made, node))
    return made


def _fill_mapping(loader: Loader, made: dict, node: yaml.MappingNode, pending: list[tuple[Any, yaml.Node]]) -> None:
    """Fill a mapping: every key first (each once: a repeated key is an error, as `Loader` says it), then the values."""
    seen: dict[Any, int] = {}
    keys = []
    for key_node, _ in node.value:
        key = _value(loader, key_node, pending)
        if key in seen:
            problem = f"key {quoted(key_node.value)} appears twice in one mapping (first on line {seen[key]}); YAML would keep only the last"
            raise ConstructorError(None, None, problem, key_node.start_mark)
        seen[key] = loader.first_line + key_node.start_mark.line
        keys.append(key)
    for key, (_, value_node) in zip(keys, node.value):
        made[key] = _value(loader, value_node, pending)
