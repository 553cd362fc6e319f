"""The checks every way of starting Guide makes before serving: `guide serve` and fastmcp.json."""

from pathlib import Path

from fastmcp import FastMCP

from guide.errors import GuideError
from guide.server.app import create_server


def server_for(docroot: Path, project: Path | None = None) -> FastMCP:
    """The server for a docroot a user named; a one-line GuideError if it is not a folder or a setting is wrong."""
    if not docroot.is_dir():
        raise GuideError(f"docroot {docroot} is not a folder")
    return create_server(docroot, project)
