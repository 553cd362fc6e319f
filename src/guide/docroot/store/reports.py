"""The report kind of the store: the last `guide check` report of a docroot, kept with a fingerprint of what it depends on.

`guide.docroot.lint.checked` makes the fingerprint (the layout, guide.yaml as
read, and the stamp of every file the report looked at: templates, documents
and skill members) and reuses the kept report while it matches; the code that
made it is named in the kept file's header. A file changed within `RACY_NS` of
the check might change again unseen by its stamp, so the digest of its text is
kept too (`texts`), and compared before the report is reused. This module only
keeps and finds the record: it knows nothing of a build.
"""

from dataclasses import dataclass
from typing import Any

from guide.docroot.store.disk import Store

KIND = "reports"


@dataclass(frozen=True)
class Kept:
    """A kept report: the fingerprint it was made under, the digests of the files changed too recently, and the report as JSON."""

    fingerprint: str
    texts: dict[str, str]
    report: Any


def load(store: Store, name: str, fingerprint: str) -> Kept | None:
    """The report kept for the docroot `name` under this fingerprint, if one is (None when it is not, or is not readable as one)."""
    document = store.load(KIND, name)
    if not isinstance(document, dict) or document.get("fingerprint") != fingerprint:
        return None
    texts = document.get("texts")
    if not isinstance(texts, dict) or not all(isinstance(rel, str) and isinstance(kept, str) for rel, kept in texts.items()):
        return None
    return Kept(fingerprint, texts, document.get("report"))


def save(store: Store, name: str, kept: Kept) -> None:
    """Keep a report for the docroot `name` (replacing the one kept before)."""
    store.save(KIND, name, {"fingerprint": kept.fingerprint, "texts": kept.texts, "report": kept.report})
