"""The MCP client behind `guide try`: a Guide subprocess over stdio, forms answered in the terminal or from a file."""

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport
from mcp import MCPError
from rich.console import Console

from guide.cli.terminal_form import TerminalForm
from guide.protocol import FORM_META


def run_try(options: argparse.Namespace) -> int:
    """Start Guide over stdio, read the address, print the rendered text; exit 1 on an error."""
    console = Console(stderr=True, highlight=False)
    try:
        answerer = _file_answers(options.answers) if options.answers else TerminalForm(console)
    except (OSError, ValueError) as error:
        console.print(f"guide try: cannot read the answers file: {error}", markup=False)
        return 2
    try:
        text = asyncio.run(read(options, answerer))
    except MCPError as error:
        console.print(f"guide try: {error.error.message}", markup=False, style="red")
        return 1
    except KeyboardInterrupt:
        console.print("guide try: interrupted", style="red")
        return 130
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


async def read(options: argparse.Namespace, answerer: Any) -> str:
    """Read one address through a Guide subprocess and return the rendered text."""
    args = ["-m", "guide", "serve", "--docroot", str(options.docroot)]
    if options.project:
        args += ["--project", str(options.project)]
    env = {**os.environ, "FASTMCP_LOG_LEVEL": os.environ.get("FASTMCP_LOG_LEVEL", "ERROR")}
    # The server's own log would interleave with the form prompts; failures reach us as MCP errors.
    server_log = open(os.devnull, "w")
    transport = StdioTransport(command=sys.executable, args=args, env=env, log_file=server_log)
    one_at_a_time = asyncio.Lock()

    async def handler(message: str, response_type: Any, params: Any, context: Any) -> Any:
        form = (params.meta or {}).get(FORM_META) or str(context.request_id)
        async with one_at_a_time:
            return await asyncio.to_thread(answerer, form, message, params.requested_schema)

    with server_log:
        async with Client(transport, mode=options.protocol, elicitation_handler=handler) as client:
            contents = await client.read_resource(options.uri)
    return "".join(getattr(item, "text", "") for item in contents)


def _file_answers(path: Path):
    answers = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(answers, dict):
        raise ValueError("the answers file must hold a JSON object keyed by form id")
    for form, answer in answers.items():
        if not isinstance(answer, dict) and answer not in ("decline", "cancel"):
            raise ValueError(f'the answer for {form} must be an object of field values, "decline" or "cancel"')

    def answer(form: str, message: str, schema: dict) -> Any:
        given = answers.get(form, "cancel")
        return given if isinstance(given, dict) else ElicitResult(action=given)

    return answer
