"""Issue 29 item 1: deploy/README.md's "From zero to three replicas" works as pasted, run from the file itself.

Its `sh` blocks are extracted (as .ci/run extracts the README's quick start) and run
in order by one bash, as a pasted root session would run them: Guide is installed
into a fresh virtual environment from this checkout, `guide init` writes the docroot,
the secrets file is made, three replicas start from the unit file, their health is
checked, nginx starts with the shipped configuration, and a read with alice's token
goes through nginx. What this machine cannot do is done by stand-ins
(tests/deploy/stand_ins.py: no systemd, no new user; `systemctl enable --now` runs
the unit's ExecStart directly, in its WorkingDirectory with its EnvironmentFile), and
the guide's /etc, /opt and /srv and its ports are moved into the test's own folder and
free ports, since other tests share this machine.
"""

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from deploy_cluster import free_port, get, nginx_binary

pytestmark = pytest.mark.slow  # it installs Guide and its dependencies into a fresh environment

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "deploy" / "README.md"
STAND_INS = ("apt-get", "useradd", "chown", "systemctl", "nginx")
PORTS = ("8001", "8002", "8003", "8080")
WITHOUT_SYSTEMD = "# Without systemd"
TIMEOUT = 900  # seconds for the whole session, an install from the index included (a safety net, not a measurement)


def blocks() -> list[str]:
    """The `sh` blocks of "From zero to three replicas", in order, dedented."""
    section = GUIDE.read_text().split("## From zero to three replicas\n", 1)[1].split("\n## ", 1)[0]
    found = []
    for indent, body in re.findall(r"^( *)```sh\n(.*?)^\1```", section, re.S | re.M):
        found.append("".join(line[len(indent) :] for line in body.splitlines(keepends=True)))
    return found


def clone(folder: Path) -> Path:
    """A copy of this checkout's files (tracked, or new and not ignored), as a fresh clone has them."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=REPO, capture_output=True, text=True, check=True)
    for name in filter(None, listed.stdout.split("\0")):
        if (REPO / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, folder / name)
    return folder


def moved(text: str, sandbox: Path, ports: dict[str, str], checkout: Path) -> str:
    """The guide's text with its system paths moved into `sandbox`, the checkout's path filled in and its ports changed."""
    for path in ("/etc/guide", "/etc/systemd/system", "/etc/nginx/conf.d", "/opt/guide", "/srv/guide"):
        text = text.replace(path, f"{sandbox}{path}")
    text = text.replace("/path/to/guide-checkout", str(checkout))
    for documented, port in ports.items():
        text = re.sub(rf"\b{documented}\b", port, text)
    return text


def stand_ins(folder: Path) -> Path:
    """A folder of scripts that run the stand-ins in place of the system commands."""
    folder.mkdir()
    for command in STAND_INS:
        script = folder / command
        script.write_text(f'#!/bin/sh\nexec {sys.executable} {REPO / "tests" / "deploy" / "stand_ins.py"} {command} "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def stop_everything(sandbox: Path) -> None:
    """End the replicas the stand-in started and the nginx it started."""
    pids = sandbox / "pids"
    for line in pids.read_text().splitlines() if pids.exists() else []:
        try:
            os.kill(int(line.split()[0]), signal.SIGTERM)
        except ProcessLookupError:
            pass
    pid = sandbox / "nginx" / "nginx.pid"
    if pid.exists():
        try:
            os.kill(int(pid.read_text().strip()), signal.SIGQUIT)
        except (ProcessLookupError, ValueError):
            pass
    deadline = time.monotonic() + 20
    for line in pids.read_text().splitlines() if pids.exists() else []:
        while time.monotonic() < deadline and Path(f"/proc/{line.split()[0]}").exists():
            time.sleep(0.1)


def test_the_operator_guide_runs_as_pasted(tmp_path):
    nginx_binary()  # skips, saying how to get nginx, where there is none
    sandbox = tmp_path / "machine"
    for folder in ("etc/nginx/conf.d", "etc/systemd/system"):  # what the nginx and systemd packages provide
        (sandbox / folder).mkdir(parents=True)
    ports = {documented: str(free_port()) for documented in PORTS}
    found = blocks()
    assert found[-1].startswith("token=") and sum(block.startswith(WITHOUT_SYSTEMD) for block in found) == 1
    checkout = clone(tmp_path / "guide-checkout")
    script = "\n".join(moved(block, sandbox, ports, checkout) for block in found if not block.startswith(WITHOUT_SYSTEMD))
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GUIDE_STATE", "GUIDE_AUTH", "VIRTUAL_ENV"))}
    env.update(PATH=f"{stand_ins(tmp_path / 'bin')}{os.pathsep}{env['PATH']}", GUIDE_TEST_SANDBOX=str(sandbox),
               GUIDE_TEST_PORTS=",".join(f"{documented}={port}" for documented, port in ports.items()))
    try:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        logs = {path.name: path.read_text(errors="replace") for path in (sandbox / "log").glob("*.log")}
        assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}\n{logs}"
        refused = get(int(ports["8080"]), "/mcp")[0]
    finally:
        stop_everything(sandbox)

    assert done.stdout.count("ok\n") == 3  # the three health checks
    assert '"text":"# Guide help' in done.stdout and '"result"' in done.stdout  # the read through nginx with alice's token
    assert refused == 401
    assert sorted(logs) == sorted(f"guide@{ports[documented]}.log" for documented in PORTS[:3])
    assert any("alice read guide://_help (2026-07-28, agent): ok" in log for log in logs.values()), logs
    assert "guide://_change" in done.stdout  # the help of the docroot `guide init` wrote (its command `change`)
    ran = (sandbox / "stand-ins.log").read_text()
    assert ran.count(f"in {sandbox}/srv/guide/project\n") == 3, ran  # each replica in the unit's WorkingDirectory
    env_file = sandbox / "etc" / "guide" / "guide.env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600 and stat.S_IMODE(env_file.parent.stat().st_mode) == 0o700
    assert re.fullmatch(r"GUIDE_STATE_KEYS=\S{40,}\nGUIDE_AUTH_TOKENS=alice:\S{40,},bob:\S{40,},ci-bot:\S{40,}\nGUIDE_ALLOWED_HOSTS=guide.example.com\n", env_file.read_text())
    assert (sandbox / "opt" / "guide" / "bin" / "guide").exists()


def test_the_unit_and_the_command_without_systemd_start_replicas_the_same_way(tmp_path):
    (without,) = [block for block in blocks() if block.startswith(WITHOUT_SYSTEMD)]
    (unit,) = [block for block in blocks() if "guide@.service" in block.splitlines()[0]]
    keys = dict(re.findall(r"^(\w+)=(.*)$", unit, re.M))
    assert keys["User"] == "guide" and keys["WorkingDirectory"] == "/srv/guide/project" and keys["EnvironmentFile"] == "/etc/guide/guide.env"
    started = re.search(r"runuser -u guide -- (.*) &$", without, re.M).group(1)
    assert started == keys["ExecStart"].replace("%i", "$port")
    assert f"cd {keys['WorkingDirectory']} && set -a && . {keys['EnvironmentFile']} && set +a" in without
