"""The code passes the project's lint rules (ruff, configured in pyproject.toml), keeps the forms core pure, and imports only downwards."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    done = subprocess.run([ruff, "check", "src", "tests", "bench"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


FORBIDDEN_IN_CORE = ("fastmcp", "mcp", "mcp_types", "starlette", "os", "pathlib", "io", "shutil", "socket", "subprocess", "time", "asyncio")
# The one module the core loads on first use: only a pattern RE2 refuses needs it, and most docroots have none.
DEFERRED_IN_CORE = {"regex"}


def test_the_forms_core_imports_no_protocol_or_io_module_and_opens_no_file():
    for path in sorted((ROOT / "src" / "guide" / "forms").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN_IN_CORE, f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open":
                raise AssertionError(f"{path.name} opens a file")
        for function in (node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))):
            inner = [node for node in ast.walk(function) if isinstance(node, (ast.Import, ast.ImportFrom))]
            names = {alias.name for node in inner if isinstance(node, ast.Import) for alias in node.names}
            names |= {node.module or "" for node in inner if isinstance(node, ast.ImportFrom)}
            assert names <= DEFERRED_IN_CORE, f"{path.name}: {function.name} imports {sorted(names)} inside a function"


# The layers, bottom up (docs/architecture.md); the top-level modules (address, text, errors, ...) are leaves below them all.
LAYERS = {"forms": 1, "render": 2, "docroot": 3, "routes": 4, "server": 5, "cli": 6}


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.get(parts[1], 0) if parts[0] == "guide" and len(parts) > 1 else 0


def test_no_module_imports_from_a_layer_above_its_own():
    for path in sorted((ROOT / "src" / "guide").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT / "src").with_suffix("").parts)
        if module == "guide.__main__":  # the program's entry point runs the command line
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                assert _layer(name) <= _layer(module), f"{module} imports {name}, a layer above it"


def _imports() -> dict[str, set[str]]:
    """Each module of the package, with the modules of the package it imports (at any depth of its code)."""
    modules = {".".join(path.relative_to(ROOT / "src").with_suffix("").parts).removesuffix(".__init__"): path for path in (ROOT / "src" / "guide").rglob("*.py")}
    found: dict[str, set[str]] = {}
    for module, path in modules.items():
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module for alias in node.names}
            elif isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
        found[module] = {name for name in names if name in modules and name != module and not module.startswith(f"{name}.")}
    return found


def test_no_two_modules_import_each_other_through_any_chain():
    imports = _imports()

    def reaches(start: str, goal: str) -> bool:
        seen, pending = set(), list(imports[start])
        while pending:
            module = pending.pop()
            if module == goal:
                return True
            if module not in seen:
                seen.add(module)
                pending.extend(imports.get(module, ()))
        return False

    circles = sorted(f"{module} <-> {other}" for module, names in imports.items() for other in names if module < other and reaches(other, module))
    assert circles == []


def test_the_store_sits_below_the_build():
    build = {"guide.docroot.built", "guide.docroot.filework", "guide.docroot.lint", "guide.docroot.snapshot", "guide.docroot.folder"}
    for module, names in _imports().items():
        if module.startswith("guide.docroot.store."):
            assert not names & build, f"{module} imports {sorted(names & build)}"


def _own(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's own code: not those of the lambdas and functions inside it (handed to the helper)."""
    found, pending = [], list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
            pending.extend(ast.iter_child_nodes(node))
    return found


def test_only_the_fast_path_helper_asks_what_is_built_and_then_goes_off_the_loop():
    asked = {"built", "made", "recall", "known_phase"}
    for path in sorted((ROOT / "src" / "guide").rglob("*.py")):
        if path == ROOT / "src" / "guide" / "server" / "work.py":
            continue
        for function in (node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))):
            called = {node.func.attr for node in _own(function) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}
            assert not (called & asked and "off_loop" in called), f"{path.name}: {function.name} asks what is built, then goes off the loop itself"
