"""A second, independent client on the legacy era: the TypeScript MCP SDK (tests/e2e/node).

`node client.mjs` spawns `python -m guide serve` over stdio, declares form
elicitation, answers every `elicitation/create` from a plan, reads one resource
and prints what it rendered and what it was asked.
"""

from pathlib import Path

import pytest
import yaml
from node_support import requires_node_client, run_node_client

from guide.examples import DOCROOT

NODE_DIR = Path(__file__).resolve().parent / "node"
TIMEOUT = 120  # seconds for node + server start + three elicitation round trips

pytestmark = [requires_node_client(NODE_DIR, "@modelcontextprotocol/sdk"), pytest.mark.slow]  # an outside client: run by .ci/run with -m slow

TEXT_AFTER = "\nReport findings as a list: file, line, what is wrong, and a suggested fix.\n"


@pytest.fixture
def mode() -> str:
    """The handshake era only (all the TypeScript SDK speaks); overrides any folder-wide per-era `mode`."""
    return "legacy"


def frontmatter(path: Path) -> dict:
    """The YAML frontmatter of a docroot file, read independently of Guide's own loader."""
    _, header, _ = path.read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(header)


def declared(form: str) -> tuple[str, dict]:
    """(message, schema) of a form as the example docroot declares it."""
    for source in (DOCROOT / "_commands" / "review.md", DOCROOT / "_partials" / "review-depth.md"):
        forms = frontmatter(source).get("elicitation", {})
        if form in forms:
            return forms[form]["message"], forms[form]["schema"]
    raise KeyError(form)


def without(schema: dict, keyword: str) -> dict:
    """`schema` with `keyword` dropped from every property schema."""
    properties = {name: {k: v for k, v in field.items() if k != keyword} for name, field in schema["properties"].items()}
    return {**schema, "properties": properties}


def run_client(tmp_path: Path, plan: dict, uri: str = "guide://_review") -> dict:
    return run_node_client(NODE_DIR, DOCROOT, uri, plan, tmp_path, TIMEOUT)


def test_typescript_sdk_client_answers_every_form_on_the_legacy_era(tmp_path):
    result = run_client(tmp_path, {"mode": "branch", "reference": "feature/x", "depth": "thorough"})

    assert result["protocolVersion"] == "2025-11-25"
    assert result["server"]["name"] == "guide"
    assert result["text"] == (
        "# Review: branch\n\n"
        "Compare `feature/x` with the main branch and read every changed file.\n\n"
        "Review depth: **thorough**.\n" + TEXT_AFTER
    )
    # Legacy asks one form at a time, in declaration order: the command's forms, then the partial's.
    assert [entry["message"] for entry in result["asked"]] == [declared(form)[0] for form in ("target", "reference", "depth")]
    for entry, form in zip(result["asked"], ("target", "reference", "depth"), strict=True):
        schema = declared(form)[1]
        # On the wire Guide sends the declared schema unchanged ...
        assert entry["wireSchema"] == schema, form
        # ... and the SDK hands it to the handler parsed to MCP's restricted schema subset:
        # its StringSchema has no `pattern`, so that keyword (outside the spec's subset) is dropped.
        assert entry["schema"] == without(schema, "pattern"), form


def test_typescript_sdk_client_is_not_asked_a_form_whose_condition_fails(tmp_path):
    result = run_client(tmp_path, {"mode": "uncommitted", "depth": "quick"})

    assert result["text"] == "# Review: uncommitted\n\nRun `git diff` and read every uncommitted change.\n\nReview depth: **quick**.\n" + TEXT_AFTER
    assert [entry["message"] for entry in result["asked"]] == [declared("target")[0], declared("depth")[0]]
    assert [entry["wireSchema"] for entry in result["asked"]] == [declared("target")[1], declared("depth")[1]]
