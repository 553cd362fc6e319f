"""A module-level server for `fastmcp run` / `fastmcp inspect` (see fastmcp.json).

The docroot comes from `GUIDE_DOCROOT` (default: the bundled example) and the
project folder from `GUIDE_PROJECT` (default: the working folder).
"""

import os
from pathlib import Path

from guide.examples import DOCROOT as EXAMPLE_DOCROOT
from guide.server.app import create_server

server = create_server(
    Path(os.environ.get("GUIDE_DOCROOT") or EXAMPLE_DOCROOT),
    Path(os.environ["GUIDE_PROJECT"]) if os.environ.get("GUIDE_PROJECT") else None,
)
