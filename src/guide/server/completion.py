"""Answer `completion/complete` for command prompt arguments and template keywords with field choices.

Hostile input is bounded before any work: a typed value, argument name or
reference longer than the longest address Guide reads (`address.MAX_LENGTH`)
gets no suggestions, and at most `MAX_VALUES` suggestions are kept, whatever
the number of choices or commands (a field may declare about 20,000 choices
within the frontmatter cap; building and validating all of them for every
keystroke cost about 50 ms each). The answer says how many matched in all.
With `--projects-under`, a `project` argument is completed with the folders
inside it, and a workflow-phase field offers the phases of the project the
arguments given so far name (C10).
"""

import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any

from anyio import CapacityLimiter
from mcp_types import Completion, PromptReference, ResourceTemplateReference

from guide import address
from guide.docroot.built import Built
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.folder import Docroot, DocrootGone
from guide.docroot.memo import MEGA, UNBUILT, Kept
from guide.errors import GuideError
from guide.forms.fields import Field
from guide.forms.offered import offered_choices
from guide.project.context import Contexts
from guide.protocol import PROJECT, ROUTE_PROMPT
from guide.server import work
from guide.server.errors import one_line
from guide.text import show

log = logging.getLogger("guide")
MAX_VALUES = 100
"""The most suggestions one answer holds: the MCP contract's cap."""
MAX_INPUT = address.MAX_LENGTH
"""The longest typed value, argument name or reference completed; nothing Guide serves is longer."""
CHOICES: Kept[tuple[str, ...]] = Kept("a field's choices as text, by entrypoint, field and phase", 64, 8 * MEGA)
NOTHING = Completion(values=[])


def completer(docroot: Docroot, contexts: Contexts, source_reads: CapacityLimiter | None = None) -> Callable[..., Awaitable[Completion]]:
    """A completion handler bound to a docroot (and the projects its reads are about); the answer is found in a worker thread.

    A field with a live source (`git-*`, `files:`) is read in a thread of
    `source_reads` (the reads' own limiter, so completions and reads together
    start at most that many git processes).

    Completion is a convenience: if it fails unexpectedly the client gets no
    suggestions (the log gets one line), never the exception's text. A field's
    choices as text are kept per snapshot: writing 20,000 of them out again for
    every keystroke cost 16 ms a request.
    """

    async def complete(ref: Any, argument: Any, context: Any = None) -> Completion:
        try:
            found = await work.off_loop(_complete, docroot, contexts, ref, argument, context)
            if isinstance(found, partial):  # read now (or kept while unchanged): the project's branches and files change without the docroot
                return _matching(await work.off_loop(found, limiter=source_reads), argument.value or "")
            return found
        except DocrootGone:
            return NOTHING  # reads and the health probe say why
        except Exception as error:
            log.error("unexpected error while completing %s: %s", str(getattr(argument, "name", "?"))[:60], one_line(error))
            return NOTHING

    return complete


def _complete(docroot: Docroot, contexts: Contexts, ref: Any, argument: Any, context: Any) -> "Completion | partial[tuple[str, ...]]":
    """The completion of `argument`, or how to read the live source it offers (in the project the arguments name)."""
    typed = argument.value or ""
    reference = ref.name if isinstance(ref, PromptReference) else getattr(ref, "uri", "")
    if max(len(typed), len(argument.name), len(reference)) > MAX_INPUT:
        return NOTHING
    if argument.name == PROJECT and contexts.projects.under is not None:
        return _matching(contexts.projects.folders(), typed)
    built = docroot.build()
    if isinstance(ref, PromptReference):
        if ref.name == ROUTE_PROMPT:
            return _matching(_routes(built.names("command"), typed), typed or address.PROMPT_PREFIXES[0])
        entrypoint = built.command(address.command_of_prompt(ref.name))
    elif isinstance(ref, ResourceTemplateReference):
        try:
            target = address.parse(address.address_of_template(ref.uri))
        except GuideError:
            return NOTHING
        entrypoint = built.skill(target.path[0]) if target.kind == "skill" else built.command("/".join(target.path))
    else:
        return NOTHING
    if entrypoint is None or argument.name not in entrypoint.forms.fields:
        return NOTHING
    offered = partial(_offered, contexts, built, entrypoint, argument.name, _named(context))
    if entrypoint.forms.fields[argument.name][1].live:
        return offered
    return _matching(offered(), typed)


def _offered(contexts: Contexts, built: Built, entrypoint: Entrypoint, name: str, keywords: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Field `name`'s choices as text, in the context a read with `keywords` would have (C10).

    A live source is read now; other choices are kept per snapshot and phase.
    """
    field = entrypoint.forms.fields[name][1]
    read = contexts.decide(built, entrypoint.forms, keywords, lenient=True, only=name)
    if field.live:
        return tuple(map(show, offered_choices(field, read.phase, read.live) or ()))
    key = (entrypoint.uri, name, read.phase)
    choices = built.recall(CHOICES, key)
    if choices is UNBUILT:
        choices = built.remember(CHOICES, key, _choices(field, read.phase))
    return choices


def _named(context: Any) -> dict[str, tuple[str, ...]]:
    """The `project` keyword the arguments given so far hold (C10), to be checked by the read's context."""
    given = (getattr(context, "arguments", None) or {}).get(PROJECT)
    return {PROJECT: (given,)} if isinstance(given, str) and len(given) <= MAX_INPUT else {}


def _matching(candidates: Iterable[str], typed: str) -> Completion:
    """The first `MAX_VALUES` candidates that start with `typed`, with how many matched in all."""
    values: list[str] = []
    total = 0
    for candidate in candidates:
        if candidate.startswith(typed):
            total += 1
            if total <= MAX_VALUES:
                values.append(candidate)
    return Completion(values=values, total=total, has_more=total > MAX_VALUES)


def _choices(field: Field, active_phase: str | None) -> tuple[str, ...]:
    choices = offered_choices(field, active_phase)
    return tuple(show(choice) for choice in choices) if choices is not None else field.type.words


def _routes(commands: list[str], typed: str) -> Iterator[str]:
    return (address.prompt_route(name, typed) for name in commands)
