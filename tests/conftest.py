"""Settings for the whole test run: Guide's parse cache lives in a folder of this run, never in the user's cache."""

import atexit
import os
import shutil
import tempfile

if "GUIDE_CACHE_DIR" not in os.environ:
    os.environ["GUIDE_CACHE_DIR"] = tempfile.mkdtemp(prefix="guide-test-cache-")
    atexit.register(shutil.rmtree, os.environ["GUIDE_CACHE_DIR"], ignore_errors=True)
