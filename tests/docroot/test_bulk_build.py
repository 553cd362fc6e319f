"""A bulk build (a listing, guide check) freezes what it built: it must leave no garbage behind, or that garbage is never freed."""

import gc

from bench.docroot_gen import generate
from guide.docroot.folder import Docroot


def test_a_bulk_build_leaves_no_garbage_cycles_to_freeze(tmp_path):
    generate(tmp_path / "docroot", 200)  # every field type, `when` branches, partials, skills
    gc.unfreeze()  # what earlier builds in this process froze, garbage included, is collected first
    gc.collect()
    snapshot = Docroot(tmp_path / "docroot").snapshot()
    snapshot.commands()
    snapshot.skills()
    snapshot.problems()
    gc.unfreeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        ours = [item for item in gc.garbage if str(getattr(item, "__module__", "")).startswith("guide")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert ours == [], f"garbage cycles made while building: {ours[:5]}"
