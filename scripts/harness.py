"""The Python harness's one library: processes started and stopped, a throwaway PostgreSQL cluster (through
scripts/postgres), loopback ports and bounded waits, a process's CPU and memory, and wrk's figures. Every Python
script under scripts/ starts its servers and PostgreSQL from here, so that every server a script starts, it stops.
Loopback only; every wait is bounded.
"""

import glob
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

SCRIPTS = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, seconds=120):
    """Returns once `url` answers 200; raises after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"no answer from {url} within {seconds} s")


def get_json(url, timeout=60):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return json.load(response)


def api(method, url, token, body=None, timeout=30):
    """(status, JSON body or None) of one request with a bearer token and a JSON body, for any status."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, None


def memory_kib(pid, field):
    """VmRSS, VmHWM, … of a process, in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """User plus system CPU seconds a process has spent so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def host_busy_seconds():
    """CPU seconds the host's cores have spent busy so far (user, nice, system, interrupts), all cores together."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    user, nice, system, _, _, irq, softirq = (int(value) for value in fields[:7])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def wait_until_host_idle(seconds=300, quiet=2):
    """Returns once the host's cores together spend under a tenth of a core for `quiet` seconds in a row: a server
    just started, and its database, have finished the work they begin with."""
    deadline = time.monotonic() + seconds
    still = 0
    while time.monotonic() < deadline:
        before = host_busy_seconds()
        time.sleep(1)
        still = still + 1 if host_busy_seconds() - before < 0.1 else 0
        if still >= quiet:
            return
    raise RuntimeError(f"the host was still busy after {seconds} s")


class Processes:
    """Every process started through it, stopped on the way out (a `with` block, or `stop_all`): SIGTERM, then
    SIGKILL for one still running `timeout` seconds later. With `logs`, a process started with a name writes its
    output to logs/NAME.log; otherwise its output is discarded."""

    def __init__(self, logs=None, timeout=15):
        self.logs = logs
        self.timeout = timeout
        self.running = []
        self.named = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop_all()

    def __getitem__(self, name):
        return self.named[name]

    def start(self, name, command, env=None):
        """Starts `command` with `env` added to this environment; `name` names its log and finds it again."""
        output = subprocess.DEVNULL
        if self.logs and name:
            output = open(os.path.join(self.logs, f"{name}.log"), "w")
        try:
            process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env={**os.environ, **(env or {})})
        finally:
            if output is not subprocess.DEVNULL:
                output.close()  # the child holds its own descriptor
        self.running.append(process)
        if name:
            self.named[name] = process
        return process

    def stop(self, process, timeout=None):
        """SIGTERM, and SIGKILL if it has not exited within `timeout` seconds; its exit code."""
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=self.timeout if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process in self.running:
            self.running.remove(process)
        return process.returncode

    def stop_all(self):
        """Every process still running gets SIGTERM at once; then each is waited for as `stop` does."""
        for process in self.running:
            if process.poll() is None:
                process.terminate()
        for process in list(reversed(self.running)):
            self.stop(process)


def postgres_bin():
    """The newest PostgreSQL installed: the folder of its psql, pgbench and server."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(path.split("/")[-2]))
    if not found:
        raise RuntimeError("no PostgreSQL under /usr/lib/postgresql (scripts/postgres start installs it)")
    return found[-1]


def psql(url, *arguments, check=True, timeout=3600):
    """psql's output of `arguments` on `url`, without ~/.psqlrc, stopping at the first error (the newest PostgreSQL's
    psql, or the one on PATH where only a client is installed)."""
    command = os.path.join(postgres_bin(), "psql") if glob.glob("/usr/lib/postgresql/*/bin/psql") else "psql"
    completed = subprocess.run([command, "-X", "-q", "-v", "ON_ERROR_STOP=1", url, *arguments],
                               capture_output=True, text=True, timeout=timeout)
    if check and completed.returncode != 0:
        raise RuntimeError(f"psql {' '.join(arguments)} on {url} exited {completed.returncode}: {completed.stderr.strip()}")
    return completed.stdout


def with_database(url, name):
    """`url` naming the database `name` instead, its query (sslmode…) kept."""
    address, _, query = url.partition("?")
    return address.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")


class Postgres:
    """A throwaway PostgreSQL cluster on a loopback port: `scripts/postgres start` in a folder of its own (readable by
    the `postgres` user the server runs as), `stop` deletes it. Its server log is `log_file`."""

    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="catalogd-postgres-")
        os.chmod(self.work, 0o755)
        self.directory = os.path.join(self.work, "db")
        self.log_file = os.path.join(self.directory, "server.log")
        try:
            self.url = subprocess.run([os.path.join(SCRIPTS, "postgres"), "start", self.directory, str(free_port())],
                                      capture_output=True, text=True, check=True, timeout=600).stdout.strip()
        except BaseException:
            self.stop()
            raise
        self.bin = postgres_bin()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def database(self, name):
        """A new database in the cluster; its URL."""
        psql(self.url, "-c", f"CREATE DATABASE {name}")
        return with_database(self.url, name)

    def down(self):
        """Stops the server, keeping its data (to see clients cope with an outage)."""
        subprocess.run([os.path.join(SCRIPTS, "postgres"), "down", self.directory], check=True, capture_output=True, timeout=120)

    def up(self):
        subprocess.run([os.path.join(SCRIPTS, "postgres"), "up", self.directory], check=True, capture_output=True, timeout=120)

    def stop(self):
        subprocess.run([os.path.join(SCRIPTS, "postgres"), "stop", self.directory], capture_output=True, timeout=120)
        shutil.rmtree(self.work, ignore_errors=True)


def wrk_figures(output):
    """What wrk printed: requests, req/s, socket errors, non-2xx/3xx answers, and the latency lines printed (with
    --latency) by percentile, as text ("1.14s"); none when no request finished within wrk's timeout."""
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return {
        "requests": int(re.search(r"(\d+) requests in", output).group(1)),
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        "socket_errors": sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", output)),
        "non_2xx": int(non_2xx.group(1)) if non_2xx else 0,
        "latencies": dict(re.findall(r"^\s+(\d+)%\s+(\S+)\s*$", output, re.M)),
    }


def wrk_milliseconds(text):
    """A wrk duration ("850.00us", "1.14s") in milliseconds."""
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}[unit]
