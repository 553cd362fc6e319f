"""A skill as the Skills extension serves it (SEP-2640, C3): a `SKILL.md` whose frontmatter is the listing's.

`frontmatter` is the one owner of what a skill says about itself to a Skills
client: `skills/list` lists it and `skill://<name>/SKILL.md` begins with it
(name, description and the Agent Skills keys a skill declares, never Guide's
own keys such as `elicitation`, `includes` or `requires-*`). When a client
cannot answer forms and the skill's forms cannot be settled without it, the
file still conforms: its body says what the skill needs and where to read it
once the agent has the values.
"""

from collections.abc import Mapping
from typing import Any

import yaml

from guide.docroot.entrypoints import Entrypoint
from guide.forms.failure import Fail

AGENT_SKILLS_KEYS = ("license", "compatibility", "metadata", "allowed-tools")
"""Frontmatter keys of the Agent Skills format that a skill carries besides its name and description."""

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def frontmatter(skill: Entrypoint) -> dict[str, Any]:
    """The frontmatter a Skills client sees for a skill, in its listing and at the top of its `SKILL.md`."""
    found = {"name": skill.name, "description": skill.description}
    found.update({key: skill.meta[key] for key in AGENT_SKILLS_KEYS if key in skill.meta})
    return found


def served(skill: Entrypoint, body: str) -> str:
    """The `SKILL.md` a Skills client reads: the skill's frontmatter as a YAML block, then `body`."""
    return with_frontmatter(frontmatter(skill), body)


def needs(skill: Entrypoint, failure: Fail) -> str:
    """The `SKILL.md` of a skill that needs values only a form could give: what it needs and the address to read then."""
    lines = [
        f"# {skill.name}: values needed",
        "",
        "This client cannot answer forms, so this skill needs values from the person before it can be loaded.",
        "",
        failure.instructions,  # the questions to ask the person and the address to read then, as a failed read says them
    ]
    return served(skill, "\n".join(lines) + "\n")


def with_frontmatter(values: Mapping[str, Any], body: str) -> str:
    """`body` after `values` as a YAML frontmatter block (block style, in the order given)."""
    head = yaml.dump(dict(values), Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1_000_000)
    return f"---\n{head}---\n{body}"
