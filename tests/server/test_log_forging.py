"""A client's text cannot forge a log line (issue 33, finding 4): every record is written on one line, its control characters escaped."""

import io
import logging

from guide.server.logs import FORMAT, OneLine
from guide.text import for_log

FORGED = "2026-01-01 00:00:00 INFO forged"


def _log(*args) -> str:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(OneLine(FORMAT))
    logger = logging.getLogger("guide.test-forging")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        logger.info(*args)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


def test_an_address_with_a_newline_cannot_start_a_line_of_its_own():
    written = _log("%s read %s (%s, %s): %s in %.1f ms", "-", f"guide://x\n{FORGED}", "legacy", "resource", "ok", 1.0)
    assert len(written.splitlines()) == 1
    assert not any(line.startswith(FORGED) for line in written.splitlines())
    assert "guide://x\\n2026-01-01" in written


def test_client_values_are_escaped_and_clipped():
    assert for_log("a\r\n\x1b[31m\u202eb\u2066") == "a\\r\\n\\x1b[31m\\u202eb\\u2066"
    assert for_log("x" * 500) == "x" * 200 + "..."
