"""Where each agent reads skills (and commands) in a project: the folders `guide export-skills` writes into.

Each is the project-level folder the agent's own documentation names
(docs/export.md lists them with their sources). Several agents also read
another agent's folder; `agents` is the folder the Agent Skills agents share.
"""

from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class AgentFolders:
    """An agent's folders within a project: its skills, and its commands if it has a folder for them."""

    name: str
    skills: PurePosixPath
    commands: PurePosixPath | None = None


AGENTS = {
    "claude": AgentFolders("claude", PurePosixPath(".claude/skills"), PurePosixPath(".claude/commands")),
    "codex": AgentFolders("codex", PurePosixPath(".agents/skills")),
    "copilot": AgentFolders("copilot", PurePosixPath(".github/skills")),
    "cursor": AgentFolders("cursor", PurePosixPath(".cursor/skills")),
    "gemini": AgentFolders("gemini", PurePosixPath(".gemini/skills")),
    "agents": AgentFolders("agents", PurePosixPath(".agents/skills")),
}
"""Each agent `--agent` names, with its folders relative to the project."""
MANIFEST = ".guide-export.json"
"""The manifest's file name, in the agent's skills folder (a hidden file: agents and skill loaders skip it)."""
