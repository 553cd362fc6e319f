"""Helpers shared by several test folders; conftest modules hold fixtures only.

- `servers`: `guide serve --transport http` in a child process under an address-space ceiling
- `eras`: the two protocol eras a client test runs in
- `files`: writing docroot files, comparing parsed values strictly
- `forms`: declaring forms in the pure core's tests
- `fuzzing`: the fuzzing budget (`GUIDE_FUZZ_EXAMPLES`)
- `gitrepo`: real git repositories made in a test, and a `git` that never answers
- `terminal`: children of the interactive commands' tests get Ctrl-C's default meaning

Import them as `from support.NAME import ...` (pytest puts `tests/` on the path).
"""
