"""Scenario files: what an author expects each command or skill to do, kept in the docroot's `_tests` folder (docs/testing.md)."""
