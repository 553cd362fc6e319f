"""Hand-written FastMCP servers that Guide is measured against (B1, B2, B7).

They do by hand what Guide does declaratively, the way a FastMCP author would
write it: a fixed resource returning the rendered text, and a resource that asks
the bundled example's review forms itself (legacy: `ctx.session.elicit_form`
twice; 2026-07-28: an `InputRequiredResult` per round with its own small JSON
state). The benchmark checks that both sides send the same questions and return
the same text before timing anything.
"""

from __future__ import annotations

import json
import re

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ResourceError
from mcp_types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

MIME = "text/markdown"


def static_server(text: str, name: str = "bare") -> FastMCP:
    """B1/B7 baseline: `guide://_static` returns `text`, nothing else."""
    server = FastMCP(name)

    @server.resource("guide://_static", name="static", mime_type=MIME)
    async def static() -> str:  # async: a sync function would cost the baseline a worker-thread hop per read
        return text

    return server


# The forms of src/guide/examples/docroot/_commands/review.md, written out by hand.
TARGET_MESSAGE = "Choose what to review."
TARGET_SCHEMA = {
    "type": "object",
    "properties": {
        "mode": {
            "type": "string",
            "title": "Review target",
            "description": "What the review looks at.",
            "enum": ["uncommitted", "branch", "pull-request"],
        }
    },
    "required": ["mode"],
}
REFERENCE_MESSAGE = "Enter the branch or pull request."
REFERENCE_SCHEMA = {
    "type": "object",
    "properties": {"reference": {"type": "string", "title": "Branch or pull request", "pattern": "[A-Za-z0-9._/-]+"}},
    "required": ["reference"],
}
DEPTHS = ("quick", "thorough")
MODES = ("uncommitted", "branch", "pull-request")
REFERENCE_PATTERN = re.compile("[A-Za-z0-9._/-]+")


def render_review(mode: str, reference: str | None, depth: str) -> str:
    """The text review.md renders to, produced by hand."""
    if reference:
        what = f"Compare `{reference}` with the main branch and read every changed file."
    else:
        what = "Run `git diff` and read every uncommitted change."
    return (
        f"# Review: {mode}\n\n{what}\n\nReview depth: **{depth}**.\n\n"
        "Report findings as a list: file, line, what is wrong, and a suggested fix.\n"
    )


def _ask(form: str, message: str, schema: dict) -> ElicitRequest:
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def _accepted(form: str, action: str, content: dict | None) -> dict:
    if action != "accept" or content is None:
        raise ResourceError(f"form {form} was {action}ed")
    return content


def _mode(content: dict) -> str:
    mode = content.get("mode")
    if mode not in MODES:
        raise ResourceError(f"invalid mode {mode!r}")
    return mode


def _reference(content: dict) -> str:
    reference = content.get("reference")
    if not isinstance(reference, str) or not REFERENCE_PATTERN.fullmatch(reference):
        raise ResourceError(f"invalid reference {reference!r}")
    return reference


def review_server(name: str = "bare") -> FastMCP:
    """B2 baseline: the C5 branch flow of review.md (depth given as a keyword), by hand, in both eras."""
    server = FastMCP(name)

    @server.resource("guide://_review{?depth}", name="review", mime_type=MIME)
    async def review(ctx: Context, depth: str = "quick") -> str | InputRequiredResult:
        if depth not in DEPTHS:
            raise ResourceError(f"invalid depth {depth!r}")
        context = ctx.request_context
        if context is not None and context.protocol_version in MODERN_PROTOCOL_VERSIONS:
            state = json.loads(ctx.request_state) if ctx.request_state else {}
            for form, response in (ctx.input_responses or {}).items():
                content = _accepted(form, response.action, response.content)
                if form == "target":
                    state["mode"] = _mode(content)
                elif form == "reference":
                    state["reference"] = _reference(content)
            if "mode" not in state:
                return InputRequiredResult(
                    input_requests={"target": _ask("target", TARGET_MESSAGE, TARGET_SCHEMA)}, request_state=json.dumps(state)
                )
            if state["mode"] in ("branch", "pull-request") and "reference" not in state:
                return InputRequiredResult(
                    input_requests={"reference": _ask("reference", REFERENCE_MESSAGE, REFERENCE_SCHEMA)},
                    request_state=json.dumps(state),
                )
            return render_review(state["mode"], state.get("reference"), depth)
        answer = await ctx.session.elicit_form(TARGET_MESSAGE, TARGET_SCHEMA, related_request_id=ctx.request_id)
        mode = _mode(_accepted("target", answer.action, answer.content))
        reference = None
        if mode in ("branch", "pull-request"):
            answer = await ctx.session.elicit_form(REFERENCE_MESSAGE, REFERENCE_SCHEMA, related_request_id=ctx.request_id)
            reference = _reference(_accepted("reference", answer.action, answer.content))
        return render_review(mode, reference, depth)

    return server
