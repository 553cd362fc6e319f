"""The robustness suite's docroot, and ways to make it hostile: symlinks out, special files, odd names."""

import os
import textwrap
from pathlib import Path

FILES = {
    "guide.yaml": """\
        flags:
          team: core
        workflow:
          phases: [plan, build, ship]
        """,
    "_commands/ask.md": """\
        ---
        description: Every field type, with a branch.
        args: [mode]
        elicitation:
          pick:
            message: Pick a mode.
            schema:
              type: object
              properties:
                mode: {type: string, enum: [quick, careful]}
              required: [mode]
          detail:
            message: Describe it.
            when: {mode: [careful]}
            schema:
              type: object
              properties:
                detail: {type: string, pattern: "[a-z ]+", minLength: 2, maxLength: 40, default: fine}
                email: {type: string, format: email}
              required: [detail]
          numbers:
            message: Set the numbers.
            schema:
              type: object
              properties:
                count: {type: integer, minimum: 1, maximum: 10}
                ratio: {type: number, minimum: 0, maximum: 1, default: 0.5}
                big: {type: integer}
                verbose: {type: boolean, default: false}
                tags: {type: array, items: {type: string, enum: [x, y, z]}, maxItems: 2}
              required: [count]
        ---
        ASK mode={{kwargs.mode}} detail={{kwargs.detail}} count={{kwargs.count}} big={{kwargs.big}} tags={{kwargs.tags}}
        """,
    "_commands/plain.md": "PLAIN {{kwargs.x}} {{>shared}}\n",
    "_commands/nested/deep.md": """\
        ---
        description: A nested command with an arg.
        aliases: [dp]
        args: [name]
        elicitation:
          who:
            message: Who?
            schema:
              type: object
              properties:
                name: {type: string}
              required: [name]
        ---
        DEEP {{kwargs.name}}
        """,
    "_commands/phase.md": """\
        ---
        elicitation:
          to:
            message: Which phase next?
            schema:
              type: object
              properties:
                phase: {type: string, source: workflow-phases}
              required: [phase]
        ---
        PHASE {{kwargs.phase}}
        """,
    "_commands/withpartial.md": "---\nincludes: [shared]\n---\nWITH {{kwargs.note}}\n",
    "_partials/shared.md": """\
        ---
        elicitation:
          note:
            message: A note?
            schema:
              type: object
              properties:
                note: {type: string, default: none}
        ---
        SHARED
        """,
    "_skills/tool-kit/SKILL.md": """\
        ---
        name: tool-kit
        description: A skill.
        elicitation:
          level:
            message: Which level?
            schema:
              type: object
              properties:
                level: {type: string, oneOf: [{const: low, title: Low}, {const: high, title: High}]}
              required: [level]
        ---
        SKILL {{kwargs.level}}
        """,
    "_skills/tool-kit/notes.md": "NOTES\n",
    "docs/readme.md": "README\n",
    "lang/python.md": "PYTHON\n",
}


def write_docroot(root: Path) -> Path:
    """Write the suite's docroot into `root` (created); return it."""
    for rel, text in FILES.items():
        write(root / rel, textwrap.dedent(text))
    return root


def write(path: Path, text: str | bytes) -> Path:
    """Write a file, creating its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def symlink(link: Path, target: Path | str) -> Path:
    """Create a symlink (and its folder) pointing at `target`."""
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)
    return link


def fifo(path: Path) -> Path:
    """Create a named pipe: reading it would wait for a writer forever."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def bytes_name(folder: Path, name: bytes, text: str) -> bytes:
    """Create a file whose name holds bytes that are not UTF-8; return its full path as bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    full = os.fsencode(folder) + b"/" + name
    with open(full, "wb") as file:
        file.write(text.encode())
    return full
