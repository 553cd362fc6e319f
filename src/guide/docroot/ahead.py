"""Parsing a docroot's template files ahead, in worker processes: `guide check` of a large docroot on several cores.

Reading YAML is the largest part of checking a docroot that no kept parse
covers. The caller and each worker read and parse a share of the files the
build has not read (`filework.read_and_split`); the caller notes each result through the
same path a read of its own takes (`Files.note_read`), so the frontmatter,
the digest of the text and the store's kept parses come out as if it had read
every file itself. The checks that follow read each file again for its body
(cheap) and find its frontmatter noted for that very text; a file changed in
between is parsed again.

The workers are forked from a server process started for them (`forkserver`),
never from the caller, which may hold threads; a pool that cannot start or
breaks leaves the files to be read one by one, as without it.
"""

import logging
import multiprocessing
import os
from functools import partial
from pathlib import Path

from guide import collector
from guide.docroot.filework import Files, read_and_split
from guide.docroot.snapshot import Source

LEAST_FILES = 1000
"""Fewer unread files than this are read in the caller: starting the workers would cost more than it saves."""
SHARES_PER_WORKER = 4
_log = logging.getLogger(__name__)


def workers_here() -> int:
    """How many processes a check may parse in at once: the cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def parse_ahead(files: Files, workers: int, least: int = LEAST_FILES) -> int:
    """Read and parse the files `files` has not read, in this process and `workers - 1` others, noting each; how many were parsed so."""
    if workers < 2:
        return 0
    unread = files.unread()
    if len(unread) < least:
        return 0
    from concurrent.futures import ProcessPoolExecutor  # imported here: a server's start check never runs a pool
    from concurrent.futures.process import BrokenProcessPool
    sources = [files.snapshot.sources[rel] for rel in unread]
    own, theirs = sources[::workers], [source for at, source in enumerate(sources) if at % workers]
    count = (workers - 1) * SHARES_PER_WORKER
    shares = [theirs[start::count] for start in range(count)]
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    done = 0
    try:
        with ProcessPoolExecutor(workers - 1, mp_context=context) as pool:
            results = pool.map(partial(_read_share, files.snapshot.root, files.limit), shares)
            for source in own:  # while the other processes read theirs
                files.note_read(source.path, *read_and_split(files.snapshot.root, source, files.limit))
                done += 1
            for share, read in zip(shares, results):
                for source, (text, split) in zip(share, read):
                    files.note_read(source.path, text, split)
                    done += 1
    except (BrokenProcessPool, OSError) as error:
        _log.warning("parsing ahead in %d processes stopped (%s); the rest are read one by one", workers, error)
    return done


def _read_share(root: Path, limit: int, share: list[Source]) -> list:
    """In a worker: each file of the share read and split (bulk work, as in the caller: `guide.collector`)."""
    with collector.paused():
        return [read_and_split(root, source, limit) for source in share]
