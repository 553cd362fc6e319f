"""An independent client on the 2026-07-28 era: the TypeScript SDK v2 (tests/e2e/node-v2).

`node client.mjs` spawns `python -m guide serve` over stdio with the protocol pinned to
2026-07-28, declares form elicitation and reads one resource. Guide asks through
`input_required` results; the SDK answers each embedded request through its
`elicitation/create` handler (fed from a plan) and retries the read by itself. The
client prints what it rendered, what its handler was asked and each round as it
arrived on the wire.
"""

from pathlib import Path

import pytest
import yaml
from node_support import requires_node_client, run_node_client

from guide.docroot.frontmatter import split
from guide.examples import DOCROOT

NODE_DIR = Path(__file__).resolve().parent / "node-v2"
TIMEOUT = 120  # seconds for node, two server starts (the negotiation probe and the session) and the rounds

pytestmark = [requires_node_client(NODE_DIR, "@modelcontextprotocol/client"), pytest.mark.slow]  # an outside client: run by .ci/run with -m slow

REVIEW = (DOCROOT / "_commands" / "review.md", DOCROOT / "_partials" / "review-depth.md")
TEXT_AFTER = "\nReport findings as a list: file, line, what is wrong, and a suggested fix.\n"


@pytest.fixture
def mode() -> str:
    """The 2026-07-28 era only (the client is pinned to it); overrides the folder-wide per-era `mode`."""
    return "2026-07-28"


def declared(form: str) -> dict:
    """A form of the review command (or its partial) as the example docroot declares it, read without Guide."""
    for source in REVIEW:
        _, header, _ = source.read_text(encoding="utf-8").split("---\n", 2)
        forms = yaml.safe_load(header).get("elicitation", {})
        if form in forms:
            return forms[form]
    raise KeyError(form)


def run_client(tmp_path: Path, uri: str, plan: dict | None = None) -> dict:
    result = run_node_client(NODE_DIR, DOCROOT, uri, plan or {}, tmp_path, TIMEOUT)
    assert result["protocolVersion"] == "2026-07-28"
    assert result["server"]["name"] == "guide"
    assert result["elicitationRequests"] == 0  # this era never sends a server-to-client request
    return result


def test_typescript_v2_client_fulfils_a_branch_flow_through_input_required_rounds(tmp_path):
    result = run_client(tmp_path, "guide://_review", {"mode": "branch", "reference": "feature/x", "depth": "thorough"})

    assert result["text"] == (
        "# Review: branch\n\n"
        "Compare `feature/x` with the main branch and read every changed file.\n\n"
        "Review depth: **thorough**.\n" + TEXT_AFTER
    )
    # Round 1 holds every form that is pending: the target and the partial's depth. The reference
    # waits on `mode` and comes in round 2, once the answer `branch` meets its `when`.
    assert [sorted(round) for round in result["rounds"]] == [["depth", "target"], ["reference"]]
    for round in result["rounds"]:
        for form, schema in round.items():
            assert schema == declared(form)["schema"], form  # sent as declared, `pattern` included
    assert sorted(entry["message"] for entry in result["asked"][:2]) == sorted(declared(form)["message"] for form in ("target", "depth"))
    assert result["asked"][2]["message"] == declared("reference")["message"]


def test_typescript_v2_client_is_not_asked_a_form_whose_condition_fails(tmp_path):
    result = run_client(tmp_path, "guide://_review", {"mode": "uncommitted", "depth": "quick"})

    assert result["text"] == "# Review: uncommitted\n\nRun `git diff` and read every uncommitted change.\n\nReview depth: **quick**.\n" + TEXT_AFTER
    assert [sorted(round) for round in result["rounds"]] == [["depth", "target"]]
    assert len(result["asked"]) == 2


def test_typescript_v2_client_reads_a_document_without_a_round(tmp_path):
    result = run_client(tmp_path, "guide://lang/python")

    assert result["text"] == split((DOCROOT / "lang" / "python.md").read_text(encoding="utf-8")).body  # a document's frontmatter is never served
    assert result["rounds"] == [] and result["asked"] == []


def test_typescript_v2_client_gets_one_line_for_an_invalid_keyword(tmp_path):
    result = run_client(tmp_path, "guide://_review?mode=sideways", {"mode": "branch"})

    assert "text" not in result
    assert result["error"] == {
        "code": -32602,
        "message": "invalid keyword mode: sideways is not one of the choices; it accepts one of: uncommitted, branch, pull-request",
    }
    assert result["rounds"] == [] and result["asked"] == []
