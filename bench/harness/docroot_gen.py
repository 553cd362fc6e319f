"""Generate docroots for the benchmarks.

`generate(root, n)` writes a docroot of `n` entrypoints (about 90 % commands in
nested folders, 10 % skills with a member each), plus partials, documents and a
`guide.yaml`. Entrypoints cycle through form shapes that together use every field
type of C5, `when` branches, `fallback`, `includes` and `args`; one entrypoint in ten
has no forms and includes no partial. Every generated docroot passes `guide check`
with no errors and no notes.

`static_docroot(root)` is the B1 docroot (one 40-line command, one partial), and
`RICH` is the 12-form entrypoint of B3/B6 (every field type, branches over four
rounds); `RICH_ANSWERS` answers it along the path that asks all twelve forms.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

GUIDE_YAML = """\
flags:
  workflow: true
  team: platform
workflow:
  phases: [discussion, planning, implementation, check, review]
  state-file: .guide.yaml
"""

# ---------------------------------------------------------------- B1: one static command

STATIC_PARTIAL = """\
---
description: Footer shared by the static command.
---
_Served for `{{command.name}}`. Keep this checklist next to the diff while you work._
"""


def static_body() -> str:
    """A 40-line Mustache template with a few tags and one partial."""
    lines = ["# Release checklist for {{command.name}}", ""]
    for number in range(1, 36):
        lines.append(f"{number}. Step {number}: read the notes for item {number}, check the tests, and record the outcome.")
    lines += ["", "{{#flags.workflow}}Workflow is on: follow the phases.{{/flags.workflow}}", "{{>footer}}"]
    assert len(lines) == 40
    return "\n".join(lines) + "\n"


STATIC_COMMAND = "---\ndescription: A static checklist with no forms.\n---\n" + static_body()


def static_docroot(root: Path) -> Path:
    """The B1/B7 docroot: `guide://_static` (40-line template, one partial, no forms)."""
    _write(root / "guide.yaml", GUIDE_YAML)
    _write(root / "_commands" / "static.md", STATIC_COMMAND)
    _write(root / "_partials" / "footer.md", STATIC_PARTIAL)
    return root


# ---------------------------------------------------------------- B3/B6: the 12-form entrypoint

RICH = """\
---
description: File a work item; twelve forms, every field type, branches over four rounds.
elicitation:
  kind:
    message: What kind of work item is this?
    schema:
      type: object
      properties:
        kind: {type: string, title: Kind, enum: [feature, bugfix, chore]}
      required: [kind]
  title:
    message: Give it a short title.
    schema:
      type: object
      properties:
        title: {type: string, title: Title, minLength: 3, maxLength: 80, pattern: "[A-Za-z0-9 ,.:'-]+"}
      required: [title]
  area:
    message: Which areas does it touch?
    schema:
      type: object
      properties:
        area: {type: array, title: Areas, items: {type: string, enum: [api, cli, docs, server, forms]}, minItems: 1, maxItems: 3}
      required: [area]
  owner:
    message: Who owns it?
    schema:
      type: object
      properties:
        owner: {type: string, title: Owner, format: email}
      required: [owner]
  notify:
    message: Notify the channel when it changes?
    schema:
      type: object
      properties:
        notify: {type: boolean, title: Notify, default: false}
      required: [notify]
  issue:
    message: Which issue number tracks it?
    when: {kind: [bugfix, chore]}
    schema:
      type: object
      properties:
        issue: {type: integer, title: Issue, minimum: 1, maximum: 999999}
      required: [issue]
  severity:
    message: How severe is the bug?
    when: {kind: [bugfix]}
    schema:
      type: object
      properties:
        severity:
          type: string
          title: Severity
          oneOf:
            - {const: low, title: "Low: cosmetic"}
            - {const: high, title: "High: a feature is broken"}
            - {const: critical, title: "Critical: data loss or outage"}
      required: [severity]
  due:
    message: When is it due?
    when: {kind: [bugfix, feature]}
    schema:
      type: object
      properties:
        due: {type: string, title: Due date, format: date}
      required: [due]
  link:
    message: Which channel or page should be notified?
    when: {notify: [true]}
    schema:
      type: object
      properties:
        link: {type: string, title: Link, format: uri}
      required: [link]
  priority:
    message: Pick a priority.
    when: {severity: [high, critical]}
    schema:
      type: object
      properties:
        priority: {type: string, title: Priority, enum: [p1, p2, p3], enumNames: [Urgent, Soon, Later]}
      required: [priority]
  estimate:
    message: How many days will the fix take?
    when: {severity: [high, critical]}
    schema:
      type: object
      properties:
        estimate: {type: number, title: Estimate in days, minimum: 0.5, maximum: 60}
      required: [estimate]
  labels:
    message: Add labels for the urgent queue.
    when: {priority: [p1]}
    schema:
      type: object
      properties:
        labels:
          type: array
          title: Labels
          items:
            anyOf:
              - {const: regression, title: Regression}
              - {const: customer, title: Customer reported}
              - {const: security, title: Security}
          minItems: 1
          maxItems: 3
      required: [labels]
---
# {{kwargs.kind}}: {{kwargs.title}}

Owner: {{kwargs.owner}}; areas: {{kwargs.area}}.
{{#kwargs.issue}}Issue #{{kwargs.issue}}.{{/kwargs.issue}}
{{#kwargs.severity}}Severity {{kwargs.severity}}, priority {{kwargs.priority}}, estimate {{kwargs.estimate}} days.{{/kwargs.severity}}
{{#kwargs.due}}Due {{kwargs.due}}.{{/kwargs.due}}
{{#kwargs.notify}}Notify {{kwargs.link}}.{{/kwargs.notify}}
Labels: {{kwargs.labels}}.
"""

RICH_ANSWERS = {
    "kind": {"kind": "bugfix"},
    "title": {"title": "Form answers are lost after a reconnect, then re-asked"},
    "area": {"area": ["server", "forms", "cli"]},
    "owner": {"owner": "ada.lovelace@example.com"},
    "notify": {"notify": True},
    "issue": {"issue": 48213},
    "severity": {"severity": "critical"},
    "due": {"due": "2026-09-30"},
    "link": {"link": "https://chat.example.com/channels/release-engineering"},
    "priority": {"priority": "p1"},
    "estimate": {"estimate": 2.5},
    "labels": {"labels": ["regression", "customer"]},
}
"""Answers along the path that asks all twelve forms (rounds: 5, 4, 2, 1 forms)."""


def rich_docroot(root: Path) -> Path:
    """A docroot holding only the 12-form command `guide://_rich`."""
    _write(root / "guide.yaml", GUIDE_YAML)
    _write(root / "_commands" / "rich.md", RICH)
    return root


# ---------------------------------------------------------------- B4/B5: N entrypoints

# Form shapes cycled through by the generated entrypoints; `{i}` makes field names unique per file.
_FORM_SHAPES = [
    # untitled enum + branch on it, string with pattern
    """\
  target{i}:
    message: Choose what to review.
    schema:
      type: object
      properties:
        mode{i}: {{type: string, title: Mode, enum: [uncommitted, branch, pull-request]}}
      required: [mode{i}]
  reference{i}:
    message: Enter the branch or pull request.
    when: {{mode{i}: [branch, pull-request]}}
    schema:
      type: object
      properties:
        reference{i}: {{type: string, pattern: "[A-Za-z0-9._/-]+", maxLength: 120}}
      required: [reference{i}]
""",
    # integer/number/boolean with defaults, fallback
    """\
  options{i}:
    message: Configure the run.
    schema:
      type: object
      properties:
        attempts{i}: {{type: integer, minimum: 1, maximum: 5, default: 3}}
        threshold{i}: {{type: number, minimum: 0, maximum: 1, default: 0.8}}
        dry_run{i}: {{type: boolean, default: false}}
      required: [attempts{i}]
  notes{i}:
    message: Anything to mention?
    fallback: render
    schema:
      type: object
      properties:
        notes{i}: {{type: string, maxLength: 500}}
      required: [notes{i}]
""",
    # formats, legacy titled enum, multi-selects
    """\
  person{i}:
    message: Who is joining?
    schema:
      type: object
      properties:
        email{i}: {{type: string, format: email}}
        start{i}: {{type: string, format: date}}
        role{i}: {{type: string, enum: [dev, ops, pm], enumNames: [Developer, Operations, Product manager]}}
      required: [email{i}, role{i}]
  tools{i}:
    message: Which tools?
    schema:
      type: object
      properties:
        tools{i}: {{type: array, items: {{type: string, enum: [editor, ci, chat]}}, minItems: 1, default: [editor]}}
        extras{i}: {{type: array, items: {{anyOf: [{{const: pairing, title: Pairing}}, {{const: reading, title: Reading}}]}}, maxItems: 2}}
      required: [tools{i}]
""",
    # titled oneOf, uri, date-time
    """\
  depth{i}:
    message: How deep?
    schema:
      type: object
      properties:
        depth{i}:
          type: string
          oneOf:
            - {{const: quick, title: Quick pass}}
            - {{const: thorough, title: Thorough}}
          default: quick
        site{i}: {{type: string, format: uri}}
        at{i}: {{type: string, format: date-time}}
      required: [depth{i}]
""",
]


def _partial(j: int) -> str:
    shape = _FORM_SHAPES[j % len(_FORM_SHAPES)].format(i=f"_p{j}")
    requires = "requires-team: platform\n" if j % 3 == 0 else ""
    return f"---\n{requires}elicitation:\n{shape}---\nShared notes {j}: {{{{#kwargs}}}}checked{{{{/kwargs}}}} for {{{{command.name}}}}.\n"


def _body(name: str, i: int, partial: str | None, fields: list[str]) -> str:
    lines = [f"# {name}", ""]
    for field in fields:
        lines.append(f"- {field}: {{{{kwargs.{field}}}}}")
    for line in range(12):
        lines.append(f"Step {line + 1} of {name}: read the notes, run the checks and record the outcome ({i}).")
    if partial:
        lines += ["", f"{{{{>{partial}}}}}"]
    return "\n".join(lines) + "\n"


_SHAPE_FIELDS = [
    ["mode{i}", "reference{i}"],
    ["attempts{i}", "threshold{i}", "dry_run{i}", "notes{i}"],
    ["email{i}", "start{i}", "role{i}", "tools{i}", "extras{i}"],
    ["depth{i}", "site{i}", "at{i}"],
]


def entrypoint_text(i: int, kind: str, n_partials: int) -> str:
    """The text of generated entrypoint number `i` (a command or a skill)."""
    name = f"c{i:05d}" if kind == "command" else f"skill-{i:05d}"
    static = i % 10 == 0
    meta = [f"description: Generated {kind} number {i}."]
    if kind == "skill":
        meta.append(f"name: {name}")
    partial = f"p{i % n_partials:04d}" if n_partials and not static else None  # every partial has forms: a static one would leave them unasked
    fields: list[str] = []
    if not static:
        shape = i % len(_FORM_SHAPES)
        fields = [f.format(i="") for f in _SHAPE_FIELDS[shape]]
        if kind == "command":
            meta += [f"aliases: [a{i:05d}]", f"usage: guide://_{command_name(i)}?...", f"args: [{fields[0]}]"]
        if partial:
            meta.append(f"includes: [{partial}]")
        meta.append("elicitation:\n" + _FORM_SHAPES[shape].format(i="").rstrip("\n"))
    return "---\n" + "\n".join(meta) + "\n---\n" + _body(name, i, partial, fields)


def command_path(i: int) -> str:
    """Relative path of generated command `i` (100 commands per folder)."""
    return f"_commands/g{i // 100:03d}/c{i:05d}.md"


def command_name(i: int) -> str:
    return f"g{i // 100:03d}/c{i:05d}"


def generate(root: Path, n: int) -> dict:
    """Write a docroot of `n` entrypoints to `root` and describe what it holds."""
    n_partials = max(4, n // 20)
    n_skills = n // 10
    n_commands = n - n_skills
    _write(root / "guide.yaml", GUIDE_YAML)
    for j in range(n_partials):
        _write(root / "_partials" / f"p{j:04d}.md", _partial(j))
    for i in range(n_commands):
        _write(root / command_path(i), entrypoint_text(i, "command", n_partials))
    for k in range(n_skills):
        i = n_commands + k
        folder = root / "_skills" / f"skill-{i:05d}"
        _write(folder / "SKILL.md", entrypoint_text(i, "skill", n_partials))
        _write(folder / "checklist.md", f"Checklist of skill {i}.\n")
    for d in range(max(1, n // 10)):
        _write(root / "docs" / f"d{d // 100:03d}" / f"doc{d:05d}.md", f"# Document {d}\n\nPlain text.\n")
    _write(root / "_commands" / "static.md", STATIC_COMMAND)
    _write(root / "_partials" / "footer.md", STATIC_PARTIAL)
    _write(root / "_commands" / "rich.md", RICH)
    static_index = 10 * (n_commands // 20)  # a static command near the middle (i % 10 == 0)
    probe = _probe(n_commands, n_partials)
    return {
        "entrypoints": n + 2,
        "commands": n_commands + 2,
        "skills": n_skills,
        "partials": n_partials + 1,
        "documents": max(1, n // 10),
        # a command with forms whose every pending field is supplied as a keyword
        "probe_uri": f"guide://_{command_name(probe)}?attempts=2&notes=none&attempts_p{probe % n_partials}=2&notes_p{probe % n_partials}=none",
        "static_command_path": command_path(static_index),
        "static_uri": f"guide://_{command_name(static_index)}",
    }


def _probe(n_commands: int, n_partials: int) -> int:
    """A command near the middle whose own form and included partial both have the `options` shape."""
    for i in range(n_commands // 2, n_commands):
        if i % 10 and i % len(_FORM_SHAPES) == 1 and (i % n_partials) % len(_FORM_SHAPES) == 1:
            return i
    raise ValueError("no probe command in this docroot; use more entrypoints")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text) if text.startswith(" ") else text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover - manual use: python -m bench.harness.docroot_gen DIR N
    import sys

    print(generate(Path(sys.argv[1]), int(sys.argv[2])))
