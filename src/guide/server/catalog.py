"""The catalog of the docroot's entrypoints where tool-only agents look: the server's instructions and the
`read_resource` tool's description (`guide.routes.catalog`); and the session context (`guide.routes.instructions`),
in the instructions only, before the catalog.

Instructions reach a client as it connects (`initialize`, or `server/discover`
on 2026-07-28), so a new session sees the docroot as it is then; the tool's
description is listed anew on every `tools/list`, and a listing change tells
connected clients to list tools again (`guide.server.eras`). The text is made
once per snapshot, off the event loop; a request whose snapshot has it pays a lookup.
"""

from typing import Any

from fastmcp.tools import Tool

from guide.docroot.folder import Docroot
from guide.protocol import READ_TOOL
from guide.routes.catalog import CATALOG, catalog
from guide.routes.instructions import CONTEXT, context
from guide.server import work

SHOWN = ("initialize", "server/discover", "tools/list")
"""The requests whose answers carry the catalog."""


class Catalog:
    """Adds the session context and the catalog to the instructions a client gets as it connects, the catalog to the `read_resource` tool.

    A part of Guide's middleware (`guide.server.hooks`): it sees the answers to `SHOWN` only.
    """

    methods = SHOWN

    def __init__(self, docroot: Docroot, instructions: str, description: str):
        self.docroot = docroot
        self.instructions = instructions
        self.description = description

    async def answered(self, context: Any, result: Any) -> Any:
        """A handshake's answer with the catalog in its instructions, or a tool listing with it in `read_resource`'s description."""
        if result is None:
            return result
        text = await self.text()
        if not text:
            return result
        if context.method == "tools/list":
            return [_described(tool, f"{self.description}\n\n{text}") if tool.name == READ_TOOL else tool for tool in result]
        instructions = "\n\n".join(part for part in (self.instructions, await self.context(), text) if part)
        if isinstance(result, dict):
            return {**result, "instructions": instructions}
        return result.model_copy(update={"instructions": instructions})

    async def text(self) -> str:
        """The catalog of the current snapshot (empty while the docroot folder is gone)."""
        return await work.built_or_build(self.docroot, lambda built: built.made(CATALOG), catalog, gone=str, bulk=True)

    async def context(self) -> str:
        """The current session context (empty without one, or while the folder is gone)."""
        return await work.built_or_build(self.docroot, lambda built: built.made(CONTEXT), context, gone=str, bulk=True)


def _described(tool: Tool, description: str) -> Any:
    return tool.model_copy(update={"description": description})
