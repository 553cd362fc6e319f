"""One template file of the docroot (command, skill or partial): its text, parsed once, on first use."""

from dataclasses import dataclass, field
from functools import cached_property

from guide.docroot.frontmatter import FrontmatterError, Parsed, split
from guide.docroot.parse_cache import ParseCache, Stamp
from guide.errors import Issue
from guide.forms.declare import Form, declare_forms
from guide.render import TemplateFacts, inspect

NO_TEMPLATE = TemplateFacts(None, ())


@dataclass(frozen=True)
class Source:
    """A template file: its path relative to the docroot and its text (None when it cannot be read)."""

    path: str
    text: str | None
    stamp: Stamp | None = None
    """The file's (mtime_ns, size) when it was read; with `cache`, a parse of the same text is reused."""
    cache: ParseCache | None = field(default=None, compare=False, repr=False)

    @cached_property
    def parsed(self) -> Parsed | FrontmatterError:
        """The frontmatter and body, or why they cannot be read."""
        if self.text is None:
            return FrontmatterError("file cannot be read as UTF-8 text", None)
        remembered = self.cache.lookup(self.path, self.stamp, self.text) if self.cache and self.stamp else None
        if remembered is not None:
            return remembered
        try:
            parsed: Parsed | FrontmatterError = split(self.text)
        except FrontmatterError as error:
            parsed = error
        if self.cache and self.stamp:
            self.cache.store(self.path, self.stamp, self.text, parsed)
        return parsed

    @cached_property
    def template(self) -> TemplateFacts:
        """The body's Mustache syntax error or the partials it includes (nothing for an unreadable file)."""
        return inspect(self.parsed.body) if isinstance(self.parsed, Parsed) else NO_TEMPLATE

    def declared(self, allow_source: bool, phases: tuple[str, ...]) -> tuple[tuple[Form, ...], tuple[Issue, ...]]:
        """The forms this parsed file declares, with their problems (kept: many entrypoints may include one partial)."""
        key = (allow_source, phases)
        if key not in self._declared:
            meta = self.parsed.meta
            forms, issues = declare_forms(
                meta.get("elicitation"), origin=self.path, fallback_all=meta.get("fallback"), allow_source=allow_source, phases=phases
            )
            self._declared[key] = (tuple(forms), tuple(issues))
        return self._declared[key]

    @cached_property
    def _declared(self) -> dict[tuple[bool, tuple[str, ...]], tuple[tuple[Form, ...], tuple[Issue, ...]]]:
        return {}

    @cached_property
    def frontmatter_text(self) -> str:
        """The raw text between the `---` fences (empty without frontmatter), found without parsing it."""
        text = self.text or ""
        if not text.startswith("---"):
            return ""
        end = text.find("\n---", 3)
        return text[3:end] if end >= 0 else text

    def may_mention(self, word: str) -> bool:
        """False only when the file surely does not contain `word` (a check that needs no parse)."""
        return self.text is None or word in self.text
