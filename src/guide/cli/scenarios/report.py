"""What `guide test` prints: text for a person, JSON for a program, JUnit XML for a CI system."""

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence

from guide.cli.scenarios.compare import Difference
from guide.cli.scenarios.run import ERROR, FAILED, PASSED, UPDATED, Result, counts
from guide.text import for_terminal, one_line

MARKS = {PASSED: "PASS", FAILED: "FAIL", ERROR: "ERROR", UPDATED: "UPDATED"}


def text(results: Sequence[Result], seconds: float) -> str:
    """One line per scenario, each difference (with its diff) below a failure, then the tally."""
    lines = []
    for result in results:
        ran, every = sum(outcome.skipped is None for outcome in result.outcomes.values()), len(result.outcomes)
        counted = f"{ran} channel{'s' if ran != 1 else ''}" if ran == every else f"{ran} of {every} channels"  # JSON says why
        extra = f" ({counted})" if result.status in (PASSED, UPDATED) else ""
        written = f"; wrote {result.updated}" if result.updated else ""
        lines.append(f"{MARKS[result.status]} {result.path}:{result.line} {result.name}{extra}{written}")
        lines += [f"  {problem.path}:{problem.line}: {problem.message}" for problem in result.problems]
        for difference in result.differences:
            lines.append(f"  {difference_line(result, difference)}")
            lines += [f"    {line}" for line in difference.diff.splitlines()]
    lines.append(tally(results, seconds))
    return for_terminal("\n".join(lines))


def difference_line(result: Result, difference: Difference) -> str:
    """A difference in one line: where in the scenario file, which channels, and what."""
    ran = [channel for channel, outcome in result.outcomes.items() if outcome.skipped is None]
    if not difference.channels:
        return one_line(f"{result.path}:{difference.line}: {difference.message}")
    named = f"every channel ({len(ran)})" if set(difference.channels) == set(ran) and len(ran) > 1 else ", ".join(difference.channels)
    return one_line(f"{result.path}:{difference.line}: {named}: {difference.message}")


def tally(results: Sequence[Result], seconds: float) -> str:
    """The closing line: how many scenarios passed, failed, could not run, were updated; and how long the run took."""
    found = counts(results)
    parts = [f"{found[PASSED]} passed"] + [f"{found[status]} {word}" for status, word in
                                            ((FAILED, "failed"), (ERROR, "could not run"), (UPDATED, "updated")) if found[status]]
    return f"{', '.join(parts)} ({len(results)} scenario{'s' if len(results) != 1 else ''} in {seconds:.2f} s)"


def as_json(results: Sequence[Result], seconds: float) -> str:
    """One JSON object: each scenario with its status, each channel's outcome, its differences and problems; then the counts."""
    return json.dumps({
        "scenarios": [{
            "file": result.path, "line": result.line, "name": result.name, "status": result.status,
            "channels": {channel: outcome.as_json() for channel, outcome in result.outcomes.items()},
            "differences": [{"line": d.line, "channels": list(d.channels), "message": d.message, "diff": d.diff} for d in result.differences],
            "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in result.problems],
            "updated": result.updated,
        } for result in results],
        "summary": {**counts(results), "scenarios": len(results), "seconds": round(seconds, 3)},
    }, indent=2, ensure_ascii=False)


def junit(results: Sequence[Result], seconds: float) -> str:
    """JUnit XML: a test suite per scenario file, a test case per scenario (a file that cannot be read: one case, in error)."""
    found = counts(results)
    root = ElementTree.Element("testsuites", name="guide test", tests=str(len(results)), failures=str(found[FAILED]),
                               errors=str(found[ERROR]), time=f"{seconds:.3f}")
    for path in dict.fromkeys(result.path for result in results):
        mine = [result for result in results if result.path == path]
        mine_found = counts(mine)
        suite = ElementTree.SubElement(root, "testsuite", name=_xml_text(path), tests=str(len(mine)), failures=str(mine_found[FAILED]),
                                       errors=str(mine_found[ERROR]), skipped="0", time=f"{sum(r.seconds for r in mine):.3f}")
        for result in mine:
            case = ElementTree.SubElement(suite, "testcase", classname=_xml_text(path), name=_xml_text(result.name), file=_xml_text(path),
                                          line=str(result.line),
                                          time=f"{result.seconds:.3f}")
            if result.status == FAILED:
                first = difference_line(result, result.differences[0])
                failure = ElementTree.SubElement(case, "failure", message=_xml_text(first), type="mismatch")
                failure.text = _xml_text("\n".join(f"{difference_line(result, d)}\n{d.diff}" for d in result.differences))
            elif result.status == ERROR:
                lines = [f"{problem.path}:{problem.line}: {problem.message}" for problem in result.problems]
                error = ElementTree.SubElement(case, "error", message=_xml_text(lines[0] if lines else "cannot run"), type="scenario")
                error.text = _xml_text("\n".join(lines))
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


def _xml_text(text: str) -> str:
    """`text` without the characters XML 1.0 cannot hold (controls other than tab and newline), each shown as an escape."""
    return "".join(char if char in "\t\n\r" or (" " <= char and char not in "\ufffe\uffff" and not "\ud800" <= char <= "\udfff")
                   else f"\\x{ord(char):02x}" for char in text)
