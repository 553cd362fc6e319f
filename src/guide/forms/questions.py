"""The agent channel (C7.6, C7.12 c): a client that shows no form is told what to ask the person, and how to read again.

The failure's first line stays the one-line summary every caller had (the
keywords to supply, an example); the lines after it are written for the agent:
every question to put to the person, in order, each follow-up with the condition
that opens it, "do not guess", and the way back in the caller's own route (an
address for a resource read or the tool, prompt arguments for a prompt). The
failure's `data` holds the same questions (docs/errors.md).
"""

import shlex
from collections.abc import Collection, Mapping, Sequence

from guide import address
from guide.forms.described import Need, PersonQuestion
from guide.forms.failure import ADDRESS, EXAMPLE_LENGTH, Fail, Route, described, failure
from guide.forms.fields import ABSENT
from guide.protocol import READ_TOOL, tool_named
from guide.text import one_line, show

ASK = (
    "Do not guess these values, and do not pick them for the person. Ask the person these questions with your own means "
    "(a question tool of yours or a plain message), in this order, and wait for the answers:"
)


def missing(
    entrypoint: str,
    args: Sequence[str],
    keywords: Mapping[str, tuple[str, ...]],
    needs: Sequence[Need],
    questions: Sequence[PersonQuestion],
    route: Route = ADDRESS,
) -> Fail:
    """The failure of a read only the person could complete: what to supply, the questions to ask, and how to read again."""
    summary = f"this client cannot answer forms; supply the keywords: {described(needs)}"
    base = failure("missing", summary, entrypoint=entrypoint, args=args, keywords=keywords, needs=needs,
                   missing=tuple(need.keyword for need in needs), example=route.prompt is None)
    blanks = {need.keyword: need for need in needs if need.keyword not in keywords}
    if route.prompt is None:
        message = base.message
        way = [f"Then read this address with {tool_named(READ_TOOL)}, or as a resource, each <...> replaced by an answer "
               "(percent-encoded as in any address):", "", f"    {base.retry}"]
        prompt = None
    else:
        arguments = _arguments(route, args, keywords, blanks)
        shown = ", ".join(f"{name}={value}" for name, value in arguments.items())
        what = "the flags" if route.line else "the prompt arguments"
        example = shown if len(shown) <= EXAMPLE_LENGTH else ", ".join(f"{name}={_plain(need)}" for name, need in blanks.items())
        message = f"this client cannot answer forms; supply {what}: {described(needs)}; for example the prompt {route.prompt} with {example}"
        way = [f"Then get Guide's prompt {route.prompt} again (listed as {route.prompt} or with a prefix, such as guide_{route.prompt}) "
               "with these arguments, each <...> replaced by an answer:", "", f"    {shown}"]
        prompt = {"name": route.prompt, "arguments": arguments}
    lines = [ASK, "", *question_lines(questions), "", *way, ""]
    placed = {need.keyword for need in needs}  # the way back holds a blank for each already
    follow_ups = [question for question in questions if question.when and _blanks(question)]
    lines += [line for question in follow_ups for line in _follow_up(question, placed, route)]
    covered = placed | {need.keyword for question in follow_ups for need in _blanks(question)}
    if any(need.keyword not in covered for question in questions for need in (*question.fields, *question.defaults)):
        lines.append("Give each other answer the same way, and a value the person chooses instead of a default too; "
                     "leave out a value the person leaves blank (its default applies).")
    instructions = "\n".join(lines)
    return Fail(message, "missing", base.missing, base.fields, base.address, base.retry, tuple(questions), instructions, prompt)


def question_lines(questions: Sequence[PersonQuestion]) -> list[str]:
    """The questions, numbered: each form's message (a follow-up with its condition), its fields, then its defaults apart.

    The agent channel's failure lists them so, and so does an exported skill's "ask first" section (`guide export-skills`).
    """
    lines = []
    for number, question in enumerate(questions, 1):
        condition = question.condition()
        opening = f"Only if {condition}: " if condition else ""
        lines.append(f"{number}. {opening}{one_line(question.message)}")
        lines += _link_line(question) + [f"   - {need.titled()}" for need in question.fields]
        if question.defaults:
            lines += ["   Unless the person chooses otherwise, these defaults are used:", *(f"   - {need.labelled()}" for need in question.defaults)]
    return lines


def _link_line(question: PersonQuestion) -> list[str]:
    """A URL step's link as the agent gives it to the person (C7.12 c); none for a form."""
    if question.url is None:
        return []
    return [f"   - give the person this link to open: {question.url or '(read again with the answers above to get it)'}"]


def _blanks(question: PersonQuestion) -> list[Need]:
    """The fields a follow-up question must have an answer for: required, without a default."""
    return [need for need in question.fields if need.required and need.default is ABSENT]


def _follow_up(question: PersonQuestion, placed: Collection[str], route: Route) -> list[str]:
    """How a follow-up's answers join the way back: `If kind is bug, also add issue=<integer>.`

    A blank the way back holds already (a default opened the follow-up) is not added twice: it goes unless the condition holds.
    """
    blanks = _blanks(question)
    added, held = [need for need in blanks if need.keyword not in placed], [need.keyword for need in blanks if need.keyword in placed]
    if route.prompt is None:
        joined = "&".join(f"{need.keyword}={need.placeholder}" for need in added)
    elif route.line:
        joined = " ".join(f"--{need.keyword}={_plain(need)}" for need in added)
    else:
        joined = ", ".join(f"{need.keyword}={_plain(need)}" for need in added)
    lines = [f"If {question.condition()}, also add {joined}."] if added else []
    return lines + ([f"Unless {question.condition()}, leave out {', '.join(held)}."] if held else [])


def _arguments(route: Route, args: Sequence[str], keywords: Mapping[str, tuple[str, ...]], blanks: Mapping[str, Need]) -> dict[str, str]:
    """The prompt arguments to get the prompt again with: what was given, then a blank per value still to fill in."""
    if route.line is None:
        given = {name: ",".join(values) for name, values in keywords.items()}
        return {**given, **{name: _plain(need) for name, need in blanks.items()}}
    tokens = [address.prompt_route(route.line), *map(shlex.quote, args)]
    tokens += [f"--{name}={shlex.quote(value)}" for name, values in keywords.items() for value in values]
    tokens += [f"--{name}={_plain(need)}" for name, need in blanks.items()]
    return {"command": " ".join(tokens)}


def _plain(need: Need) -> str:
    """A blank as a prompt argument shows it: `<a|b>` with the choices as written (no percent-encoding), else `<type>`."""
    choices = need.choices if need.choices is not None else need.words
    return "<" + ("|".join(show(choice) for choice in choices) if choices else need.type) + ">"
