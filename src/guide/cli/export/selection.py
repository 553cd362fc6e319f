"""Which commands and skills an export writes, read from the docroot into the text of each file.

The entries a run names replace those the manifest recorded for the same
command or skill; the other recorded entries are rendered again, so the folder
follows the docroot. Every skill (and every command, where the agent has a
commands folder) is added when no entry is named, or on `--update` after such a
run. A recorded entry whose command or skill is gone is dropped (its files are
then removed); any other entry that cannot be read stops the export.
"""

from dataclasses import dataclass

from guide.cli.export.folders import AgentFolders
from guide.cli.export.manifest import Entry, Manifest, digest
from guide.cli.export.reading import Read, read_entry
from guide.cli.export.written import command_file, skill_files
from guide.cli.rendering import ANY_PROJECT
from guide.errors import GuideError, NotFoundError
from guide.project.context import Contexts
from guide.server import work
from guide.server.service import Service
from guide.server.settings import Settings, open_docroot


@dataclass(frozen=True)
class Chosen:
    """The entries to export, in order (a later one for the same command or skill wins), and whether every one is chosen."""

    entries: tuple[Entry, ...]
    every: bool
    recorded: int = 0
    """How many of `entries` come from the manifest (the rest were named by this run)."""


@dataclass(frozen=True)
class Done:
    """What an export writes: each file's text by its path in the project, and the manifest's entries."""

    texts: dict[str, str]
    entries: tuple[Entry, ...]


class Refused(GuideError):
    """Entries that cannot be exported, one line each."""


def choose(before: Manifest | None, update: bool, given: list[Entry] | None) -> Chosen:
    """The entries of this run: what the manifest recorded, then what the run names (None: every command and skill)."""
    if update and before is None:
        raise GuideError("--update renders again what an export wrote, and this folder has no manifest: export without --update first")
    recorded = before.entries if before is not None else ()
    every = (before is not None and before.every) or (given is None and not update)
    return Chosen((*recorded, *(given or ())), every, recorded=len(recorded))


async def export(settings: Settings, folders: AgentFolders, chosen: Chosen) -> Done:
    """Read every chosen entry and lay out its files; entries that cannot be exported raise `Refused`, one line each."""
    service = Service(open_docroot(settings), contexts=Contexts(settings.project, ANY_PROJECT), max_output=settings.max_output)
    # Every command and skill first: an entry recorded or named for the same one comes later, and wins with its values.
    every = await work.off_loop(_every, service, folders) if chosen.every else []
    recorded = range(len(every), len(every) + chosen.recorded)
    reads: dict[tuple[str, str], tuple[Entry, Read]] = {}
    problems = []
    for number, entry in enumerate([*every, *chosen.entries]):
        try:
            found = await read_entry(service, entry.uri, entry.answers)
        except NotFoundError as error:
            if number not in recorded:
                problems.append(f"{entry.uri}: {_first_line(error)}")
            continue  # a recorded one whose command or skill is gone: its files go too
        except GuideError as error:
            problems.append(f"{entry.uri}: {_first_line(error)}")
            continue
        if found.entrypoint.kind == "command" and folders.commands is None:
            problems.append(f"{entry.uri}: {folders.name} has no folder for commands; export its skills (guide://$name) only")
            continue
        reads[(found.entrypoint.kind, found.entrypoint.name)] = (entry, found)
    if problems:
        raise Refused("\n".join(problems))
    return _laid_out(folders, list(reads.values()))


def _every(service: Service, folders: AgentFolders) -> list[Entry]:
    """An entry for every skill, and every command where the agent has a folder for them, as the docroot has them now."""
    built = service.docroot.build()
    found = [Entry(skill.uri) for skill in built.every("skill")]
    return found + ([Entry(command.uri) for command in built.every("command")] if folders.commands is not None else [])


def _laid_out(folders: AgentFolders, reads: list[tuple[Entry, Read]]) -> Done:
    """Each read's files under the agent's folders, and its manifest entry with their digests."""
    texts: dict[str, str] = {}
    entries = []
    for entry, read in reads:
        if read.entrypoint.kind == "skill":
            written = [(f"{folders.skills}/{file.path}", file.text) for file in skill_files(read)]
        else:
            file = command_file(read)
            written = [(f"{folders.commands}/{file.path}", file.text)]
        texts.update(written)
        files = {path: digest(text.encode("utf-8")) for path, text in written}
        entries.append(Entry(entry.uri, entry.answers, tuple(question.form for question in read.questions), files))
    return Done(texts, tuple(entries))


def _first_line(error: object) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
