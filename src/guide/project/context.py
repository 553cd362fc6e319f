"""The context of one read (C10): the project it is about, that project's workflow phase, and what its live sources offer now.

This module is the one place that decides it. A server serves its own project
(`--project`, else the folder it was started in) unless it is started with
`--projects-under DIR`: then a read may name another with the keyword `project`,
or, on the legacy protocol, by the one root of its client inside DIR.

`Contexts.known` answers on the event loop when nothing needs reading (the
server's own project, its state file unchanged since it was read, each live
source's read kept and its stamps unchanged); otherwise `Contexts.decide` works
the context out in a worker thread: the path checks, the state file, git and the
folder walks of live sources.
"""

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from guide.docroot.built import Built
from guide.docroot.config import Config, state_path
from guide.docroot.memo import UNBUILT, Unbuilt
from guide.errors import GuideError
from guide.forms.declare import FormSet
from guide.forms.sources import Live
from guide.project import sources
from guide.project.folders import Projects
from guide.project.kept import KeptReads
from guide.project.phase import PhaseFile, PhaseFiles
from guide.protocol import PROJECT

NOTHING_LIVE: Mapping[str, Live] = {}


@dataclass(frozen=True, slots=True)
class ReadContext:
    """What one read is about: its project folder, that project's active phase, and its live choices."""

    project: Path
    named: str = ""
    """The project as continuation state carries it, so a retry cannot change it: empty for the server's own."""
    phase: str | None = None
    live: Mapping[str, Live] = field(default_factory=dict)
    """What each live-sourced field (`git-*`, `files:`) offers in this read (C5 sources); empty when it has none."""


class Contexts:
    """The projects a server's reads are about: its own, those a read may name, and their state files."""

    def __init__(self, own: Path | None = None, projects: Projects | None = None):
        self.own = Path(own or os.getcwd()).resolve()
        """The server's own project: the project of every read that names none."""
        self.projects = projects if projects is not None else Projects()
        """The other projects a read may name (`--projects-under`); by default none."""
        self.kept = KeptReads()
        """The live sources' reads, each kept while nothing it read changed."""
        self._phases: tuple[Config | None, PhaseFiles, PhaseFile, dict[str | None, ReadContext]] = (
            None, PhaseFiles(lambda project: None), PhaseFile(None), {})
        self._lock = threading.Lock()

    def asks_roots(self, keywords: Mapping[str, object]) -> bool:
        """Whether a read with these keywords may be named by its client's roots (a legacy client's, C10)."""
        return self.projects.under is not None and PROJECT not in keywords

    def known(self, built: Built, forms: FormSet, keywords: Mapping[str, object], roots: Sequence[str] = (), *,
              phased: bool = True, supplied: Callable[[], Mapping[str, Sequence[str]]] = dict) -> ReadContext | Unbuilt:
        """The read's context if it is known without reading a file (the server's own project, phase known, live reads kept), else `UNBUILT`.

        `phased` False (neither the forms nor the templates look at the workflow phase): the state file is not looked at.
        `supplied`: the texts the read gives each field, as for `decide`.
        """
        if roots or PROJECT in keywords:
            return UNBUILT
        config, _, own, made = self._state(built)
        phase = own.known() if phased else None
        if phase is UNBUILT:
            return UNBUILT
        if forms.live:
            live = sources.known(forms, self.own, supplied(), self.kept)
            return UNBUILT if live is None else ReadContext(self.own, "", phase, live)
        found = made.get(phase)
        if found is None:  # one context per phase of the server's own project: most reads share it
            found = made.setdefault(phase, ReadContext(self.own, "", phase))
        return found

    def decide(self, built: Built, forms: FormSet, keywords: Mapping[str, Sequence[str]], supplied: Mapping[str, Sequence[str]] | None = None,
               roots: Sequence[str] = (), *, phased: bool = True, lenient: bool = False, only: str | None = None) -> ReadContext:
        """The read's context, worked out now (slow: never on the event loop); `InputError` when it names a project it may not have.

        `supplied` are the texts the read gives each field, checked against a live source beyond the values it offers.
        Completion asks `lenient`ly (a project it may not name is the server's own, not an error), for the field it completes
        (`only`: no other field's live source is read).
        """
        project = self._project(keywords, roots, lenient)
        phase = self._phase(built, project) if phased else None
        live = sources.derive(forms, project, supplied, only=only, kept=self.kept) if forms.live else NOTHING_LIVE
        return ReadContext(project, "" if project == self.own else str(project), phase, live)

    def _project(self, keywords: Mapping[str, Sequence[str]], roots: Sequence[str], lenient: bool) -> Path:
        """The project the keyword `project` names (checked), else the one root inside the projects folder, else the server's own."""
        given = keywords.get(PROJECT)
        if given is not None:
            try:
                return self.projects.named(given)
            except GuideError:
                if not lenient:
                    raise
                return self.own
        if roots:
            return self.projects.rooted(roots) or self.own
        return self.own

    def _phase(self, built: Built, project: Path) -> str | None:
        """The workflow phase `project` is in now; its state file is read again whenever it changed (slow)."""
        _, phases, own, _ = self._state(built)
        return own.phase() if project == self.own else phases.of(project).phase()

    def _state(self, built: Built) -> tuple[Config | None, PhaseFiles, PhaseFile, dict[str | None, ReadContext]]:
        """The state files under the build's configuration: the path of each is worked out once per configuration and project."""
        state = self._phases
        config = built.snapshot.config
        if state[0] is not config:
            state = (config, PhaseFiles(partial(state_path, config)), PhaseFile(state_path(config, self.own)), {})
            with self._lock:
                self._phases = state
        return state
