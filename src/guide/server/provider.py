"""FastMCP components sourced from the docroot on every request, so edits need no restart (C3).

Every `guide://` read goes to one resource class that hands the address to the
route stage; listed resources, per-command templates and per-command prompts
only make the docroot visible to clients that browse.
"""

from collections.abc import Callable
from typing import Any

from fastmcp.prompts import Prompt, PromptArgument
from fastmcp.resources import Resource, ResourceContent, ResourceResult, ResourceTemplate
from fastmcp.server.dependencies import get_context
from fastmcp.server.providers import Provider
from mcp_types import ReadResourceResult
from pydantic import PrivateAttr

from guide import address
from guide.address import Target
from guide.docroot.caches import PerSnapshot
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.folder import Docroot
from guide.docroot.layout import document_type
from guide.docroot.snapshot import Snapshot
from guide.errors import GuideError
from guide.forms.fields import Field
from guide.forms.values import accepted
from guide.protocol import MIME, ROUTE_PROMPT
from guide.routes.resolve import Call, resolve, resolve_prompt
from guide.server.errors import guarded
from guide.server.interact import serve

READ_CACHE_SIZE = 1024


class EntrypointText(ResourceResult):
    """The rendered text of an entrypoint: never to be cached, since a cached read would replay someone's answers."""

    def to_mcp_result(self, uri: Any) -> ReadResourceResult:
        """The wire result with `ttlMs: 0`, set explicitly so the server-wide caching hint leaves it alone."""
        return super().to_mcp_result(uri).model_copy(update={"ttl_ms": 0})


def _once(wire: dict, overrides: dict[str, Any], convert: Callable[..., Any]) -> Any:
    """A component's wire form, converted once: listings are kept per snapshot, so their items never change."""
    key = tuple(sorted(overrides.items()))
    if key not in wire:
        wire[key] = convert(**overrides)
    return wire[key]


class GuideResource(Resource):
    """Any `guide://` address: help, a document, a skill member or an entrypoint read."""

    _docroot: Docroot = PrivateAttr()
    _wire: dict = PrivateAttr(default_factory=dict)

    def to_mcp_resource(self, **overrides: Any) -> Any:
        """The listing entry of this resource (converted once)."""
        return _once(self._wire, overrides, super().to_mcp_resource)

    async def read(self) -> Any:
        """Resolve this address against the current docroot, asking for input if needed."""
        ctx, docroot, uri = get_context(), self._docroot, str(self.uri)

        async def work() -> Any:
            found = resolve(docroot, address.parse(uri))
            answer = await serve(ctx, docroot, found)
            if isinstance(found, Call) and isinstance(answer, str):
                return EntrypointText([ResourceContent(answer, mime_type=MIME)])
            return answer

        return await guarded(ctx, work)


class ConvertedPrompt(Prompt):
    """A prompt whose listing entry is converted once."""

    _wire: dict = PrivateAttr(default_factory=dict)

    def to_mcp_prompt(self, **overrides: Any) -> Any:
        """The listing entry of this prompt (converted once)."""
        return _once(self._wire, overrides, super().to_mcp_prompt)


class GuideTemplate(ResourceTemplate):
    """The resource template of an entrypoint (its fields as query keywords), converted once."""

    _wire: dict = PrivateAttr(default_factory=dict)

    def to_mcp_template(self, **overrides: Any) -> Any:
        """The listing entry of this template (converted once)."""
        return _once(self._wire, overrides, super().to_mcp_template)


class RoutePrompt(ConvertedPrompt):
    """The `guide` prompt: `_review --mode=branch`, `:review --mode branch` or `;review --mode=branch`."""

    _docroot: Docroot = PrivateAttr()

    async def render(self, arguments: dict[str, Any] | None = None) -> Any:
        """Read the prompt text as a command route and resolve it."""
        ctx, docroot, line = get_context(), self._docroot, str((arguments or {}).get("command", ""))
        return await guarded(ctx, lambda: serve(ctx, docroot, resolve_prompt(docroot, line)))


class CommandPrompt(ConvertedPrompt):
    """A command as its own prompt; each argument is one of its form fields."""

    _docroot: Docroot = PrivateAttr()
    _command: str = PrivateAttr()

    async def render(self, arguments: dict[str, Any] | None = None) -> Any:
        """Resolve the command with the given arguments as keywords."""
        keywords = {name: (str(value),) for name, value in (arguments or {}).items() if value is not None}
        target = Target("command", tuple(self._command.split("/")), keywords)
        ctx, docroot = get_context(), self._docroot
        return await guarded(ctx, lambda: serve(ctx, docroot, resolve(docroot, target)))


class DocrootProvider(Provider):
    """Lists and serves the docroot's commands, skills, documents and prompts."""

    def __init__(self, docroot: Docroot):
        super().__init__()
        self.docroot = docroot
        # Reading resolves the address anew each time, so one component per address (and MIME type) can be reused.
        self._reads: dict[tuple[str, str], GuideResource] = {}
        self._listings: PerSnapshot[list] = PerSnapshot()

    async def get_tasks(self) -> list:
        """No docroot component runs as a background task (so start-up need not list the docroot)."""
        return []

    async def _list_resources(self) -> list[Resource]:
        return self._listing("resources", self._resources)

    def _resources(self, snapshot: Snapshot) -> list[Resource]:
        listed = [self._resource(e.uri, e.name, e.description) for e in snapshot.summaries("command") + snapshot.summaries("skill")]
        documents = snapshot.layout.documents
        listed += [self._resource(address.document_address(path), path, "document", document_type(documents[path])) for path in sorted(documents)]
        listed += [
            self._resource(address.member_address(skill, member), f"{skill}/{member}", f"member of skill {skill}")
            for (skill, member) in sorted(snapshot.layout.members)
            if snapshot.skill(skill)
        ]
        return listed

    async def _get_resource(self, uri: str, version: Any = None) -> Resource | None:
        uri = str(uri)
        return self.reader(uri) if uri.startswith(address.PREFIX) else None

    def reader(self, uri: str) -> GuideResource:
        """The component that reads this address (one per address and MIME type, reused: each read resolves anew)."""
        key = (uri, self._mime(uri))
        resource = self._reads.get(key)
        if resource is None:
            if len(self._reads) >= READ_CACHE_SIZE:
                self._reads.pop(next(iter(self._reads)))
            resource = self._reads[key] = self._resource(uri, uri, "", key[1])
        return resource

    def _mime(self, uri: str) -> str:
        """The MIME type a read of `uri` is served as: a document's own (by its suffix), else Markdown."""
        try:
            target = address.parse(uri)
        except GuideError:
            return MIME  # the read reports the error
        rel = self.docroot.snapshot().layout.documents.get(target.path[0]) if target.kind == "document" else None
        return document_type(rel) if rel else MIME

    async def _list_resource_templates(self) -> list[ResourceTemplate]:
        return self._listing("templates", self._templates)

    def _templates(self, snapshot: Snapshot) -> list[ResourceTemplate]:
        return [
            GuideTemplate(uri_template=template_uri(e), name=e.name, description=e.description, mime_type=MIME, parameters={})
            for e in snapshot.commands() + snapshot.skills()
            if e.forms.forms
        ]

    async def _list_prompts(self) -> list[Prompt]:
        return self._listing("prompts", self._prompts)

    def _prompts(self, snapshot: Snapshot) -> list[Prompt]:
        commands = [self._command_prompt(c) for c in snapshot.commands() if address.prompt_name(c.name) != ROUTE_PROMPT]
        return [self._route_prompt(), *commands]

    def _listing(self, kind: str, make: Callable[[Snapshot], list]) -> list:
        """A listing made once per docroot snapshot: clients list often, the docroot changes rarely."""
        snapshot = self.docroot.snapshot()
        return list(self._listings.get(snapshot, kind, lambda: make(snapshot)))

    async def _get_prompt(self, name: str, version: Any = None) -> Prompt | None:
        if name == ROUTE_PROMPT:
            return self._route_prompt()
        command = self.docroot.snapshot().command(address.command_of_prompt(name))
        if command is None or address.prompt_name(command.name) != name:
            return None
        return self._command_prompt(command)

    def _resource(self, uri: str, name: str, description: str, mime: str = MIME) -> GuideResource:
        resource = GuideResource(uri=uri, name=name, description=description or None, mime_type=mime)
        resource._docroot = self.docroot
        return resource

    def _route_prompt(self) -> RoutePrompt:
        prompt = RoutePrompt(
            name=ROUTE_PROMPT,
            description="Run a command by route: `_name --flag=value`, `:name --flag value` or `;name --flag=value`.",
            arguments=[PromptArgument(name="command", description="The route, e.g. `_review --mode=branch`.", required=True)],
        )
        prompt._docroot = self.docroot
        return prompt

    def _command_prompt(self, command: Entrypoint) -> CommandPrompt:
        arguments = [
            PromptArgument(name=field.name, description=field_description(field, form.message), required=False)
            for form in command.forms.forms
            for field in form.fields
        ]
        prompt = CommandPrompt(name=address.prompt_name(command.name), description=command.description or None, arguments=arguments)
        prompt._docroot = self.docroot
        prompt._command = command.name
        return prompt


def template_uri(entrypoint: Entrypoint) -> str:
    """The resource template of an entrypoint: its address with its fields as query keywords."""
    return address.template(entrypoint.uri, [field.name for form in entrypoint.forms.forms for field in form.fields])


def field_description(field: Field, message: str) -> str:
    """A prompt argument's description: the field's own words and what it accepts."""
    label = field.schema.get("description") or field.schema.get("title") or message
    return f"{label} ({accepted(field)})"
