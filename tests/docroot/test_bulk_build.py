"""A bulk build (a listing, guide check) leaves no garbage cycles: every one would cost the collector a pass over the whole build."""

import gc

from bench.harness.docroot_gen import generate
from guide.docroot.folder import Docroot
from guide.docroot.lint import report as lint_report


def test_a_bulk_build_leaves_no_garbage_cycles_to_freeze(tmp_path):
    generate(tmp_path / "docroot", 200)  # every field type, `when` branches, partials, skills
    gc.collect()
    snapshot = Docroot(tmp_path / "docroot").build()
    snapshot.every("command")
    snapshot.every("skill")
    lint_report(snapshot)
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        ours = [item for item in gc.garbage if str(getattr(item, "__module__", "")).startswith("guide")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert ours == [], f"garbage cycles made while building: {ours[:5]}"
