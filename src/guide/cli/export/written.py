"""The files an exported entrypoint becomes: a skill's `SKILL.md` and members, or a Claude Code command file.

A `SKILL.md` begins with the frontmatter a Skills client sees
(`guide.routes.skill_file.frontmatter`: name, description and the Agent Skills
keys the skill declares, never Guide's own); a command file with the keys
Claude Code reads (`description`, `argument-hint`). When the person's answers
are still to come, the text begins with an "Ask first" section: the agent
channel's own wording of every question (`guide.forms.questions`), then how the
instructions below name the answers. The skill's own member addresses
(`guide://$name/file`, `skill://name/file`) are written as the member's path
in the folder, where the agent reads it. The last line names the address of
the interactive version.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from guide import address
from guide.cli.export.reading import Read
from guide.forms.described import PersonQuestion
from guide.forms.questions import ASK, question_lines
from guide.routes.skill_file import served, with_frontmatter

READING = (
    "Then follow the instructions below with the answers. `<name>` stands for the answer for `name` (its default when the person "
    "keeps it). A part under **If ...:** applies only when its condition holds, up to its **(end: ...)** line; `[if ...: ...]` "
    "does the same within a line."
)
GIVEN = "If the person already gave some of these values, use them and ask only for the others."
ARGUMENTS = "The person gave this with the command (it may hold some of these values, as `name=value` or in the order {order}): $ARGUMENTS"


@dataclass(frozen=True)
class Written:
    """One file of an export: its path within the agent's folder and its text."""

    path: str
    text: str


def skill_files(read: Read) -> list[Written]:
    """A skill's folder: its `SKILL.md`, then each member as its address serves it."""
    name = read.entrypoint.name
    body = _with_local_members(name, _text(read, GIVEN))
    files = [Written(f"{name}/SKILL.md", served(read.entrypoint, body))]
    return files + [Written(f"{name}/{member}", text) for member, text in read.members]


def command_file(read: Read) -> Written:
    """A Claude Code command file: its description and argument hint, then the text; the person's arguments kept as `$ARGUMENTS`."""
    entrypoint = read.entrypoint
    head: dict[str, Any] = {"description": entrypoint.description} if entrypoint.description else {}
    hint = _argument_hint(entrypoint.arg_fields, read.questions)
    if hint:
        head["argument-hint"] = hint
    order = ", ".join(f"`{name}`" for name in entrypoint.arg_fields) or "of the questions"
    text = _text(read, ARGUMENTS.format(order=order))
    return Written(f"{entrypoint.name}.md", with_frontmatter(head, text) if head else text)


def _text(read: Read, given: str) -> str:
    """The body, after an "Ask first" section when the person's answers are still to come, and the line back to Guide."""
    back = (f"Exported by Guide from `{address.normal(read.uri)}`: with the Guide MCP server connected, read that address for the "
            "interactive version, which asks these questions as a form.")
    if not read.questions:
        return f"{read.body.rstrip()}\n\n---\n\n{back}\n"
    ask = ["## Ask first", "", given, "", ASK, "", *question_lines(read.questions), "", READING]
    return "\n".join([*ask, "", "## Instructions", "", read.body.rstrip(), "", "---", "", back, ""])


def _argument_hint(args: Sequence[str], questions: Sequence[PersonQuestion]) -> str:
    """What Claude Code shows after the command's name: its positional fields, then the other fields asked."""
    asked = [need.keyword for question in questions for need in (*question.fields, *question.defaults)]
    rest = [name for name in dict.fromkeys(asked) if name not in args]
    return " ".join([*(f"[{name}]" for name in args), *(f"[{name}=...]" for name in rest)])


def _with_local_members(skill: str, text: str) -> str:
    """`text` with the skill's own member addresses written as the member's path in the exported folder."""
    for scheme_address in (address.skill_address(skill) + "/", f"{address.SKILL_SCHEME}://{skill}/"):
        text = text.replace(scheme_address, "")
    return text

