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


# The process environment is read in one place, where every setting is read and checked (near misses included).
READS_THE_ENVIRONMENT = {"guide/server/settings.py", "guide/cli/__init__.py"}  # and the program's entry point, if it ever needs to
ENVIRONMENT_NAMES = {"environ", "environb", "getenv", "getenvb"}


def environment_reads(path: Path) -> list[int]:
    """The lines of `path` that touch `os.environ` or `os.getenv` (however `os` or the name was imported)."""
    tree = ast.parse(path.read_text())
    modules = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names if alias.name == "os"}
    found = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "os"
             and any(alias.name in ENVIRONMENT_NAMES for alias in node.names)]
    found += [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT_NAMES
              and isinstance(node.value, ast.Name) and node.value.id in modules]
    return sorted(found)


def test_only_the_settings_module_reads_the_environment():
    source = ROOT / "src"
    found = [f"{path.relative_to(source)}:{line}" for path in sorted((source / "guide").rglob("*.py"))
             if path.relative_to(source).as_posix() not in READS_THE_ENVIRONMENT for line in environment_reads(path)]
    assert found == [], f"read the environment outside guide.server.settings (read a setting there instead): {found}"


def test_the_environment_check_sees_each_way_of_reading_it(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nimport os as system\nfrom os import getenv\nos.environ.get('A')\nsystem.getenv('B')\nx = os.getcwd()\n")
    assert environment_reads(sample) == [3, 4, 5]
