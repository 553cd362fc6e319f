"""Built-in help: a listing of entrypoints and a description of one (C3); never asks for input."""

from guide import address
from guide.docroot.built import Built
from guide.docroot.entrypoints import Entrypoint
from guide.forms.declare import Form
from guide.forms.fields import Field
from guide.forms.values import accepted
from guide.text import show


def overview(built: Built) -> str:
    """Markdown listing every command, skill and document that applies, with its address and description, and the collections."""
    lines = ["# Guide help", "", "## Commands", ""]
    lines += [f"- `{address.command_address(name)}`: {text}".rstrip(": ") for name, text in built.descriptions("command")] or ["(none)"]
    lines += ["", "## Skills", ""]
    lines += [f"- `{address.skill_address(name)}`: {text}".rstrip(": ") for name, text in built.descriptions("skill")] or ["(none)"]
    lines += ["", "## Documents", ""]
    documents = built.documents()
    lines += [f"- `{address.document_address(path)}`: {built.document_description(rel) or rel}" for path, rel in documents.items()] or ["(none)"]
    collections = built.config.collections
    if collections:
        lines += ["", "## Collections", "", "Each is read in one go: every document it names that applies, each with a heading.", ""]
        lines += [f"- `{address.collection_address(name)}`: {', '.join(entry.text for entry in entries)}" for name, entries in collections.items()]
    lines += ["", f"Describe one with `{address.help_address()}/<command>` or `?help` on its address."]
    return "\n".join(lines) + "\n"


def describe(built: Built, entrypoint: Entrypoint) -> str:
    """Markdown describing an entrypoint: usage, aliases, examples, and each form and field."""
    lines = [f"# {entrypoint.kind.capitalize()} `{entrypoint.name}`", ""]
    if entrypoint.description:
        lines += [entrypoint.description, ""]
    lines.append(f"Address: `{entrypoint.uri}`")
    if entrypoint.meta.get("usage"):
        lines.append(f"Usage: `{entrypoint.meta['usage']}`")
    for key, label in (("aliases", "Aliases"), ("args", "Positional args"), ("examples", "Examples")):
        values = entrypoint.listed(key)
        if values:
            lines.append(f"{label}: " + ", ".join(f"`{value}`" for value in values))
    problems = built.problems(entrypoint)
    if problems:
        lines += ["", "## Authoring errors", ""] + [f"- {problem}" for problem in problems]
    args = entrypoint.listed("args")
    for form in entrypoint.forms.forms:
        lines += ["", *_form_lines(form, args)]
    return "\n".join(lines) + "\n"


def _form_lines(form: Form, args: tuple[str, ...]) -> list[str]:
    lines = [f"## Form `{form.id}`", "", form.message]
    if form.when:
        conditions = " and ".join(f"{name} is {' or '.join(map(show, values))}" for name, values in form.when.items())
        lines.append(f"Asked when {conditions}.")
    if form.fallback:
        lines.append("If it cannot be answered, the entrypoint renders without it.")
    if form.url is not None:  # a URL-mode form asks no field: the person answers on the page
        return [*lines, f"Sends the person to a page (a URL-mode form): `{form.url}`"]
    lines.append("")
    lines += [_field_line(field, field.name in form.required, args) for field in form.fields]
    return lines


def _field_line(field: Field, required: bool, args: tuple[str, ...]) -> str:
    supplied_by = f"keyword `{field.name}=`"
    if field.name in args:
        supplied_by += f" or positional arg {args.index(field.name) + 1}"
    parts = [f"- `{field.name}` ({field.type.name}{', required' if required else ''}): {accepted(field)}"]
    titles = [(value, title) for value, title in field.options() if title != value]
    if titles:
        parts.append("choices: " + ", ".join(f"{value} ({title})" for value, title in titles))
    if field.has_default:
        parts.append(f"default {show(field.default)}")
    if field.source:
        parts.append(f"choices from `{field.source}`")
    description = field.schema.get("description") or field.schema.get("title")
    if description:
        parts.append(str(description))
    parts.append(f"supplied by {supplied_by}")
    return "; ".join(parts)
