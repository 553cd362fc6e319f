"""`guide export-skills --agent AGENT DIR`: write the docroot's skills (and commands) into an agent's folders in the project DIR.

Each entrypoint is read as `guide render` reads it (`guide.cli.export.reading`)
and written as a conformant Agent Skills folder, or a Claude Code command file
(`guide.cli.export.written`). The manifest in the agent's skills folder records
every entry and file (`guide.cli.export.manifest`); a run adds or replaces the
entries it names (every skill, and every command where the agent has a folder
for them, when it names none), re-renders the others, and removes those whose
entrypoint is gone. `--update` re-renders what the manifest records. Files are
written only where `guide.cli.export.files` allows: nothing Guide did not
write is overwritten, and one refusal writes nothing and exits 1.
"""

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from guide.cli.configured import add_folder_options, settings_of
from guide.cli.export.files import Plan, apply, plan
from guide.cli.export.folders import AGENTS, MANIFEST, AgentFolders
from guide.cli.export.manifest import Entry, Manifest, load, save
from guide.cli.inputs import read_answers, with_values
from guide.errors import GuideError
from guide.server.settings import Settings
from guide.text import for_terminal

if TYPE_CHECKING:  # the module itself is imported when an export runs (see `_exported`)
    from guide.cli.export.selection import Chosen, Done


def add_parser(commands: argparse._SubParsersAction, example: Path) -> None:
    """Register `guide export-skills`."""
    parser = commands.add_parser("export-skills", help="write skills (and commands) into an agent's folders, their forms kept as questions")
    parser.add_argument("--agent", required=True, choices=sorted(AGENTS), help="whose folders to write (docs/export.md lists them)")
    parser.add_argument("dir", type=Path, metavar="DIR", help="the project to write into (e.g. DIR/.claude/skills/NAME/SKILL.md)")
    parser.add_argument("addresses", nargs="*", metavar="ADDRESS",
                        help="commands and skills to export, with keywords (guide://$name?k=v); default: every skill, and every command "
                             "where the agent has a commands folder")
    add_folder_options(parser)
    parser.add_argument("--set", dest="values", action="append", default=[], metavar="K=V", help="a keyword value for the one ADDRESS (repeatable)")
    parser.add_argument("--answers", type=Path, default=None, metavar="FILE.json", help="answer the one ADDRESS's forms from a file, as guide render does")
    parser.add_argument("--update", action="store_true", help="render again what the manifest in DIR records")
    parser.set_defaults(run=run)


def run(options: argparse.Namespace) -> int:
    """Export, or say in one line per problem why nothing was written; exit 1 then, 2 for a wrong setting."""
    folders = AGENTS[options.agent]
    root = options.dir.expanduser().absolute()
    try:
        _check_options(options)
        if not root.is_dir():
            raise GuideError(f"{root} is not a folder: give the project to write into (its {folders.skills} is made)")
        before = load(root / folders.skills / MANIFEST)
    except GuideError as error:
        return _fail(str(error))
    docroot = options.docroot or (Path(before.docroot) if options.update and before is not None else None)
    project = options.project or (Path(before.project) if before is not None and before.project else None)
    settings = settings_of("export-skills", docroot=docroot, project=project or root)
    if settings is None:
        return 2
    try:
        chosen, done = _exported(settings, folders, before, options)
    except GuideError as error:
        return _fail(str(error))
    recorded = before.digests() if before is not None else {}
    exported = tuple(str(folder) for folder in (folders.skills, folders.commands) if folder is not None)
    changes = plan(root, done.texts, recorded, exported)
    if changes.refused:
        for refusal in changes.refused:
            print(f"guide export-skills: {for_terminal(refusal)}", file=sys.stderr)
        print(f"guide export-skills: nothing was written ({len(changes.refused)} refused)", file=sys.stderr)
        return 1
    apply(changes, exported)
    manifest = Manifest(folders.name, str(Path(settings.docroot).absolute()),
                        str(options.project.absolute()) if options.project else (before.project if before else None),
                        chosen.every, done.entries)
    save(root / folders.skills / MANIFEST, manifest)
    _report(root, folders, done.entries, changes)
    return 0


def _exported(settings: Settings, folders: AgentFolders, before: Manifest | None, options: argparse.Namespace) -> tuple["Chosen", "Done"]:
    """The entries chosen and what reading them made; a refusal is every reason, one a line, then "nothing was written"."""
    # Imported here: reading entrypoints loads FastMCP, a second that `guide check` and the other subcommands do not need.
    from guide.cli.export.selection import Refused, choose, export

    try:
        chosen = choose(before, options.update, _given(options))
        return chosen, asyncio.run(export(settings, folders, chosen))
    except Refused as refused:
        for line in str(refused).splitlines():
            _fail(line)
        raise GuideError("nothing was written") from None


def _check_options(options: argparse.Namespace) -> None:
    """Refuse options that do not go together, in one line."""
    if options.update and (options.addresses or options.values or options.answers):
        raise GuideError("--update renders again what the manifest records: give no ADDRESS, --set or --answers with it")
    if (options.values or options.answers) and len(options.addresses) != 1:
        raise GuideError("--set and --answers give values to one command or skill: name exactly one ADDRESS (or put keywords in each address)")


def _given(options: argparse.Namespace) -> list[Entry] | None:
    """The entries this run names (None: every command and skill); `--set` and `--answers` go to its one address."""
    if options.update or not options.addresses:
        return None
    if options.values or options.answers:
        answers = read_answers(options.answers) if options.answers else None
        return [Entry(with_values(options.addresses[0], options.values), answers)]
    return [Entry(uri) for uri in options.addresses]


def _report(root: Path, folders: AgentFolders, entries: tuple[Entry, ...], changes: Plan) -> None:
    """What was written, one line each, and what asks first."""
    for rel in changes.writes:
        print(f"wrote {rel}")
    for rel in changes.removes:
        print(f"removed {rel} (no longer exported)")
    for rel in changes.kept:
        print(f"left {rel} in place: it is no longer exported, but it was changed since it was written")
    asking = [entry for entry in entries if entry.asks]
    print(f"{len(entries)} exported into {root / folders.skills.parent}: {len(changes.writes)} written, {len(changes.same)} unchanged, "
          f"{len(changes.removes)} removed; {len(asking)} ask the person first")


def _fail(message: str) -> int:
    print(f"guide export-skills: {for_terminal(message)}", file=sys.stderr)
    return 1

