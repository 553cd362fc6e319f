"""Run the `guide` command line as `python -m guide`."""

from guide.cli import run

run()
