"""Helpers shared by several test folders (conftest modules hold fixtures only)."""
