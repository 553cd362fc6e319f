"""FastMCP components sourced from the docroot on every request, so edits need no restart (C3).

Every `guide://` read goes to one resource class that hands the address to the
service; listed resources, per-command templates and per-command prompts only
make the docroot visible to clients that browse. A listing is made once per
docroot snapshot in a worker thread; what the event loop does for a listing is
FastMCP's own part (filtering the components and converting them to their wire
form, as for any FastMCP server). Keeping the wire forms as well would double
the memory of a large listing (80 MB at 10,000 entrypoints).
"""

from collections.abc import Callable
from typing import Any

from fastmcp.prompts import Prompt, PromptArgument
from fastmcp.resources import Resource, ResourceContent, ResourceResult, ResourceTemplate
from fastmcp.server.dependencies import get_context
from fastmcp.server.providers import Provider
from mcp_types import ReadResourceResult
from pydantic import PrivateAttr, ValidationError

from guide import address
from guide.docroot.built import Built
from guide.docroot.display import read
from guide.docroot.entrypoints import Entrypoint
from guide.docroot.folder import Docroot
from guide.docroot.layout import document_type
from guide.docroot.memo import MEGA, UNBUILT, Kept
from guide.errors import GuideError
from guide.forms.fields import Field
from guide.forms.values import accepted
from guide.protocol import MIME, PROJECT, ROUTE_PROMPT
from guide.routes.lookup import AddressRead, CommandRead, PromptRead
from guide.server import work
from guide.server.kept_listings import LISTINGS, KeptListings, Record
from guide.server.labels import prompt_fields, resource_fields
from guide.server.service import Service
from guide.server.skills import SkillsSource

COMPONENTS: Kept[Any] = Kept("read components, one per address (and prompt name)", 1024, 8 * MEGA)
KEPT_ADDRESS_LENGTH = 1024
"""Reads of longer addresses get a fresh component each time: the memo must stay small."""
PROJECT_ARGUMENT = "The project folder this read is about: an absolute path inside the server's --projects-under folder (default: the server's own project)"


class EntrypointText(ResourceResult):
    """The rendered text of an entrypoint: never to be cached, since a cached read would replay someone's answers."""

    def to_mcp_result(self, uri: Any) -> ReadResourceResult:
        """The wire result with `ttlMs: 0`, set explicitly so the server-wide caching hint leaves it alone."""
        return ReadResourceResult(contents=[item.to_mcp_resource_contents(uri) for item in self.contents], _meta=self.meta, ttl_ms=0)


def _uncached(text: str) -> EntrypointText:
    return EntrypointText([ResourceContent(text, mime_type=MIME)])


class GuideResource(Resource):
    """Any `guide://` address: help, a document, a skill member or an entrypoint read."""

    _service: Service = PrivateAttr()
    _address: str = PrivateAttr()
    """The address as the client sent it, which `uri` may not hold (a malformed one)."""

    async def read(self) -> Any:
        """Resolve this address against the current docroot, asking for input if needed."""
        return await self._service.read(get_context(), AddressRead(self._address), rendered=_uncached)


class GuidePrompt(Prompt):
    """A prompt of Guide's: the `guide` route prompt, or a command's own."""

    _service: Service = PrivateAttr()
    _command: str | None = PrivateAttr(default=None)
    """The command this prompt runs; None for the `guide` prompt, whose argument names the route."""

    async def render(self, arguments: dict[str, Any] | None = None) -> Any:
        """Resolve the route line (the `guide` prompt) or the command with the arguments as keywords."""
        arguments = arguments or {}
        if self._command is None:
            read: Any = PromptRead(str(arguments.get("command", "")))
        else:
            read = CommandRead(self._command, tuple((name, str(value)) for name, value in arguments.items() if value is not None))
        return await self._service.read(get_context(), read)


class DocrootProvider(SkillsSource, Provider):
    """Lists and serves the docroot's commands, skills, documents and prompts, and the skills' entries of the Skills extension."""

    def __init__(self, service: Service):
        super().__init__()
        self.service = service
        self.docroot: Docroot = service.docroot
        self.kept = KeptListings(self.docroot, repr(self._project_keyword), _record, self._component)
        """Listings carried to a snapshot with the same fingerprint (this server's last, or the last server's); this one's kept for the next."""

    @property
    def _project_keyword(self) -> tuple[str, ...]:
        """The `project` keyword, listed with each template and command prompt when reads may name their project (C10)."""
        return (PROJECT,) if self.service.contexts.projects.under is not None else ()

    async def get_tasks(self) -> list:
        """No docroot component runs as a background task (so start-up need not list the docroot)."""
        return []

    async def _list_resources(self) -> list[Resource]:
        return await self._listing("resources", self._resources)

    async def _list_resource_templates(self) -> list[ResourceTemplate]:
        return await self._listing("templates", self._templates)

    async def _list_prompts(self) -> list[Prompt]:
        return await self._listing("prompts", self._prompts)

    async def _get_resource(self, uri: str, version: Any = None) -> Resource | None:
        # Every address is Guide's to answer, even a malformed one or one of another
        # scheme: the route stage then says what is wrong, as the tool does (C3).
        uri = str(uri)

        def component(built: Built) -> Any:  # reads no file: made on the loop whenever a build is there
            found = built.recall(COMPONENTS, uri)
            if found is UNBUILT:
                made = self._read_resource(uri, _mime(built, uri))
                found = built.remember(COMPONENTS, uri, made) if len(uri) <= KEPT_ADDRESS_LENGTH else made
            return found

        # Gone: its read says the docroot is gone.
        return await work.built_or_build(self.docroot, component, component, gone=lambda: self._read_resource(uri, MIME))

    async def _get_prompt(self, name: str, version: Any = None) -> Prompt | None:
        if name == ROUTE_PROMPT:
            return self._route_prompt()
        return await work.built_or_build(
            self.docroot,
            lambda built: built.recall(COMPONENTS, ("prompt", name)),
            lambda built: self._find_prompt(built, name),
            gone=lambda: self._command_prompt_named(name),  # its render says the docroot is gone
        )

    async def _listing(self, kind: str, make: Callable[[Built], list]) -> list:
        """A listing made once per docroot snapshot (clients list often, the docroot changes rarely), in a worker thread.

        A snapshot with the same fingerprint as one listed before (by this server, or
        the last one) takes its listings (`guide.server.kept_listings`). While the
        docroot folder is gone there is nothing to list: the listing is empty.
        """

        def made(built: Built) -> list:
            for other, components in (self.kept.listed(built) or {}).items():
                built.value(LISTINGS, lambda components=components: components, other)
            found = built.value(LISTINGS, lambda: make(built), kind)
            self.kept.made(built)
            return found

        found = await work.built_or_build(self.docroot, lambda built: built.made(LISTINGS, kind), made, gone=list, bulk=True)
        return list(found)

    def _component(self, kind: str, record: Record) -> Any:
        """A listed component again from its kept record (`_record`)."""
        fields, private = record
        if kind == "templates":
            return ResourceTemplate(**fields)
        if kind == "resources":
            resource = GuideResource(**fields)
            resource._service, resource._address = self.service, str(private)
            return resource
        prompt = GuidePrompt(**fields)
        prompt._service, prompt._command = self.service, private if private is None else str(private)
        return prompt

    def _resources(self, built: Built) -> list[Resource]:
        layout = built.snapshot.layout
        listed = [self._resource(address.command_address(name), name, text, shown=self._shown(built, layout.commands[name]))
                  for name, text in built.descriptions("command")]
        listed += [self._resource(address.skill_address(name), name, text, shown=self._shown(built, layout.skills[name]))
                   for name, text in built.descriptions("skill")]
        listed += [
            self._resource(address.document_address(path), path, built.document_description(rel) or "document", document_type(rel),
                           self._shown(built, rel))
            for path, rel in built.documents().items()
        ]
        listed += [
            self._resource(address.member_address(skill, member), f"{skill}/{member}", f"member of skill {skill}")
            for (skill, member) in sorted(layout.members)
            if built.applies("skill", skill)
        ]
        listed += [
            self._resource(address.collection_address(name), f"@{name}", f"collection: {', '.join(entry.text for entry in entries)}")
            for name, entries in built.config.collections.items()
        ]
        return listed

    def _templates(self, built: Built) -> list[ResourceTemplate]:
        return [
            ResourceTemplate(uri_template=template_uri(e, self._project_keyword), name=e.name, description=e.description, mime_type=MIME,
                             parameters={}, **resource_fields(built, read(e.meta)))
            for e in built.every("command") + built.every("skill")
            if e.forms.forms
        ]

    def _prompts(self, built: Built) -> list[Prompt]:
        unclaimed = {ROUTE_PROMPT, *built.layout.shared_prompts}  # shared: two commands claim it, neither gets it (C3)
        commands = [self._command_prompt(c, built) for c in built.every("command") if address.prompt_name(c.name) not in unclaimed]
        return [self._route_prompt(), *commands]

    def _shown(self, built: Built, rel: str) -> dict[str, Any]:
        """The title, icons and audience a listed file shows (nothing read for a file that has none)."""
        return resource_fields(built, built.display(rel))

    def _find_prompt(self, built: Built, name: str) -> Prompt | None:
        command = built.command(address.command_of_prompt(name))
        served = command is not None and address.prompt_name(command.name) == name and name not in built.layout.shared_prompts
        found = self._command_prompt(command, built) if served else None
        return built.remember(COMPONENTS, ("prompt", name), found)

    def _read_resource(self, uri: str, mime: str) -> GuideResource:
        try:
            resource = self._resource(uri if len(uri) <= address.MAX_LENGTH else address.PREFIX, "", "", mime)
        except ValidationError:
            resource = self._resource(address.PREFIX, "", "", mime)
        resource._address = uri
        return resource

    def _resource(self, uri: str, name: str, description: str, mime: str = MIME, shown: dict[str, Any] | None = None) -> GuideResource:
        resource = GuideResource(uri=uri, name=name or uri, description=description or None, mime_type=mime, **(shown or {}))
        resource._service = self.service
        resource._address = uri
        return resource

    def _route_prompt(self) -> GuidePrompt:
        prompt = GuidePrompt(
            name=ROUTE_PROMPT,
            description="Run a command by route: `_name --flag=value`, `:name --flag value` or `;name --flag=value`.",
            arguments=[PromptArgument(name="command", description="The route, e.g. `_review --mode=branch`.", required=True)],
        )
        prompt._service = self.service
        return prompt

    def _command_prompt_named(self, name: str) -> GuidePrompt:
        """A command's prompt known only by its name (nothing can be read to describe it)."""
        prompt = GuidePrompt(name=name)
        prompt._service = self.service
        prompt._command = address.command_of_prompt(name)
        return prompt

    def _command_prompt(self, command: Entrypoint, built: Built) -> GuidePrompt:
        arguments = [
            PromptArgument(name=field.name, description=field_description(field, form.message), required=False)
            for form in command.forms.forms
            for field in form.fields
        ]
        arguments += [PromptArgument(name=name, description=PROJECT_ARGUMENT, required=False) for name in self._project_keyword]
        prompt = GuidePrompt(name=address.prompt_name(command.name), description=command.description or None, arguments=arguments,
                             **prompt_fields(built, read(command.meta)))
        prompt._service = self.service
        prompt._command = command.name
        return prompt


def _record(component: Any) -> Record:
    """A listed component as kept: its fields as FastMCP dumps them, and the address or command Guide adds (`KeptListings`)."""
    private = component._address if isinstance(component, GuideResource) else component._command if isinstance(component, GuidePrompt) else None
    return [component.model_dump(mode="json", exclude_unset=True), private]


def _mime(built: Built, uri: str) -> str:
    """The MIME type a read of `uri` is served as: a document's own (by its suffix), else Markdown."""
    try:
        target = address.parse(uri)
    except GuideError:
        return MIME  # the read reports the error
    rel = built.layout.documents.get(target.path[0]) if target.kind == "document" else None
    return document_type(rel) if rel else MIME


def template_uri(entrypoint: Entrypoint, reserved: tuple[str, ...] = ()) -> str:
    """The resource template of an entrypoint: its address with its fields (and the `reserved` keywords it takes) as query keywords."""
    return address.template(entrypoint.uri, [*(field.name for form in entrypoint.forms.forms for field in form.fields), *reserved])


def field_description(field: Field, message: str) -> str:
    """A prompt argument's description: the field's own words and what it accepts."""
    label = field.schema.get("description") or field.schema.get("title") or message
    return f"{label} ({accepted(field)})"
