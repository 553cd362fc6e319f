"""The bundled example docroot, served when no other is given."""

from pathlib import Path

DOCROOT = Path(__file__).resolve().parent / "docroot"
