"""A short catalog of the docroot's commands and skills, for agents that see only tools (issue 26).

Many clients show an agent no prompts and no resources, only tools: the
`read_resource` tool's description and the server's `instructions` then carry
this catalog (address, one line, the keywords each needs), so the agent knows
what to read. It is bounded whatever the docroot holds (`MAX_ENTRIES` entries
of at most `MAX_ENTRY` characters; past that, `guide://_help`), and made once
per snapshot: only the entrypoints it shows are built.
"""

from guide import address
from guide.docroot.built import Built
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.memo import Once
from guide.forms.described import need
from guide.protocol import READ_TOOL, tool_named
from guide.text import clip, show

MAX_ENTRIES = 30
"""The most commands and skills the catalog names; the rest are in `guide://_help`."""
MAX_ENTRY = 200
"""The most characters of one entry (its description is shortened to fit)."""
CATALOG: Once[str] = Once("the catalog text")


def catalog(built: Built) -> str:
    """The catalog of this snapshot (made once per snapshot; reads the frontmatter of the entrypoints it shows only)."""
    return built.value(CATALOG, lambda: _catalog(built))


def _catalog(built: Built) -> str:
    names = [("command", name) for name in built.names("command")] + [("skill", name) for name in built.names("skill")]
    if not names:
        return f"The docroot has no commands or skills yet; {address.help_address()} lists its documents."
    lines = [f"Commands and skills (read one with {tool_named(READ_TOOL)}; it asks for what it needs, or says what to ask the person):"]
    lines += [_entry(built.entrypoint(kind, name)) for kind, name in names[:MAX_ENTRIES]]
    if len(names) > MAX_ENTRIES:
        lines.append(f"... and {len(names) - MAX_ENTRIES} more: see {address.help_address()} for all of them.")
    else:
        lines.append(f"{address.help_address()} lists them with the documents; {address.help_address()}/<command> describes one.")
    return "\n".join(lines)


def _entry(entrypoint: Entrypoint) -> str:
    """One line: `- guide://_change: Make a change. Needs kind=<bug|feature>; issue=<integer> if kind is bug.`"""
    needed = []
    for form in entrypoint.forms.forms:
        condition = " and ".join(f"{name} is {' or '.join(map(show, values))}" for name, values in form.when.items())
        for name in form.required:
            field = form.field(name)
            if field is not None and not field.has_default:
                blank = f"{name}={need(form, field, field.choices).placeholder}"
                needed.append(f"{blank} if {condition}" if condition else blank)
    head = f"- {entrypoint.uri}"
    words = entrypoint.description.strip()
    tail = f" Needs {'; '.join(needed)}." if needed else ""
    room = MAX_ENTRY - len(head) - len(tail) - 2
    text = f"{head}: {clip(words, max(room, 20))}{tail}" if words else f"{head}.{tail}"
    return clip(text, MAX_ENTRY)
