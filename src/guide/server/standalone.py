"""A module-level server for `fastmcp run` / `fastmcp inspect` (see fastmcp.json).

The docroot comes from `GUIDE_DOCROOT` (default: the bundled example) and the
project folder from `GUIDE_PROJECT` (default: the working folder). A docroot
that is not a folder, or a bad `GUIDE_STATE_KEYS`, stops the process with the
same one-line error as `guide serve`.
"""

import os
import sys
from pathlib import Path

from guide.errors import GuideError
from guide.examples import DOCROOT as EXAMPLE_DOCROOT
from guide.server.startup import server_for

try:
    server = server_for(
        Path(os.environ.get("GUIDE_DOCROOT") or EXAMPLE_DOCROOT),
        Path(os.environ["GUIDE_PROJECT"]) if os.environ.get("GUIDE_PROJECT") else None,
    )
except GuideError as error:
    # fastmcp imports this file; an exception would reach the user as a traceback.
    print(f"guide: {error}", file=sys.stderr)
    raise SystemExit(2) from None
