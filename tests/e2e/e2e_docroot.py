"""The standard test docroot, written into each test's tmp_path (`DocrootBuilder`, the e2e fixtures' builder)."""

import textwrap
from pathlib import Path

# The C5 example, verbatim, as the standard command `review`.
REVIEW_FORMS = """\
elicitation:
  target:
    message: Choose what to review.
    schema:
      type: object
      properties:
        mode: {type: string, enum: [uncommitted, branch, pull-request]}
      required: [mode]
  reference:
    message: Enter the branch or pull request.
    when: {mode: [branch, pull-request]}
    schema:
      type: object
      properties:
        reference: {type: string, pattern: "[A-Za-z0-9._/-]+"}
      required: [reference]
"""

RICH_FORMS = """\
elicitation:
  everything:
    message: Fill in everything.
    schema:
      type: object
      properties:
        name: {type: string, title: Name, description: Your name., minLength: 1, maxLength: 20, pattern: "[a-z]+", default: ann}
        email: {type: string, format: email, title: E-mail}
        site: {type: string, format: uri}
        day: {type: string, format: date}
        at: {type: string, format: date-time}
        color: {type: string, enum: [red, green]}
        size: {type: string, oneOf: [{const: s, title: Small}, {const: l, title: Large}], default: s}
        old: {type: string, enum: [a, b], enumNames: [Alpha, Beta]}
        count: {type: integer, title: Count, minimum: 1, maximum: 9, default: 2}
        ratio: {type: number, minimum: 0, maximum: 1, enum: [0.25, 0.5]}
        ok: {type: boolean, title: OK, description: Tick it., default: true}
        tags: {type: array, title: Tags, items: {type: string, enum: [x, y, z]}, minItems: 1, maxItems: 2, default: [x]}
        picks: {type: array, items: {anyOf: [{const: p, title: Pea}, {const: q, title: Queue}]}, maxItems: 1}
      required: [name, tags]
"""

BASE_FILES = {
    "guide.yaml": """\
        flags:
          team: platform
          workflow: true
        workflow:
          phases: [discussion, planning, implementation, check, review]
          state-file: .guide.yaml
        """,
    "_commands/review.md": "---\ndescription: Review a change.\naliases: [cr]\nargrequired: [mode, reference]\n"
    + REVIEW_FORMS
    + "---\nREVIEW mode={{kwargs.mode}} reference={{kwargs.reference}} extra={{kwargs.extra}}\n",
    "_commands/schema.md": "---\ndescription: Every field type.\n" + RICH_FORMS + "---\nSCHEMA name={{kwargs.name}} tags={{kwargs.tags}} count={{kwargs.count}}\n",
    "_commands/typed.md": """\
        ---
        description: Typed fields with defaults.
        elicitation:
          numbers:
            message: Set the numbers.
            schema:
              type: object
              properties:
                count: {type: integer, minimum: 1, maximum: 10, default: 2}
                ratio: {type: number, minimum: 0, maximum: 1, default: 0.5}
                verbose: {type: boolean, default: false}
              required: [count]
        ---
        TYPED count={{kwargs.count}} ratio={{kwargs.ratio}} verbose={{kwargs.verbose}}
        """,
    "_commands/depth.md": """\
        ---
        description: A form whose defaults resolve it.
        elicitation:
          depth:
            message: How deep should it go?
            schema:
              type: object
              properties:
                depth: {type: string, enum: [quick, thorough], default: quick}
              required: [depth]
        ---
        {{#elicitation.defaulted_forms.depth}}DEFAULTED(depth) {{/elicitation.defaulted_forms.depth}}DEPTH {{kwargs.depth}}
        """,
    "_commands/standup.md": """\
        ---
        description: Renders even without an answer.
        elicitation:
          focus:
            message: What should the note focus on?
            fallback: render
            schema:
              type: object
              properties:
                focus: {type: string}
              required: [focus]
        ---
        {{#elicitation.defaulted_forms.focus}}FALLBACK(focus) {{/elicitation.defaulted_forms.focus}}STANDUP focus=[{{kwargs.focus}}]
        """,
    "_commands/pair.md": """\
        ---
        description: Two required fields without defaults.
        elicitation:
          names:
            message: Name both people.
            schema:
              type: object
              properties:
                zeta: {type: string}
                alpha: {type: string}
              required: [zeta, alpha]
        ---
        PAIR {{kwargs.alpha}} {{kwargs.zeta}}
        """,
    "_commands/contact.md": """\
        ---
        description: Asks for an e-mail address.
        elicitation:
          contact:
            message: Who should we write to?
            schema:
              type: object
              properties:
                email: {type: string, format: email}
              required: [email]
        ---
        CONTACT {{kwargs.email}}
        """,
    "_commands/withpartial.md": """\
        ---
        description: Includes the forms of two partials but renders neither body.
        includes: [extra, datateam]
        elicitation:
          main:
            message: Main topic?
            schema:
              type: object
              properties:
                topic: {type: string}
              required: [topic]
        ---
        WITH topic={{kwargs.topic}} note={{kwargs.note}} warehouse=[{{kwargs.warehouse}}]
        """,
    "_commands/showpartial.md": """\
        ---
        description: Includes a partial and renders both partial bodies.
        includes: [extra]
        ---
        SHOW [{{>extra}}] [{{>datateam}}]
        """,
    "_commands/bodyonly.md": """\
        ---
        description: Renders a partial it does not include.
        ---
        BODYONLY [{{>extra}}]
        """,
    "_partials/extra.md": """\
        ---
        elicitation:
          extra:
            message: Any extra note?
            schema:
              type: object
              properties:
                note: {type: string}
              required: [note]
        ---
        PARTIAL-EXTRA note={{kwargs.note}}
        """,
    "_partials/datateam.md": """\
        ---
        requires-team: data
        elicitation:
          warehouse:
            message: Which warehouse?
            schema:
              type: object
              properties:
                warehouse: {type: string}
              required: [warehouse]
        ---
        DATA-TEAM-ONLY
        """,
    "_commands/hidden.md": """\
        ---
        description: Only for the data team.
        requires-team: data
        ---
        HIDDEN team={{flags.team}} workflow={{flags.workflow}}
        """,
    "_commands/workflow/phase.md": """\
        ---
        description: Move to another workflow phase.
        args: [phase]
        elicitation:
          next:
            message: Which phase comes next?
            schema:
              type: object
              properties:
                phase: {type: string, title: Next phase, source: workflow-phases}
              required: [phase]
        ---
        PHASE from={{workflow.phase}} to={{kwargs.phase}}
        """,
    "_commands/deploy.md": """\
        ---
        description: Deploy with flags.
        args: [env]
        argrequired: [label]
        elicitation:
          where:
            message: Where should it go?
            schema:
              type: object
              properties:
                env: {type: string, enum: [dev, prod]}
                label: {type: string, default: unlabelled}
                dry_run: {type: boolean, default: false}
                force: {type: boolean, default: true}
                replicas: {type: integer, default: 1}
              required: [env]
        ---
        DEPLOY env={{kwargs.env}} label={{kwargs.label}} dry_run={{kwargs.dry_run}} force={{kwargs.force}} replicas={{kwargs.replicas}} args=[{{args}}]
        """,
    "_commands/optional.md": """\
        ---
        description: A supplier form without required fields.
        elicitation:
          scope:
            message: Narrow the scope?
            schema:
              type: object
              properties:
                area: {type: string, enum: [ui, api]}
          detail:
            message: Which endpoint?
            when: {area: [api]}
            schema:
              type: object
              properties:
                endpoint: {type: string}
              required: [endpoint]
        ---
        {{#elicitation.defaulted_forms.scope}}DEFAULTED(scope) {{/elicitation.defaulted_forms.scope}}OPTIONAL area=[{{kwargs.area}}] endpoint=[{{kwargs.endpoint}}]
        """,
    "_commands/chain.md": """\
        ---
        description: A default that decides a later form's condition.
        elicitation:
          kind:
            message: Which kind?
            schema:
              type: object
              properties:
                kind: {type: string, enum: [plain, linked], default: linked}
              required: [kind]
          link:
            message: Which link?
            when: {kind: [linked]}
            schema:
              type: object
              properties:
                link: {type: string, format: uri}
              required: [link]
        ---
        CHAIN kind={{kwargs.kind}} link={{kwargs.link}}
        """,
    "_commands/echo.md": """\
        ---
        description: Positional args that fill fields.
        args: [first, second]
        elicitation:
          words:
            message: Which words?
            schema:
              type: object
              properties:
                first: {type: string}
                second: {type: string, default: two}
              required: [first]
        ---
        ECHO first={{kwargs.first}} second={{kwargs.second}} args=[{{args}}]
        """,
    "_skills/triage/SKILL.md": """\
        ---
        name: triage
        description: Triage an incoming report.
        elicitation:
          report:
            message: What kind of report is it?
            schema:
              type: object
              properties:
                kind: {type: string, enum: [bug, feature]}
                urgent: {type: boolean, default: false}
              required: [kind]
          ticket:
            message: Which ticket?
            when: {kind: [bug]}
            schema:
              type: object
              properties:
                ticket: {type: string, pattern: "[A-Z]+-[0-9]+"}
              required: [ticket]
        ---
        TRIAGE skill={{skill.name}} kind={{kwargs.kind}} ticket={{kwargs.ticket}} urgent={{kwargs.urgent}}
        """,
    "_skills/triage/notes.md": "TRIAGE NOTES {{kwargs.kind}} stays raw\n",
    "docs/style.md": "STYLE GUIDE {{kwargs.x}} stays raw\n",
}


def write_file(path: Path, text: str) -> Path:
    """Write `text` (dedented) to `path`, creating folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def write_base_docroot(root: Path) -> None:
    """Write the standard test docroot into `root`."""
    for rel, text in BASE_FILES.items():
        write_file(root / rel, text)


class DocrootBuilder:
    """Writes a docroot (and a project folder for workflow state) under a test's tmp_path."""

    def __init__(self, tmp_path: Path):
        self.root = tmp_path / "docroot"
        self.project = tmp_path / "project"
        self.root.mkdir()
        self.project.mkdir()

    def write(self, rel: str, text: str) -> Path:
        """Write one docroot file (dedented), creating its folders."""
        return write_file(self.root / rel, text)

    def base(self) -> "DocrootBuilder":
        """The standard test docroot (see `e2e_docroot.BASE_FILES`)."""
        write_base_docroot(self.root)
        return self

    def phase(self, phase: str | None) -> None:
        """Set (or clear) the project's active workflow phase."""
        path = self.project / ".guide.yaml"
        if phase is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(f"phase: {phase}\n", encoding="utf-8")
