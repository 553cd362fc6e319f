"""What the checks of entrypoints, partials and documents ask of a build: one file's frontmatter, text and forms, in its docroot.

`guide.docroot.built.Built` answers it; the checks (`entrypoints`,
`references`) name only this, so they sit below the build that uses them.
"""

from collections.abc import Iterable, Mapping
from typing import Protocol

from guide.docroot.config import Config
from guide.docroot.frontmatter import Front, FrontmatterError, Parsed
from guide.docroot.icons import Icon
from guide.errors import Issue
from guide.forms.declare import Form
from guide.render import TemplateFacts


class Facts(Protocol):
    """What checking one file needs to know of the rest of the docroot."""

    @property
    def config(self) -> Config: ...

    @property
    def config_ok(self) -> bool: ...

    @property
    def partials(self) -> Mapping[str, str]: ...

    def front(self, rel: str) -> Front | FrontmatterError: ...

    def parsed(self, rel: str) -> Parsed | FrontmatterError: ...

    def template(self, rel: str) -> TemplateFacts: ...

    def declared(self, rel: str, allow_source: bool) -> tuple[tuple[Form, ...], tuple[Issue, ...]]: ...

    def allows(self, rel: str) -> bool: ...

    def partial_loop(self, names: Iterable[str]) -> list[str] | None: ...

    def partials_reached(self, names: Iterable[str]) -> list[str]: ...

    def icon(self, value: str) -> Icon | str: ...
