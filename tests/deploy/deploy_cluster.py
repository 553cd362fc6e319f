"""Real processes for the deployment tests: `guide serve --transport http` replicas and nginx on 127.0.0.1.

nginx runs in the foreground (never as a daemon) with its prefix, temp folders, logs
and pid file under the test's own folder, and the project's `deploy/nginx-guide.conf`
included with only its addresses changed to this run's ports.
"""

import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from guide.examples import DOCROOT

REPO = Path(__file__).resolve().parents[2]
NGINX_CONF = REPO / "deploy" / "nginx-guide.conf"
START_TIMEOUT = 30.0  # seconds a process gets to become ready (bounded polling, not a measurement)
STOP_TIMEOUT = 30.0
DOC_LISTEN = "listen 8080;"
DOC_REPLICAS = ("127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def accepts(port: int) -> bool:
    """True if something accepts TCP connections on 127.0.0.1:`port`."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """One plain HTTP GET to 127.0.0.1:`port`: status and body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    finally:
        connection.close()


def nginx_binary() -> str:
    """The nginx executable, or skip the test saying how to get it."""
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)
    if found is None:
        pytest.skip("nginx is not installed (`.ci/run` installs it with `apt-get install -y nginx`)")
    return found


class Replica:
    """One `guide serve --transport http` process on a fixed port; it can be stopped, killed and started again."""

    def __init__(self, name: str, workdir: Path, env: dict[str, str], docroot: Path = DOCROOT, *, behind_proxy: bool = True):
        self.name = name
        self.behind_proxy = behind_proxy
        self.workdir = workdir
        self.env = env
        self.docroot = docroot
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.starts = 0
        workdir.mkdir(parents=True, exist_ok=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}/mcp"

    @property
    def log_path(self) -> Path:
        return self.workdir / f"server-{self.starts}.log"

    def log(self) -> str:
        """Everything this replica wrote to its terminal since its last start."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self, **env: str) -> "Replica":
        """Start the process (with `env` changes) and wait until `/healthz` answers 200."""
        return self.launch(**env).ready()

    def launch(self, **env: str) -> "Replica":
        """Start the process (with `env` changes) without waiting for it."""
        assert self.process is None or self.process.poll() is not None, f"{self.name} is already running"
        self.env = {**self.env, **env}
        self.starts += 1
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "guide", "serve", "--docroot", str(self.docroot), "--transport", "http", "--host", "127.0.0.1", "--port", str(self.port),
                 *(["--forwarded-allow-ips", "127.0.0.1"] if self.behind_proxy else [])],  # as deploy/README.md starts them behind nginx
                cwd=self.workdir,
                env={**os.environ, "FASTMCP_LOG_LEVEL": "INFO", **self.env},  # the tests read the shutdown and rejection lines
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        return self

    def ready(self) -> "Replica":
        """Wait until `/healthz` answers 200 (on a first start whose port was taken meanwhile, move to another)."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                if get(self.port, "/healthz")[0] == 200:
                    return self
            if self.process.poll() is not None:
                if self.starts == 1 and "address already in use" in self.log().lower():
                    self.port = free_port()
                    return self.launch().ready()
                break
            time.sleep(0.1)
        self.stop()
        pytest.fail(f"replica {self.name} did not become healthy on port {self.port}:\n{self.log()}")

    def stop(self) -> int | None:
        """SIGTERM (graceful: in-flight requests finish) and wait; the exit status."""
        return self._end(signal.SIGTERM)

    def kill(self) -> int | None:
        """SIGKILL: the process dies at once, with whatever it was doing."""
        return self._end(signal.SIGKILL)

    def _end(self, sig: signal.Signals) -> int | None:
        process = self.process
        if process is None or process.poll() is not None:
            return process.returncode if process else None
        process.send_signal(sig)
        try:
            return process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail(f"replica {self.name} did not stop within {STOP_TIMEOUT:.0f} s after {sig.name}:\n{self.log()}")


class Nginx:
    """nginx in the foreground, serving `deploy/nginx-guide.conf` with this run's ports."""

    def __init__(self, workdir: Path, replicas: list[Replica]):
        self.binary = nginx_binary()
        self.workdir = workdir
        self.replicas = replicas
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        workdir.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def error_log(self) -> str:
        path = self.workdir / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def render(self) -> Path:
        """Write the documented configuration with this run's addresses, and a main file that includes it."""
        text = NGINX_CONF.read_text(encoding="utf-8")
        assert len(self.replicas) == len(DOC_REPLICAS), "the documented file lists three replicas"
        for documented, replica in [(DOC_LISTEN, None), *zip(DOC_REPLICAS, self.replicas)]:
            assert text.count(documented) == 1, f"{NGINX_CONF.name} no longer has exactly one {documented!r}; update the tests with it"
            text = text.replace(documented, f"listen 127.0.0.1:{self.port};" if replica is None else replica.address)
        (self.workdir / "guide.conf").write_text(text, encoding="utf-8")
        work = self.workdir
        temp = "\n".join(f"    {kind}_temp_path {work / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        main = self.workdir / "nginx.conf"
        main.write_text(
            ("user root;\n" if os.geteuid() == 0 else "")  # workers must reach the test's private temp folders
            + f"worker_processes 1;\npid {work / 'nginx.pid'};\nerror_log {work / 'error.log'} info;\n"
            + "events { worker_connections 1024; }\n"
            + f"http {{\n    access_log {work / 'access.log'};\n{temp}\n    include {work / 'guide.conf'};\n}}\n",
            encoding="utf-8",
        )
        return main

    def start(self) -> "Nginx":
        """Check the configuration, start nginx and wait until it accepts connections."""
        main = self.render()
        command = [self.binary, "-p", f"{self.workdir}/", "-c", str(main), "-e", str(self.workdir / "error.log")]
        checked = subprocess.run([*command, "-t", "-q"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert checked.returncode == 0, f"nginx -t rejected the documented configuration:\n{checked.stderr}"
        self.process = subprocess.Popen([*command, "-g", "daemon off;"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and self.process.poll() is None:
            if accepts(self.port):
                return self
            time.sleep(0.05)
        self.stop()
        pytest.fail(f"nginx did not start on port {self.port}:\n{self.error_log()}")

    def stop(self) -> None:
        """Graceful stop (SIGQUIT), then wait."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGQUIT)
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def cluster(workdir: Path, env: dict[str, str], count: int = 3, docroot: Path = DOCROOT):
    """`count` replicas serving `docroot` with `env`, and nginx in front of them; stops everything afterwards."""
    replicas = [Replica(f"r{index + 1}", workdir / f"r{index + 1}", dict(env), docroot) for index in range(count)]
    front = None
    try:
        nginx_binary()
        for replica in replicas:
            replica.launch()
        for replica in replicas:
            replica.ready()
        front = Nginx(workdir / "nginx", replicas).start()
        yield front, replicas
    finally:
        if front is not None:
            front.stop()
        for replica in replicas:
            replica.stop()
