"""Run one scenario in one channel, through a session of the run's clients: native forms, the App form's tools, the agent, keywords.

Each channel ends in an `Outcome`. Native forms: a legacy read whose forms the
person answers as they come (`Answering`), or 2026-07-28 rounds answered here.
The App form: `open_form`, then `submit_form` with the person's answers until
it renders. The agent: a client without forms reads the address, puts each
question of the failure's data to the person (docs/errors.md, "The agent
channel"), and reads again with their answers. Keywords: one read with every
value the person gave the native forms.
"""

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp import ClientSession, MCPError
from mcp_types import ElicitRequest, GetPromptResult, InputRequiredResult, TextContent

from guide.cli.inputs import with_values
from guide.cli.scenarios.clients import MODERN, Clients, reply
from guide.cli.scenarios.outcome import Outcome, failed, from_data, in_order
from guide.cli.scenarios.person import Person
from guide.forms.values import same_value
from guide.protocol import ROUTE_PROMPT
from guide.server.channels.app import OPEN_TOOL, SUBMIT_TOOL

MAX_ROUNDS = 16
"""The most rounds (2026-07-28 retries, App submissions, agent reads) one run may take before it is called stuck."""


@dataclass(frozen=True)
class Reading:
    """What a scenario reads: an address, or a line of the `guide` prompt."""

    uri: str | None = None
    line: str | None = None

    def adding(self, values: Mapping[str, Any]) -> "Reading":
        """The same read with `values` as keywords (an address) or flags (a prompt line); a list gives one per item."""
        pairs = [(name, text) for name, value in values.items() for text in as_texts(value)]
        if not pairs:
            return self
        if self.uri is not None:
            return Reading(uri=with_values(self.uri, [f"{name}={text}" for name, text in pairs]))
        return Reading(line=" ".join([self.line or "", *(shlex.quote(f"--{name}={text}") for name, text in pairs)]))

    async def get(self, session: ClientSession, **rounds: Any) -> Any:
        """Read it once (`rounds`: a 2026-07-28 retry's answers and state)."""
        if self.uri is not None:
            return await session.read_resource(self.uri, **rounds)
        return await session.get_prompt(ROUTE_PROMPT, {"command": self.line or ""}, **rounds)


def as_texts(value: Any) -> list[str]:
    """A value as keyword texts: a boolean in lower case, a whole number without a fraction, a list item by item."""
    if isinstance(value, list):
        return [text for item in value for text in as_texts(item)]
    if isinstance(value, bool):
        return ["true" if value else "false"]
    if isinstance(value, float) and value.is_integer():
        return [str(int(value))]
    return [str(value)]


def text_of(result: Any) -> str:
    """The text of a rendered read: a resource's contents, or a prompt's messages."""
    if isinstance(result, GetPromptResult):
        return "".join(message.content.text for message in result.messages if isinstance(message.content, TextContent))
    return "".join(getattr(content, "text", "") for content in result.contents)


async def native(clients: Clients, kind: str, era: str, reading: Reading, person: Person, order: Sequence[str]) -> Outcome:
    """A client that shows forms (`kind` forms or url): the person answers each form as it is asked."""
    session = await clients.session(kind, era)
    try:
        if era == MODERN:
            return await _rounds(session, reading, person, order)
        clients.answering.person = person
        return Outcome(text_of(await reading.get(session)), asked=in_order(person.asked, order))
    except MCPError as error:
        return failed(error, in_order(person.asked, order))
    finally:
        clients.answering.person = None


async def _rounds(session: ClientSession, reading: Reading, person: Person, order: Sequence[str]) -> Outcome:
    """A 2026-07-28 read: every pending form of each `input_required` round answered, then retried with the state."""
    result = await reading.get(session, allow_input_required=True)
    for _ in range(MAX_ROUNDS):
        if not isinstance(result, InputRequiredResult):
            return Outcome(text_of(result), asked=in_order(person.asked, order))
        responses = {}
        for key, request in result.input_requests.items():
            if not isinstance(request, ElicitRequest):
                return Outcome(message=f"the server asked for {request.method}, which a scenario cannot answer", asked=in_order(person.asked, order))
            responses[key] = reply(person, key, request.params)
        result = await reading.get(session, allow_input_required=True, input_responses=responses, request_state=result.request_state)
    return Outcome(message=f"the read still asks after {MAX_ROUNDS} rounds", asked=in_order(person.asked, order))


async def app_form(clients: Clients, era: str, reading: Reading, person: Person, order: Sequence[str]) -> Outcome:
    """A client that renders MCP Apps: the form opened with `open_form`, each round submitted with `submit_form`."""
    session = await clients.session("apps", era)
    uri = reading.uri or ""
    try:
        result = await session.call_tool(OPEN_TOOL, {"uri": uri})
        for _ in range(MAX_ROUNDS):
            shown = result.structured_content or {}
            if result.is_error:
                said = "".join(getattr(content, "text", "") for content in result.content)
                return from_data(shown, said, in_order(person.asked, order))
            if shown.get("guide") != "form":
                return Outcome(str(shown.get("text", "")), asked=in_order(person.asked, order))
            answers = {}
            for form in shown.get("forms", []):
                action, content = person.form(form["id"], form["schema"])
                answers[form["id"]] = {"action": action, "content": content} if content is not None else {"action": action}
            result = await session.call_tool(SUBMIT_TOOL, {"uri": uri, "state": shown.get("state"), "answers": answers})
    except MCPError as error:
        return failed(error, in_order(person.asked, order))
    return Outcome(message=f"the App form still asks after {MAX_ROUNDS} rounds", asked=in_order(person.asked, order))


async def agent(clients: Clients, era: str, reading: Reading, person: Person, order: Sequence[str]) -> Outcome:
    """A client without forms: each question of the failure put to the person, the address read again with their answers."""
    session = await clients.session("none", era)
    given: dict[str, Any] = {}
    known: dict[str, Any] = {}
    asked: list[str] = []
    for _ in range(MAX_ROUNDS):
        try:
            return Outcome(text_of(await reading.adding(given).get(session)), asked=in_order(asked, order))
        except MCPError as error:
            data = error.error.data
            questions = data.get("questions") if isinstance(data, Mapping) and data.get("reason") == "missing" else None
            if not isinstance(questions, list) or not _tell(person, questions, given, known, asked):
                return failed(error, in_order(asked, order))
    return Outcome(message=f"the agent is still asked after {MAX_ROUNDS} reads", asked=in_order(asked, order))


def _tell(person: Person, questions: list[Any], given: dict[str, Any], known: dict[str, Any], asked: list[str]) -> bool:
    """Put each question whose condition holds to the person; whether they gave a value not given before."""
    added = False
    for question in questions:
        if not isinstance(question, Mapping) or "url" in question or _holds(question.get("when"), known) is not True:
            continue  # a link the agent gives the person cannot tell Guide it was opened; a follow-up waits for its condition
        form = str(question.get("form"))
        asked.append(form)
        for field in [*question.get("fields", []), *question.get("defaults", [])]:
            keyword, default = str(field.get("keyword")), field.get("default")
            if keyword in given:
                continue
            gives, value = person.gives(form, keyword, default)
            if gives:
                given[keyword] = known[keyword] = value
                added = True
            elif default is not None:
                known[keyword] = default
    return added


def _holds(when: Any, known: Mapping[str, Any]) -> bool | None:
    """A question's condition against what the agent knows: True, False, or None while a field it names is unknown."""
    for name, values in (when or {}).items() if isinstance(when, Mapping) else ():
        if name not in known:
            return None
        if not any(same_value(known[name], value) for value in values):
            return False
    return True


async def keywords(clients: Clients, era: str, reading: Reading, values: Mapping[str, Any]) -> Outcome:
    """One read, by a client without forms, with every value the person gave the native forms as keywords."""
    session = await clients.session("none", era)
    try:
        return Outcome(text_of(await reading.adding(values).get(session)))
    except MCPError as error:
        return failed(error)
