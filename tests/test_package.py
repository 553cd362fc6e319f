"""Issue 20 item 3 and issue 29 item 3: Guide builds as the distribution `guide-mcp`, installs on its own and serves through `guide`.

`python -m build` makes an sdist and, from it, a wheel, from a copy of this checkout's
files as a run leaves them (with `__pycache__` folders): the wheel holds no compiled
file, the sdist holds the docs. The wheel goes into a fresh virtual environment with
its dependencies (from the package index), into one of pipx's own, and is run by
`uvx --from` (uv installed from PyPI). Each installed `guide` reads the bundled
example's review command through a real MCP client, from a folder where this
checkout is not importable.
"""

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from guide import __version__

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
DISTRIBUTION = "guide_mcp"
URI = "guide://_review?mode=branch&reference=feature%2Fsearch&depth=thorough"
TIMEOUT = 600  # seconds for a build or an install from the index (a safety net, not a measurement)
BUNDLED = ("guide/examples", "guide/scaffold")


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run `command` in `cwd`; its standard output, or the test fails with everything it printed."""
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def bundled_files() -> set[str]:
    """The bundled example's and the scaffold's files, as paths inside the package."""
    src = REPO / "src"
    return {path.relative_to(src).as_posix() for folder in BUNDLED for path in (src / folder).rglob("*") if path.is_file() and "__pycache__" not in path.parts}


def expected_text(tmp_path: Path) -> str:
    """What this checkout renders for URI: the installed program must read the same text."""
    return run(sys.executable, "-m", "guide", "render", URI, cwd=tmp_path)


def checkout_files() -> list[str]:
    """The files of this checkout a release is built from: tracked, or new and not ignored."""
    listed = run("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", cwd=REPO)
    return sorted(name for name in listed.split("\0") if name and (REPO / name).is_file())


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel `python -m build` makes from a copy of the checkout as a run of it leaves it."""
    source = tmp_path_factory.mktemp("source")
    for name in checkout_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, source / name)
    run(sys.executable, "-m", "compileall", "-q", source / "src", cwd=source)  # what the quick start's run leaves behind
    assert list((source / "src" / "guide" / "examples").glob("__pycache__/*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--outdir", out, source, cwd=source)
    return out


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed (and its dependencies from the index)."""
    folder = tmp_path_factory.mktemp("venv")
    run(sys.executable, "-m", "venv", folder, cwd=folder)
    run(folder / "bin" / "python", "-m", "pip", "install", "--quiet", dist / f"{DISTRIBUTION}-{__version__}-py3-none-any.whl", cwd=folder)
    return folder


def test_build_makes_an_sdist_and_a_wheel_with_the_license_and_the_bundled_docroots(dist):
    wheel = zipfile.ZipFile(dist / f"{DISTRIBUTION}-{__version__}-py3-none-any.whl")
    names = set(wheel.namelist())
    info = f"{DISTRIBUTION}-{__version__}.dist-info"
    assert bundled_files() <= names, sorted(bundled_files() - names)
    assert "guide/examples/docroot/_commands/review.md" in names and "guide/scaffold/docroot/guide.yaml" in names
    assert wheel.read(f"{info}/licenses/LICENSE") == (REPO / "LICENSE").read_bytes()
    metadata = wheel.read(f"{info}/METADATA").decode()
    assert "\nName: guide-mcp\n" in metadata and "\nLicense-Expression: MIT\n" in metadata
    assert "guide = guide.cli:run" in wheel.read(f"{info}/entry_points.txt").decode()

    with tarfile.open(dist / f"{DISTRIBUTION}-{__version__}.tar.gz") as sdist:
        inside = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"LICENSE", "README.md", "pyproject.toml", "CHANGELOG.md"} <= inside
    assert {f"src/{name}" for name in bundled_files()} <= inside


def test_the_wheel_has_no_compiled_files_and_the_sdist_has_the_docs(dist):
    wheel = zipfile.ZipFile(dist / f"{DISTRIBUTION}-{__version__}-py3-none-any.whl").namelist()
    with tarfile.open(dist / f"{DISTRIBUTION}-{__version__}.tar.gz") as sdist:
        inside = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for names in (wheel, inside):
        assert not [name for name in names if name.endswith((".pyc", ".pyo")) or "__pycache__" in name]
    docs = {f"docs/{path.name}" for path in (REPO / "docs").glob("*.md")}
    assert docs and docs <= inside, sorted(docs - inside)
    assert {"deploy/README.md", "deploy/nginx-guide.conf"} <= inside
    linked = set(re.findall(r"\]\((docs/[a-z-]+\.md)", (REPO / "README.md").read_text()))
    assert linked and linked <= inside  # every doc the README links to ships with it


def test_the_wheel_in_a_fresh_venv_reads_a_command_through_guide(venv, tmp_path):
    where = run(venv / "bin" / "python", "-c", "import guide; print(guide.__file__)", cwd=tmp_path)
    assert Path(where.strip()).is_relative_to(venv), f"guide was imported from {where.strip()}, not from the fresh environment"
    assert run(venv / "bin" / "guide", "try", URI, cwd=tmp_path) == expected_text(tmp_path)
    assert run(venv / "bin" / "guide", "--version", cwd=tmp_path) == f"guide {__version__}\n"

    run(venv / "bin" / "guide", "init", tmp_path / "starter", cwd=tmp_path)  # the scaffold is installed, and passes its own check
    run(venv / "bin" / "guide", "check", tmp_path / "starter", cwd=tmp_path)


def test_pipx_installs_the_wheel_as_the_guide_command(dist, venv, tmp_path):
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "pipx", cwd=tmp_path)
    places = {"PIPX_HOME": tmp_path / "pipx", "PIPX_BIN_DIR": tmp_path / "bin", "PIPX_MAN_DIR": tmp_path / "man"}
    env = {**os.environ, **{name: str(path) for name, path in places.items()}}  # nothing lands in the user's own pipx
    run(venv / "bin" / "pipx", "install", dist / f"{DISTRIBUTION}-{__version__}-py3-none-any.whl", cwd=tmp_path, env=env)
    assert run(tmp_path / "bin" / "guide", "try", URI, cwd=tmp_path) == expected_text(tmp_path)


def test_uvx_runs_guide_from_the_wheel(dist, venv, tmp_path):
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "uv", cwd=tmp_path)
    places = {"UV_CACHE_DIR": tmp_path / "uv-cache", "UV_TOOL_DIR": tmp_path / "uv-tools", "XDG_DATA_HOME": tmp_path / "data"}
    env = {**os.environ, **{name: str(path) for name, path in places.items()}, "UV_PYTHON_DOWNLOADS": "never"}  # the index only; this Python
    wheel = dist / f"{DISTRIBUTION}-{__version__}-py3-none-any.whl"
    command = (venv / "bin" / "uvx", "--python", sys.executable, "--from", wheel, "guide")
    assert run(*command, "--version", cwd=tmp_path, env=env) == f"guide {__version__}\n"
    assert run(*command, "try", URI, cwd=tmp_path, env=env) == expected_text(tmp_path)
