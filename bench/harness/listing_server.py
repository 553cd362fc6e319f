"""The B8 baseline: `python -m bench.harness.listing_server ITEMS.json` serves ready-made listings over stdio.

ITEMS.json holds what Guide listed for a docroot (resources, templates and
prompts, as the client received them). The server builds every component once,
before it answers anything, and its provider returns those same lists on each
request: FastMCP's own cost of listing that many items, with no work of finding
or building them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fastmcp import FastMCP
from fastmcp.prompts import Prompt, PromptArgument
from fastmcp.resources import ResourceTemplate, TextResource
from fastmcp.server.providers import Provider


class ReadyPrompt(Prompt):
    """A prompt with fixed arguments whose text is empty (B8 only lists it)."""

    async def render(self, arguments: dict[str, Any] | None = None) -> Any:
        """An empty prompt text."""
        return ""


class ReadyMade(Provider):
    """A provider that returns lists built once at start."""

    def __init__(self, items: dict[str, list[dict]]):
        super().__init__()
        self.resources = [
            TextResource(uri=r["uri"], name=r["name"], description=r.get("description"), mime_type=r.get("mimeType"), text="")
            for r in items["resources"]
        ]
        self.templates = [
            ResourceTemplate(uri_template=t["uriTemplate"], name=t["name"], description=t.get("description"), mime_type=t.get("mimeType"),
                             parameters={})
            for t in items["templates"]
        ]
        self.prompts = [
            ReadyPrompt(name=p["name"], description=p.get("description"), arguments=[PromptArgument(**a) for a in p.get("arguments", [])])
            for p in items["prompts"]
        ]

    async def get_tasks(self) -> list:
        """No background tasks, as in Guide's provider (so start-up does not walk the lists)."""
        return []

    async def _list_resources(self) -> list:
        return self.resources

    async def _list_resource_templates(self) -> list:
        return self.templates

    async def _list_prompts(self) -> list:
        return self.prompts


def ready_server(items: dict[str, list[dict]], name: str = "bare") -> FastMCP:
    """A FastMCP server whose one provider lists `items` ready-made."""
    return FastMCP(name, providers=[ReadyMade(items)])


def main() -> None:
    items = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    ready_server(items).run(transport="stdio", show_banner=False)


if __name__ == "__main__":
    main()
