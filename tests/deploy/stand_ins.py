"""Stand-ins for the system commands of deploy/README.md that this machine cannot run for real (no systemd, no new users).

`tests/deploy/test_operator_guide.py` puts a small script for each command in
front of `PATH`; each runs `python stand_ins.py COMMAND ARGS...`. They work in the
sandbox folder `GUIDE_TEST_SANDBOX` names (where the guide's /etc, /opt and /srv
went) and log what they did to `stand-ins.log` there:

- `apt-get`: nginx, python3-venv and curl must already be here; nothing is installed.
- `useradd`, `chown`: recorded only (the paths chown names must exist).
- `systemctl daemon-reload`: the unit file must exist. `systemctl enable --now guide@PORT...`
  runs the unit's `ExecStart` directly, with `%i` the port, the variables of its
  `EnvironmentFile` and in its `WorkingDirectory` (systemd fails a unit whose folder
  is missing, and so does this), with HOME the unit user's home as systemd sets it.
- `nginx`: the real nginx, with a main configuration of the test's own that includes
  `etc/nginx/conf.d/*.conf`, its documented ports mapped to this run's
  (`GUIDE_TEST_PORTS`: `8001=40001,...`); `-t`, `-s reload` and a plain start as nginx has them.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

SANDBOX = Path(os.environ.get("GUIDE_TEST_SANDBOX", "."))
UNITS = SANDBOX / "etc" / "systemd" / "system"
NGINX = SANDBOX / "nginx"


def note(line: str) -> None:
    with (SANDBOX / "stand-ins.log").open("a") as log:
        log.write(line + "\n")


def apt_get(args: list[str]) -> int:
    missing = [name for name in ("nginx", "curl") if not (shutil.which(name) or Path(f"/usr/sbin/{name}").exists())]
    if missing:
        print(f"stand-in apt-get: {', '.join(missing)} must be installed on this machine for the test", file=sys.stderr)
        return 1
    note(f"apt-get {shlex.join(args)}: skipped, nginx and curl are installed")
    return 0


def recorded(command: str, args: list[str]) -> int:
    if command == "chown":
        paths = [Path(arg) for arg in args if not arg.startswith("-")][1:]
        missing = [str(path) for path in paths if not path.exists()]
        if missing:
            print(f"chown: cannot access {missing[0]}: No such file or directory", file=sys.stderr)
            return 1
    note(f"{command} {shlex.join(args)}: recorded, not run")
    return 0


def unit(name: str) -> dict[str, str]:
    """The [Service] keys of a template unit (the last value of each)."""
    path = UNITS / name
    keys, section = {}, None
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            keys[key.strip()] = value.strip()
    return keys


def environment_file(path: str) -> dict[str, str]:
    found = {}
    for line in Path(path).read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            found[key.strip()] = value.strip()
    return found


def systemctl(args: list[str]) -> int:
    if args == ["daemon-reload"]:
        found = list(UNITS.glob("*.service"))
        note(f"systemctl daemon-reload: units {[path.name for path in found]}")
        return 0 if found else 1
    if args[:2] != ["enable", "--now"]:
        print(f"stand-in systemctl: {shlex.join(args)} is not something the guide runs", file=sys.stderr)
        return 1
    for instance in args[2:]:
        template, _, port = instance.partition("@")
        keys = unit(f"{template}@.service")
        folder = Path(keys["WorkingDirectory"])
        if not folder.is_dir():
            print(f"{instance}: Failed at step CHDIR spawning: {folder}: No such file or directory", file=sys.stderr)
            return 1
        home = SANDBOX / "srv" / keys.get("User", "root")
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", **environment_file(keys["EnvironmentFile"])}
        command = shlex.split(keys["ExecStart"].replace("%i", port))
        (SANDBOX / "log").mkdir(exist_ok=True)
        with (SANDBOX / "log" / f"{instance}.log").open("wb") as log:
            process = subprocess.Popen(command, cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        with (SANDBOX / "pids").open("a") as pids:
            pids.write(f"{process.pid} {instance}\n")
        note(f"systemctl enable --now {instance}: ran ExecStart (pid {process.pid}) in {folder}")
    return 0


def nginx(args: list[str]) -> int:
    here = str(Path(sys.argv[0]).resolve().parent)
    beside = os.pathsep.join(folder for folder in os.environ["PATH"].split(os.pathsep) if folder and Path(folder, "nginx") != Path(here, "nginx"))
    binary = next((path for path in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(path, os.X_OK)), None) or shutil.which("nginx", path=beside)
    if binary is None or Path(binary).read_bytes()[:2] == b"#!":  # never this stand-in's own script
        print("stand-in nginx: the real nginx is not installed", file=sys.stderr)
        return 1
    main = render_nginx()
    base = [binary, "-p", f"{NGINX}/", "-c", str(main), "-e", str(NGINX / "error.log")]
    if args == ["-t"]:
        return subprocess.run([*base, "-t"]).returncode
    if args == ["-s", "reload"]:
        pid = NGINX / "nginx.pid"
        if not pid.exists():
            print('nginx: [error] open() "nginx.pid" failed (2: No such file or directory)', file=sys.stderr)
            return 1
        return subprocess.run([*base, "-s", "reload"]).returncode
    if args == []:
        note("nginx: started with the test's main configuration")
        return subprocess.run(base).returncode  # daemonizes, as nginx does by default
    print(f"stand-in nginx: {shlex.join(args)} is not something the guide runs", file=sys.stderr)
    return 1


def render_nginx() -> Path:
    """A main configuration around the guide's conf.d files, their documented ports mapped to this run's."""
    ports = dict(pair.split("=") for pair in os.environ["GUIDE_TEST_PORTS"].split(","))
    NGINX.mkdir(exist_ok=True)
    included = []
    for path in sorted((SANDBOX / "etc" / "nginx" / "conf.d").glob("*.conf")):
        text = path.read_text()
        text = re.sub(r"listen (\d+);", lambda match: f"listen 127.0.0.1:{ports.get(match.group(1), match.group(1))};", text)
        text = re.sub(r"127\.0\.0\.1:(\d+)", lambda match: f"127.0.0.1:{ports.get(match.group(1), match.group(1))}", text)
        (NGINX / path.name).write_text(text)
        included.append(f"    include {NGINX / path.name};")
    temp = "\n".join(f"    {kind}_temp_path {NGINX / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    main = NGINX / "nginx.conf"
    main.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")
        + f"worker_processes 1;\npid {NGINX / 'nginx.pid'};\nerror_log {NGINX / 'error.log'} info;\n"
        + "events { worker_connections 256; }\n"
        + f"http {{\n    access_log {NGINX / 'access.log'};\n{temp}\n" + "\n".join(included) + "\n}\n"
    )
    return main


def main(argv: list[str]) -> int:
    command, args = argv[0], argv[1:]
    if command == "apt-get":
        return apt_get(args)
    if command in ("useradd", "chown"):
        return recorded(command, args)
    if command == "systemctl":
        return systemctl(args)
    if command == "nginx":
        return nginx(args)
    print(f"no stand-in for {command}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
