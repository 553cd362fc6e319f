"""The listing kind of the store: a server's last listings of a docroot, kept with a fingerprint of what they were made from.

A server lists the docroot's resources, resource templates and prompts once per
snapshot; at 10,000 entrypoints that is about two seconds of declaring forms and
describing fields. A restarted server whose docroot did not change would make
the same listings again, so the server keeps them (`guide.server.kept_listings`)
as JSON records, each kind a list, with the fingerprint of the snapshot they
were made from (`guide.docroot.lint.fingerprint`, with what the server's settings
add) and the icon files they show, which no stamp covers. This module only keeps
and finds the document: it knows nothing of a build or a component.
"""

from dataclasses import dataclass
from typing import Any

from guide.docroot.store.disk import Store

KIND = "listings"


@dataclass(frozen=True)
class Kept:
    """Kept listings: the fingerprint they were made under, each icon value they show with what it gave, and the records by kind."""

    fingerprint: str
    icons: dict[str, Any]
    """Each `icon:` value read for the listings, with the icon it gave (`[src, mime type]`) or why it gave none (a string)."""
    records: dict[str, str]
    """Each kind's records as JSON text, decoded one kind at a time."""


def load(store: Store, name: str, fingerprint: str) -> Kept | None:
    """The listings kept for docroot `name` under this fingerprint (None when there are none, or none of this shape)."""
    document = store.load(KIND, name)
    if not isinstance(document, dict) or document.get("fingerprint") != fingerprint:
        return None
    icons, records = document.get("icons"), document.get("records")
    if not isinstance(icons, dict) or not isinstance(records, dict) or not all(type(kept) is str for kept in records.values()):
        return None
    return Kept(fingerprint, icons, records)


def save(store: Store, name: str, kept: Kept) -> None:
    """Keep listings for docroot `name`, replacing those kept before."""
    store.save(KIND, name, {"fingerprint": kept.fingerprint, "icons": kept.icons, "records": kept.records})
