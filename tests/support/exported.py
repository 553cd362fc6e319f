"""A small docroot for the `guide export-skills` tests: a skill with every kind of open value, a static skill, a command with args."""

from pathlib import Path

from support.files import write_files

TRIAGE = """---
name: triage
description: Triage an incoming issue and say who takes it.
license: MIT
metadata:
  owner: platform
includes: [depth]
elicitation:
  kind:
    message: What kind of issue is it?
    schema:
      type: object
      properties:
        kind:
          type: string
          title: Kind
          oneOf:
            - {const: bug, title: Something is broken}
            - {const: feature, title: Something new}
        urgent: {type: boolean, title: Urgent, default: false}
      required: [kind]
  issue:
    message: Which issue number?
    when: {kind: bug}
    schema:
      type: object
      properties:
        issue: {type: integer, minimum: 1}
      required: [issue]
  labels:
    message: Which labels apply?
    when: {kind: feature}
    schema:
      type: object
      properties:
        labels: {type: array, items: {type: string, enum: [ui, api, docs]}}
      required: [labels]
---
# Triage ({{skill.name}}): {{kwargs.kind}}

{{#kwargs.issue}}
Open issue #{{kwargs.issue}} and read it to the end.
{{/kwargs.issue}}
{{^kwargs.issue}}
Ask for the issue's text first.
{{/kwargs.issue}}
Priority: {{#kwargs.urgent}}today{{/kwargs.urgent}}{{^kwargs.urgent}}this week{{/kwargs.urgent}}.
{{#kwargs.labels}}
- label {{.}}
{{/kwargs.labels}}
{{=<% %>=}}
<%#kwargs.urgent%>Page the on-call person.<%/kwargs.urgent%>
<%={{ }}=%>

{{>depth}}

Check the rules in `guide://$triage/notes.md` before you assign it.
"""

DEPTH = """---
elicitation:
  depth:
    message: How deep should triage go?
    schema:
      type: object
      properties:
        depth: {type: string, enum: [quick, thorough], default: quick}
      required: [depth]
---
{{#elicitation.defaulted_forms.depth}}
Nobody chose a depth: keep it short.
{{/elicitation.defaulted_forms.depth}}
Depth: {{kwargs.depth}}.
"""

FILES = {
    "_skills/triage/SKILL.md": TRIAGE,
    "_skills/triage/notes.md": "# Rules\n\nAssign {{nothing}} by area.\n",
    "_partials/depth.md": DEPTH,
    "_skills/hello/SKILL.md": "---\nname: hello\ndescription: Say hello to the team.\n---\nSay hello to the team.\n",
    "_commands/ship.md": """---
description: Ship a release.
args: [version]
elicitation:
  what:
    message: Which version?
    schema:
      type: object
      properties:
        version: {type: string, pattern: "v[0-9.]+"}
      required: [version]
---
Ship {{kwargs.version}} and tell the team.
""",
}


def export_docroot(root: Path) -> Path:
    """Write the docroot under `root` and return it."""
    return write_files(root, FILES)
