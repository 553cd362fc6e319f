"""Run the `guide` command line as `python -m guide`."""

import sys

from guide.cli import main

sys.exit(main())
