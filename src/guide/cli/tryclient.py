"""The MCP client behind `guide try`: a Guide subprocess over stdio, forms answered in the terminal or from a file.

The client runs in a worker thread while the main thread answers its forms, so
the terminal belongs to the main thread: Ctrl-C interrupts the prompt at once
(exit status 130) instead of waiting for the field to be answered.
"""

import argparse
import asyncio
import os
import queue
import sys
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport
from mcp import MCPError
from mcp_types import Implementation
from rich.console import Console

from guide import __version__
from guide.cli.inputs import NO_FIELDS, FileAnswers, Reply, check_form_ids, read_answers, with_values
from guide.cli.terminal_form import TerminalForm
from guide.clients import TRY_CLIENT as CLIENT_NAME
from guide.errors import GuideError
from guide.protocol import FORM_META
from guide.routes.lookup import AddressRead, Call, resolve
from guide.server.settings import SETTING, Settings, child_environment, open_docroot, read_settings
from guide.text import for_terminal

INTERRUPTED = 130
"""The exit status of a program stopped by Ctrl-C (128 + SIGINT)."""

Answerer = Callable[[str, str, dict[str, Any]], Reply]


def run_try(options: argparse.Namespace) -> int:
    """Start Guide over stdio, read the address, print the rendered text; exit 1 on an error, 130 on Ctrl-C."""
    # Never wrap what is not a terminal: a piped error line stays one line.
    console = Console(stderr=True, highlight=False, soft_wrap=not sys.stderr.isatty())
    if options.docroot is not None and not options.docroot.is_dir():
        _say(console, f"guide try: {options.docroot} is not a folder")
        return 2
    try:
        settings = read_settings({"docroot": options.docroot, "project": options.project})
        uri = with_values(options.uri, options.values)
        answerer = _file_answerer(options, settings, uri) if options.answers else TerminalForm(console)
    except GuideError as error:
        _say(console, f"guide try: {error}")
        return 2
    desk = Desk(answerer)
    try:
        text = desk.run(lambda: read(options, settings, uri, desk.handler))
    except KeyboardInterrupt:
        return _end(desk, console, "guide try: interrupted", INTERRUPTED)
    except MCPError as error:
        return _end(desk, console, f"guide try: {error.error.message}", 1)
    except GuideError as error:
        return _end(desk, console, f"guide try: {error}", 1)
    text = text if text.endswith("\n") else text + "\n"
    sys.stdout.write(for_terminal(text) if sys.stdout.isatty() else text)  # piped, the rendered text stays exactly as rendered
    return 0


def _end(desk: "Desk", console: Console, line: str, status: int) -> int:
    """Report why `guide try` stops; if the client is still running, stop the process at once."""
    _say(console, line)
    if desk.abandoned:
        # The client thread cannot be stopped from here, and tearing the interpreter
        # down around it takes about half a second: end now. The server's input
        # closes with this process, and it exits.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


@dataclass
class _Ask:
    form: str
    message: str
    schema: dict[str, Any]
    reply: Future = field(default_factory=Future)


class Desk:
    """Hands the client's form requests to the main thread, one at a time, and their replies back."""

    def __init__(self, answerer: Answerer):
        self.answerer = answerer
        self.inbox: queue.Queue[_Ask | None] = queue.Queue()
        self.declined = False
        self.abandoned = False
        """Whether the main thread gave up (Ctrl-C, a bad answer) while the client was still running."""

    async def handler(self, message: str, response_type: Any, params: Any, context: Any) -> Any:
        """The client's elicitation handler: wait for the main thread's reply to this form."""
        form = (params.meta or {}).get(FORM_META) or str(context.request_id)
        url = getattr(params, "url", None)  # a URL step: the person opens the link; accepting sends no values
        ask = _Ask(form, f"{message}\n\nOpen this link: {url}" if url else message, NO_FIELDS if url else params.requested_schema)
        self.inbox.put(ask)
        reply = await asyncio.wrap_future(ask.reply)
        return reply if isinstance(reply, dict) else ElicitResult(action=reply)

    def run(self, read: Callable[[], Coroutine[Any, Any, str]]) -> str:
        """Run `read` in a worker thread, answering its forms here; return its text or raise its error.

        The worker is a daemon: when the main thread gives up (Ctrl-C, a bad
        answer), the process ends without waiting for the client, and the server
        ends when its input closes.
        """
        result: Future = Future()

        def work() -> None:
            try:
                result.set_result(asyncio.run(read()))
            except BaseException as error:  # handed to the main thread, which reports it
                result.set_exception(error)
            finally:
                self.inbox.put(None)

        worker = threading.Thread(target=work, name="guide-try-client", daemon=True)
        worker.start()
        try:
            while (ask := self.inbox.get()) is not None:
                self._answer(ask)
        except BaseException:
            self.abandoned = worker.is_alive()
            raise
        return result.result()

    def _answer(self, ask: _Ask) -> None:
        if self.declined:
            # A decline ends the interaction; forms asked with it in the same round are not shown.
            ask.reply.set_result("decline")
            return
        reply = self.answerer(ask.form, ask.message, ask.schema)
        self.declined = reply == "decline"
        ask.reply.set_result(reply)


async def read(options: argparse.Namespace, settings: Settings, uri: str, handler: Any) -> str:
    """Read one address through a Guide subprocess (given this process's settings) and return the rendered text."""
    args = ["-m", "guide", "serve", SETTING["docroot"].flag, str(settings.docroot)]
    if settings.project:
        args += [SETTING["project"].flag, str(settings.project)]
    env = child_environment({"FASTMCP_LOG_LEVEL": "ERROR"})
    # The server's own log would interleave with the form prompts; failures reach us as MCP errors.
    with open(os.devnull, "w") as server_log:
        transport = StdioTransport(command=sys.executable, args=args, env=env, log_file=server_log)
        named = Implementation(name=CLIENT_NAME, version=__version__)  # the client table knows a person types every answer here
        async with Client(transport, mode=options.protocol, elicitation_handler=handler, client_info=named) as client:
            contents = await client.read_resource(uri)
    return "".join(getattr(item, "text", "") for item in contents)


def _file_answerer(options: argparse.Namespace, settings: Settings, uri: str) -> FileAnswers:
    """The answers file, its form ids checked against the entrypoint when the docroot resolves the address."""
    answers = read_answers(options.answers)
    try:
        found = resolve(open_docroot(settings).build(), AddressRead(uri))
    except GuideError:
        found = None  # the server reports what is wrong with the address
    if isinstance(found, Call):
        check_form_ids(answers, [form.id for form in found.entrypoint.forms.forms], found.entrypoint.uri)
    return FileAnswers(answers)


def _say(console: Console, line: str) -> None:
    console.print(for_terminal(line), markup=False, emoji=False, highlight=False, soft_wrap=True, style="red")
