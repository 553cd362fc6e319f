"""A client's text cannot forge a log line (issue 33, finding 4): every record is written on one line, its control characters escaped."""

import logging

from support.logs import written

from guide.server.logs import LOG_LINE_LENGTH
from guide.text import for_log

FORGED = "2026-01-01 00:00:00 INFO forged"


def _log(*args) -> str:
    return written(lambda logger: logger.info(*args))


def test_an_address_with_a_newline_cannot_start_a_line_of_its_own():
    written = _log("%s read %s (%s, %s): %s in %.1f ms", "-", f"guide://x\n{FORGED}", "legacy", "resource", "ok", 1.0)
    assert len(written.splitlines()) == 1
    assert not any(line.startswith(FORGED) for line in written.splitlines())
    assert "guide://x\\n2026-01-01" in written


def test_client_values_are_escaped_and_clipped():
    assert for_log("a\r\n\x1b[31m\u202eb\u2066") == "a\\r\\n\\x1b[31m\\u202eb\\u2066"
    assert for_log("x" * 500) == "x" * 200 + "..."


def test_a_long_message_keeps_its_start_and_end_and_counts_what_was_left_out():
    written = _log("Error reading resource %r: %s", "guide://_x?" + "b" * 50_000, "the reason")
    assert len(written) < LOG_LINE_LENGTH + 100
    assert "guide://_x?bbb" in written and written.rstrip().endswith("bbb': the reason")
    left_out = len("Error reading resource 'guide://_x?': the reason") + 50_000 - LOG_LINE_LENGTH
    assert f" ...({left_out:,} characters left out)... " in written


def test_a_traceback_s_lines_are_indented_so_none_reads_as_a_record():
    def failing(logger: logging.Logger) -> None:
        try:
            raise ValueError(f"bad\n{FORGED}")
        except ValueError:
            logger.exception("failed")

    lines = written(failing).splitlines()
    assert lines[0].endswith("failed") and len(lines) > 2
    assert all(line.startswith("    ") for line in lines[1:])
    assert not any(line.startswith(FORGED) for line in lines)
