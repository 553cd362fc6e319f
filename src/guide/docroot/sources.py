"""One template file of the docroot (command, skill or partial): its text read, and parsed, once, on first use."""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from guide.docroot.files import Refused
from guide.docroot.frontmatter import FrontmatterError, Parsed, split
from guide.docroot.parse_cache import ParseCache, Stamp
from guide.docroot.ready import slow_work
from guide.errors import Issue
from guide.forms.declare import Form, declare_forms
from guide.render import TemplateFacts, inspect

NO_TEMPLATE = TemplateFacts(None, ())


@dataclass(frozen=True)
class Source:
    """A template file: its path relative to the docroot and its text, read on first use (None when it cannot be)."""

    path: str
    given: str | None = None
    """The text, when it is known already (else `load` reads it)."""
    stamp: Stamp | None = None
    """The file's (mtime_ns, size) when it was found; with `cache`, a parse of the same text is reused."""
    cache: ParseCache | None = field(default=None, compare=False, repr=False)
    load: Callable[[], str] | None = field(default=None, compare=False, repr=False)
    """Reads the text (raising `files.Refused` when Guide may not); called once, when the text is first needed."""
    refusal: str = "file cannot be read as UTF-8 text"
    """Why `given` is None, when no `load` is given."""

    @classmethod
    def unread(cls, path: str, reason: str) -> "Source":
        """A file that cannot be read, and why."""
        return cls(path, None, refusal=reason)

    @cached_property
    def _content(self) -> tuple[str | None, str]:
        if self.load is None:
            return self.given, self.refusal
        slow_work()
        try:
            return self.load(), ""
        except Refused as error:
            return None, f"file {error}"

    @property
    def text(self) -> str | None:
        """The file's text, or None when it cannot be read."""
        return self._content[0]

    @property
    def unreadable(self) -> str:
        """Why `text` is None, when it is."""
        return self._content[1] or self.refusal

    @cached_property
    def parsed(self) -> Parsed | FrontmatterError:
        """The frontmatter and body, or why they cannot be read."""
        slow_work()
        if self.text is None:
            return FrontmatterError(self.unreadable, None)
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
        slow_work()
        return inspect(self.parsed.body) if isinstance(self.parsed, Parsed) else NO_TEMPLATE

    def declared(self, allow_source: bool, phases: tuple[str, ...]) -> tuple[tuple[Form, ...], tuple[Issue, ...]]:
        """The forms this parsed file declares, with their problems (kept: many entrypoints may include one partial)."""
        key = (allow_source, phases)
        if key not in self._declared:
            slow_work()
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
