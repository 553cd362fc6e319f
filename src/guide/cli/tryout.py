"""`guide try URI`: read an address through a real MCP client, answering forms in the terminal."""

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp import MCPError
from rich.console import Console

from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport
from guide.cli.terminal_form import TerminalForm
from guide.server.interact import FORM_META

PROTOCOLS = ("legacy", "2026-07-28")


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide try`."""
    parser = commands.add_parser("try", help="read an address as a client would, answering forms in the terminal")
    parser.add_argument("uri", help="a guide:// address, e.g. guide://_review")
    parser.add_argument("--docroot", type=Path, default=example, help="the docroot (default: the bundled example)")
    parser.add_argument("--project", type=Path, default=None, help="the project folder holding the workflow state file")
    parser.add_argument("--protocol", choices=PROTOCOLS, default="2026-07-28", help="protocol era (default: 2026-07-28)")
    parser.add_argument("--answers", type=Path, default=None, metavar="FILE.json",
                        help='answer forms from a JSON object keyed by form id: {field: value, ...}, "decline" or "cancel"')
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
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
