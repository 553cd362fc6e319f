"""The code passes the project's lint rules (ruff, configured in pyproject.toml), keeps the forms core pure, imports only downwards, stays within its size limits (the ratchet below), and marks benchmark runs slow."""

import ast
import re
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
LAYERS = {"forms": 1, "render": 2, "docroot": 3, "project": 4, "routes": 5, "server": 6, "cli": 7}


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


BENCH_MODULE = re.compile(r"bench(\.\w+)*")


def test_a_test_that_runs_a_benchmark_is_marked_slow():
    """A test file naming a bench/ module as a string (what it hands `python -m`) marks its tests slow: the default run stays short."""
    unmarked = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name == "test_style.py" or "node_modules" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        strings = (node.value for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Constant) and isinstance(node.value, str))
        if any(BENCH_MODULE.fullmatch(value) for value in strings) and "pytest.mark.slow" not in text:
            unmarked.append(path.relative_to(ROOT).as_posix())
    assert not unmarked, f"these run a benchmark or probe and are not marked slow: {unmarked}"

# ---------------------------------------------------------------- the size ratchet
#
# Modules of at most 400 lines, classes of at most 200, functions (and methods) of at
# most 40, in src/guide, bench and tests alike (a test is read as often as the code).
# How lines are counted: a module is every line of its file (`str.splitlines`); a class
# or a function runs from its `class`/`def` line to its last line (the AST node's
# `lineno` to `end_lineno`: decorators left out; its docstring, comments and blank lines
# inside counted). A nested function counts on its own and inside its parent.
#
# What was larger when the ratchet came is listed in SIZES_ALLOWED with its size then.
# The list may only shrink: the test fails when a listed item grows, when an item over
# its limit is not listed, and when a listed item has shrunk (lower its number, so it
# cannot grow back), come within its limit or gone (take it out). After a change, or a
# merge, rewrite the list from the tree as it is with
#
#     python tests/test_style.py --write-sizes
#
# and read the diff: every number in it should go down or leave, never up or in.

SIZE_LIMITS = {"module": 400, "class": 200, "function": 40}
SIZED_FOLDERS = ("src/guide", "bench", "tests")

# sizes: begin (written by `python tests/test_style.py --write-sizes`)
SIZES_ALLOWED = {
    "src/guide/server/connections.py::guarded_protocol": 53,
    "tests/robustness/test_edit_storm.py::test_a_storm_of_edits_is_one_burst_and_no_read_fails": 50,
}
# sizes: end


def _sized_files() -> list[Path]:
    files = (path for folder in SIZED_FOLDERS for path in (ROOT / folder).rglob("*.py"))
    return sorted(path for path in files if "node_modules" not in path.parts)


def _definitions(node: ast.AST, prefix: str = ""):
    """(kind, qualified name, lines) of every class and function under `node`, nested ones included."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = "class" if isinstance(child, ast.ClassDef) else "function"
            yield kind, prefix + child.name, child.end_lineno - child.lineno + 1
            yield from _definitions(child, f"{prefix}{child.name}.")
        else:
            yield from _definitions(child, prefix)


def measured_sizes() -> dict[str, tuple[str, int]]:
    """Every module, class and function of the sized folders: `path` or `path::qualified.name` -> (kind, lines)."""
    sizes: dict[str, tuple[str, int]] = {}
    for path in _sized_files():
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT).as_posix()
        sizes[where] = ("module", len(text.splitlines()))
        for kind, name, lines in _definitions(ast.parse(text)):
            key = f"{where}::{name}"
            sizes[key] = (kind, max(lines, sizes.get(key, (kind, 0))[1]))  # a name defined twice (by branches): the larger
    return sizes


def oversized() -> dict[str, int]:
    """What is over its limit today, with its size."""
    return {key: lines for key, (kind, lines) in measured_sizes().items() if lines > SIZE_LIMITS[kind]}


def test_nothing_grows_past_the_size_limits_and_the_allowed_list_only_shrinks():
    sizes, now = measured_sizes(), oversized()
    problems = []
    for key, lines in sorted(now.items()):
        kind = sizes[key][0]
        if key not in SIZES_ALLOWED:
            problems.append(f"{key}: {lines} lines, over the {kind} limit of {SIZE_LIMITS[kind]}; split it")
        elif lines > SIZES_ALLOWED[key]:
            problems.append(f"{key}: grew from {SIZES_ALLOWED[key]} to {lines} lines (limit {SIZE_LIMITS[kind]}); shrink it")
        elif lines < SIZES_ALLOWED[key]:
            problems.append(f"{key}: shrank from {SIZES_ALLOWED[key]} to {lines} lines: lower its entry (python tests/test_style.py --write-sizes)")
    for key in sorted(set(SIZES_ALLOWED) - set(now)):
        state = f"now {sizes[key][1]} lines, within its limit" if key in sizes else "gone"
        problems.append(f"{key}: {state}: take it out of SIZES_ALLOWED (python tests/test_style.py --write-sizes)")
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def _write_sizes() -> None:
    """Rewrite SIZES_ALLOWED in this file from the tree as it is."""
    this = Path(__file__)
    text = this.read_text(encoding="utf-8")
    begin, end = text.index("SIZES_ALLOWED = {\n"), text.index("}\n# sizes: end")
    rows = "".join(f'    "{key}": {lines},\n' for key, lines in sorted(oversized().items()))
    this.write_text(text[:begin] + "SIZES_ALLOWED = {\n" + rows + text[end:], encoding="utf-8")


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


def test_a_channel_imports_neither_the_service_nor_the_components_above_it():
    # What a channel is (server/channels/) sits below the read (service) and the App form's MCP components (app_form/).
    above = {"guide.server.service", "guide.server.provider", "guide.server.app", "guide.server.app_form"}
    for module, names in _imports().items():
        if module.startswith("guide.server.channels."):
            reached = {name for name in names if name in above or name.startswith("guide.server.app_form.")}
            assert not reached, f"{module} imports {sorted(reached)}"


def test_the_project_of_a_read_is_decided_in_one_module():
    # Which folder a read is about (its keyword, the client's roots, the server's own or the working directory) and its
    # context (the phase its state file holds, what its live sources offer) are worked out only in guide/project/context.py;
    # every other module (reads, the App form's rounds, `guide render`, completion) asks it through `Contexts.known`/`decide`.
    deciding = {"named", "rooted", "getcwd", "cwd", "ReadContext", "derive", "read_source", "PhaseFile", "PhaseFiles", "phase", "project"}
    for path in sorted((ROOT / "src" / "guide").rglob("*.py")):
        if path.relative_to(ROOT / "src").as_posix().startswith("guide/project/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                assert name not in deciding, f"{path.relative_to(ROOT)}:{node.lineno} calls {name}: a read's project is decided in project/context.py"


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


if __name__ == "__main__" and sys.argv[1:] == ["--write-sizes"]:
    _write_sizes()
