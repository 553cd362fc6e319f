"""The settings a `guide` command reads: its own options over the environment, as `guide serve` reads them (`guide.server.settings`)."""

import argparse
import sys
from pathlib import Path
from typing import Any

from guide.errors import GuideError
from guide.server.settings import SETTING, Settings, read_settings


def add_folder_options(parser: argparse.ArgumentParser) -> None:
    """The `--docroot` and `--project` options, as `guide serve` has them (the settings of the same names)."""
    for name in ("docroot", "project"):
        setting = SETTING[name]
        parser.add_argument(setting.flag, dest=name, type=Path, default=None, metavar=setting.metavar,
                            help=f"{setting.meaning} (default: {setting.variable}, else {setting.default_text})")


def settings_of(command: str, **options: Any) -> Settings | None:
    """The settings of `guide COMMAND`, its `options` (by setting name; None where not given) winning over the environment.

    None after printing the one line that says what is wrong: a malformed value,
    or a `GUIDE_*` variable that is not a setting but resembles one.
    """
    try:
        return read_settings(options)
    except GuideError as error:
        print(f"guide {command}: {error}", file=sys.stderr)
        return None
