"""What a command, skill or document shows in clients' lists, as MCP carries it (`title:`, `icon:`, `audience:`, issue 37).

Resources and resource templates take all three as MCP's own fields: `title`,
`icons` and `annotations.audience`. A prompt has `title` and `icons` but no
annotations in MCP, and a Skills extension entry (SEP-2640) none of them, so
what has no field of its own travels in `_meta` under Guide's keys, shaped as
MCP's fields are: `guide/title`, `guide/icons` (a list of `{src, mimeType}`) and
`guide/annotations` (`{audience: [...]}`). An icon that cannot be one is left
out: the file's own read fails and `guide check` says why.
"""

from typing import Any

from mcp_types import Annotations
from mcp_types import Icon as McpIcon

from guide.docroot.built import Built
from guide.docroot.display import Display
from guide.docroot.icons import Icon

TITLE, ICONS, ANNOTATIONS = "guide/title", "guide/icons", "guide/annotations"
"""The `_meta` keys of what an item has no MCP field for."""


def resource_fields(built: Built, shown: Display) -> dict[str, Any]:
    """The `title`, `icons` and `annotations` a resource (or template) has."""
    found: dict[str, Any] = {}
    if not shown:
        return found  # most files show nothing more
    if shown.title:
        found["title"] = shown.title
    icons = _icons(built, shown)
    if icons:
        found["icons"] = icons
    if shown.audience:
        found["annotations"] = Annotations(audience=list(shown.audience))
    return found


def prompt_fields(built: Built, shown: Display) -> dict[str, Any]:
    """A prompt's `title` and `icons`, and its audience in `_meta`."""
    found = resource_fields(built, shown)
    annotations = found.pop("annotations", None) if found else None
    if annotations is not None:
        found["meta"] = {ANNOTATIONS: annotations.model_dump(exclude_none=True)}
    return found


def entry_meta(built: Built, shown: Display) -> dict[str, Any] | None:
    """A Skills entry's `_meta`: title, icons and audience (None: none)."""
    found = resource_fields(built, shown)
    meta: dict[str, Any] = {}
    if "title" in found:
        meta[TITLE] = found["title"]
    if "icons" in found:
        meta[ICONS] = [icon.model_dump(by_alias=True, exclude_none=True) for icon in found["icons"]]
    if "annotations" in found:
        meta[ANNOTATIONS] = found["annotations"].model_dump(exclude_none=True)
    return meta or None


def _icons(built: Built, shown: Display) -> list[McpIcon]:
    found = built.icon(shown.icon) if shown.icon else None
    return [McpIcon(src=found.src, mime_type=found.mime_type)] if isinstance(found, Icon) else []
