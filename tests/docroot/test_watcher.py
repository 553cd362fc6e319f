"""Issue 25, finding 3: the watch of a docroot (`FolderWatch`) covers the scan's folders only, and is made without holding the event loop."""

import asyncio
import os

from guide.docroot.watcher import CHUNK, FolderWatch

FOLDERS = 6 * CHUNK


def _tree(root, folders: int = FOLDERS) -> None:
    for index in range(folders):
        path = root / f"f{index // 50}" / f"g{index}"
        path.mkdir(parents=True)
        for page in range(3):
            (path / f"p{page}.md").write_text("x", encoding="utf-8")


def test_only_real_folders_the_scan_walks_are_watched(tmp_path):
    root = tmp_path / "docroot"
    (root / "_commands/nested").mkdir(parents=True)
    (root / ".git/objects").mkdir(parents=True)
    (root / "_drafts").mkdir()
    (tmp_path / "outside/deep").mkdir(parents=True)
    (root / "link").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "_commands/loop").symlink_to(root, target_is_directory=True)
    watch = FolderWatch(root)
    try:
        assert watch.folders == {str(root), str(root / "_commands"), str(root / "_commands/nested")}
    finally:
        watch.close()


async def test_a_large_docroot_is_watched_without_holding_the_event_loop_for_the_whole_set_up(tmp_path):
    """Polling looks at every file when it is set up, with the interpreter lock held: 1,200 folders took about 0.4 s.

    Made in pieces of `CHUNK` folders from a worker thread, the loop runs between
    them: the longest the loop waited is a fraction of the whole set-up (before,
    in one piece, it was all of it). A ratio, not a time: the machine may be slow.
    """
    _tree(tmp_path)
    lags: list[float] = []
    loop = asyncio.get_running_loop()

    async def probe() -> None:
        while True:
            began = loop.time()
            await asyncio.sleep(0.002)
            lags.append(loop.time() - began - 0.002)

    probing = asyncio.create_task(probe())
    await asyncio.sleep(0.05)
    began = loop.time()
    watch = await asyncio.to_thread(FolderWatch, tmp_path, polling=True)
    took = loop.time() - began
    probing.cancel()
    try:
        assert len(watch.folders) == FOLDERS + FOLDERS // 50 + 1
        assert max(lags) < took / 2, f"the loop waited {max(lags):.3f} s of a {took:.3f} s set-up"
        last = tmp_path / f"f{(FOLDERS - 1) // 50}" / f"g{FOLDERS - 1}" / "p0.md"
        last.write_text("edited", encoding="utf-8")  # in the last piece: every piece is asked
        later = last.stat().st_mtime + 5
        os.utime(last, (later, later))  # polling compares times in whole seconds: the tree was written within this one
        changes = await asyncio.to_thread(watch.changes, 50, 20, 10_000)
        assert (2, os.fspath(last)) in {(int(change), path) for change, path in changes}
    finally:
        watch.close()
