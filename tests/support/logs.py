"""What Guide's log format writes of the records a test emits."""

import io
import logging
from collections.abc import Callable

from guide.server.logs import FORMAT, OneLine


def written(emit: Callable[[logging.Logger], object]) -> str:
    """The text Guide's one-line formatter writes for the records `emit` logs (at INFO and above) on a logger of its own."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(OneLine(FORMAT))
    logger = logging.getLogger("guide.test-written")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        emit(logger)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()
