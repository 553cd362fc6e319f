"""Guide's skills through the Skills extension (SEP-2640): `skills/list`, `skills/get` and `skill://` files.

A Guide `SKILL.md` is rendered per request and may ask forms first. A skill
whose `SKILL.md` renders the same text for everyone (it has no forms and does
not look at the workflow phase) is listed with a manifest: its `SKILL.md` and
each member with its SHA-256 digest and size, worked out once per snapshot
from the very text a read serves (`guide.server.skill_digests`), so a client
can verify what it reads. Any other skill is listed as *dynamic*: the
extension's manifest names every file with a digest or none, and a `SKILL.md`
that depends on answers has no digest. Its files,
`skill://<name>/SKILL.md` (read like `guide://$name`: its forms are asked; the
route stage serves it with the listed frontmatter, `guide.routes.skill_file`)
and `skill://<name>/<member>` (never asks), are read through the docroot
provider like any other address. FastMCP 4.2 reads such
entries through the extension's source protocol (the `_skill_*` methods below).
It is part of the docroot provider, not a provider of its own, because FastMCP
asks every provider on every read: a second one cost about 4 % of each read (B1).
A skill with an authoring error is left out of the listing and logged once per
snapshot; the others are listed as usual. An entry's title, icon and audience
(`title:`, `icon:`, `audience:`) are in its `_meta` (`guide.server.labels`): the
extension's entries have no fields for them, and its frontmatter must equal the
served `SKILL.md`'s, which never carries Guide's keys.
"""

import logging
from collections.abc import Sequence
from typing import Any

from fastmcp.skills.extension import SkillsExtension
from fastmcp.skills.models import MCPSkill
from pydantic import ValidationError

from guide import address
from guide.docroot.built import Built
from guide.docroot.display import read
from guide.docroot.folder import Docroot
from guide.docroot.memo import Once
from guide.errors import GuideError
from guide.routes.skill_file import frontmatter
from guide.server import work
from guide.server.labels import entry_meta
from guide.server.skill_digests import manifest

ENTRIES: Once[dict[str, MCPSkill]] = Once("the Skills extension's entries, by address")

log = logging.getLogger("guide")


class SkillsSource:
    """The part of a provider that lists the docroot's skills for the Skills extension (its `skill://` files are reads)."""

    docroot: Docroot

    def required_extensions(self) -> Sequence[SkillsExtension]:
        """The extension that serves `skills/list` and `skills/get` from this source."""
        return (SkillsExtension(),)

    async def _list_skill_entries(self, context: Any) -> Sequence[MCPSkill]:
        return list((await self.entries()).values())

    async def _get_skill_entry(self, uri: str, context: Any) -> MCPSkill | None:
        return (await self.entries()).get(uri)

    async def _skill_uris(self, uri: str | None = None) -> Sequence[str]:
        entries = await self.entries()
        return [uri] if uri is not None and uri in entries else ([] if uri is not None else list(entries))

    def _owns_skill_resource(self, uri: str) -> bool:
        # Never raises: the extension asks on every resource read.
        return str(uri).startswith(f"{address.SKILL_SCHEME}://")

    async def entries(self) -> dict[str, MCPSkill]:
        """Each usable skill of the current snapshot by its `skill://` address (made in a worker thread when not made yet).

        None while the docroot folder is gone: reads of a skill say why.
        """
        return await work.built_or_build(
            self.docroot, lambda built: built.made(ENTRIES), lambda built: built.value(ENTRIES, lambda: _entries(self.docroot, built)), gone=dict,
            bulk=True,
        )


def _entries(docroot: Docroot, built: Built) -> dict[str, MCPSkill]:
    entries = {}
    for skill in built.every("skill"):
        problems = built.problems(skill)
        if problems:
            log.warning("skill %s has authoring errors and is left out of skills/list: %s", skill.name, problems[0])
            continue
        try:
            entry = MCPSkill(uri=address.skill_file_address(skill.name), frontmatter=frontmatter(skill), resources=manifest(docroot, built, skill),
                             _meta=entry_meta(built, read(skill.meta)))
        except (ValidationError, GuideError) as error:
            reason = error.errors()[0]["msg"] if isinstance(error, ValidationError) else str(error)
            log.warning("skill %s is left out of skills/list: %s", skill.name, reason)
            continue
        entries[entry.uri] = entry
    return entries
