"""A module-level server for `fastmcp run` / `fastmcp inspect` (see fastmcp.json).

Its settings come from the environment as `guide serve`'s do (`guide.server.settings`):
`GUIDE_DOCROOT` (default: the bundled example), `GUIDE_PROJECT` (default: the
working folder) and the rest. A malformed setting, or a docroot that is not a
folder, stops the process with the same one line as `guide serve`, and exit status 2.
"""

import sys

from guide.errors import GuideError
from guide.server import logs
from guide.server.app import create_server
from guide.server.settings import read_settings

try:
    settings = read_settings()
    logs.configure(settings.log_level)
    server = create_server(settings=settings)
except GuideError as error:
    # fastmcp imports this file; an exception would reach the user as a traceback.
    print(f"guide: {error}", file=sys.stderr)
    raise SystemExit(2) from None
