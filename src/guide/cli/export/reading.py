"""Read one entrypoint for the export: rendered through the one read path, or, without the person's answers, left open.

A read goes as `guide render` sends it (`Service.find`, then `Service.call`):
through the agent's channel with the keywords its address and `--set` give, or
answering forms from an `--answers` file. When only the person could complete
it, the agent channel's failure holds the questions to ask
(`guide.forms.questions`); the body is then rendered with those values left
open (`guide.forms.left_open`, `guide.routes.open_finish`), for the exported
skill to ask them itself. A skill's members are read as their `guide://`
addresses serve them.
"""

from dataclasses import dataclass
from functools import partial

from guide import address
from guide.cli.inputs import FileAnswers, Reply, check_form_ids
from guide.cli.rendering import FromFile
from guide.docroot.entrypoints import Entrypoint
from guide.errors import GuideError
from guide.forms.described import PersonQuestion
from guide.forms.failure import Fail
from guide.forms.left_open import left_open
from guide.forms.step import Outcome, Request
from guide.routes.lookup import AddressRead, Call
from guide.routes.open_finish import finish_open
from guide.server import work
from guide.server.channels.agent import Agent
from guide.server.service import Service, Turn
from guide.server.skill_digests import members


@dataclass(frozen=True)
class Read:
    """What one exported entrypoint says: its body, the questions to ask first (none: rendered with every value), its members."""

    entrypoint: Entrypoint
    uri: str
    """The address it was read as, with the keywords it was given."""
    body: str
    questions: tuple[PersonQuestion, ...] = ()
    members: tuple[tuple[str, str], ...] = ()
    """Each member of a skill: its path within the skill, and its text as its address serves it."""


async def read_entry(service: Service, uri: str, answers: dict[str, Reply] | None = None) -> Read:
    """Read `uri` (a command or skill address) for the export; a read that cannot be exported raises its one-line error."""
    found = await service.find(AddressRead(uri))
    if not isinstance(found, Call):
        raise GuideError(f"{uri} names no command or skill: guide export-skills exports those (documents stay on the server)")
    entrypoint = found.entrypoint
    seen: list[tuple[Request, Outcome]] = []

    def observe(request: Request, outcome: Outcome) -> None:
        seen.append((request, outcome))

    if answers is None:
        turn = Turn(Agent(), observe=observe)
    else:
        check_form_ids(answers, [form.id for form in entrypoint.forms.forms], entrypoint.uri)
        turn = Turn(FromFile(FileAnswers(answers)), links=True, observe=observe)
    questions: tuple[PersonQuestion, ...] = ()
    try:
        text = await service.call(AddressRead(uri), found, turn)
    except GuideError:
        outcome = seen[-1][1] if seen else None
        if answers is not None or not isinstance(outcome, Fail) or outcome.kind != "missing":
            raise
        request = seen[-1][0]
        questions = tuple(outcome.questions)
        left = left_open(request, questions)
        text = await work.off_loop(partial(finish_open, max_output=service.max_output), found, left, request.active_phase)
    if not isinstance(text, str):  # a channel that waits for answers: none of these does
        raise GuideError(f"{uri} could not be rendered without a client")
    return Read(entrypoint, uri, text, questions, await _members(service, found))


async def _members(service: Service, call: Call) -> tuple[tuple[str, str], ...]:
    """Each member of a skill with the text its `guide://` address serves; none for a command."""
    if call.entrypoint.kind != "skill":
        return ()
    name = call.entrypoint.name
    found = []
    for member in members(call.built, name):
        text = await service.find(AddressRead(address.member_address(name, member)))
        if not isinstance(text, str):
            raise GuideError(f"the member {member} of skill {name} cannot be read as a file")
        found.append((member, text))
    return tuple(found)

