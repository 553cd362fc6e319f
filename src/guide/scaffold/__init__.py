"""The starter docroot that `guide init` copies: one of each kind of file."""

from pathlib import Path

DOCROOT = Path(__file__).resolve().parent / "docroot"
