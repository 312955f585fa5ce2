"""Exports at scale (`scripts/bench --exports`): catalogd streaming every product as NDJSON and as CSV, beside the
engines' own dumps of the same rows in the same run (`sqlite3 -csv` on SQLite, psql's `\\copy … TO STDOUT CSV` on
PostgreSQL); the server's resident memory while it streams; and the latency of `/healthz` and of a cached page with
and without an export under way. Writes bench/exports-1m.json at a million products (bench/exports.json otherwise).
Loopback only; every wait is bounded."""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from bench_common import run_facts, start_catalogd
from harness import Postgres, Processes, free_port, memory_kib, psql, wait_for, wait_until_host_idle

ROUNDS = 3
COLUMNS = "serial_code, name, description, category, brand, price, stock, updated_at, source_url, source"
TARGET_SQLITE_SECONDS = 10
TARGET_POSTGRES_RATIO = 1.5
TARGET_MEMORY_MIB = 64
TARGET_LATENCY_RATIO = 2


def read_lines(stream):
    """Reads `stream` to its end in 1 MiB chunks; its lines and bytes."""
    lines = size = 0
    while chunk := stream.read(1 << 20):
        lines += chunk.count(b"\n")
        size += len(chunk)
    return lines, size


def timed_download(url):
    """Seconds, lines and bytes of one GET of `url`, read to its end."""
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        lines, size = read_lines(response)
    return time.perf_counter() - started, lines, size


def timed_command(command):
    """Seconds, lines and bytes of one command's standard output, read to its end."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    lines, size = read_lines(process.stdout)
    if process.wait(timeout=600) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return time.perf_counter() - started, lines, size


def rounds(measures):
    """Each of `measures` (name to a function of no argument) ROUNDS times in turn; the median run of each."""
    runs = {name: [] for name in measures}
    for _ in range(ROUNDS):
        for name, measure in measures.items():
            runs[name].append(measure())
    result = {}
    for name, measured in runs.items():
        ordered = sorted(measured)
        seconds, lines, size = ordered[len(ordered) // 2]
        result[name] = {"seconds": seconds, "lines": lines, "mib": size / 2**20, "rounds_seconds": [run[0] for run in measured]}
    return result


def memory_while(pid, action):
    """The server's resident memory (MiB) before `action` and its peak while it runs, sampled every 20 ms."""
    before = memory_kib(pid, "VmRSS") / 1024
    peak = before
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, memory_kib(pid, "VmRSS") / 1024)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        action()
    finally:
        done.set()
        sampler.join()
    return {"before_mib": before, "peak_mib": peak, "growth_mib": peak - before}


def latencies(base, paths, until):
    """Milliseconds of GETs of each of `paths` in turn, one at a time, until `until()` says stop (at most 60 s)."""
    measured = {path: [] for path in paths}
    deadline = time.monotonic() + 60
    while not until() and time.monotonic() < deadline:
        for path in paths:
            started = time.perf_counter()
            with urllib.request.urlopen(base + path, timeout=30) as response:
                response.read()
            measured[path].append(1000 * (time.perf_counter() - started))
    return measured


def p99(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else float("nan")


def latency_under_export(base, export_url):
    """p50 and p99 of `/healthz` and of a cached page while `export_url` downloads (read as fast as curl can), and for
    as long again without it. curl runs at the lowest priority (`nice -n 19`), as a client on another host would take
    none of this one's cores: on 2 cores, curl at full speed downloading a static file from another server on the same
    host makes catalogd's own `/healthz` p99 four times slower, whatever catalogd does (`static_file_floor`)."""
    return latency_under(base, ["curl", "-sf", "-o", "/dev/null", export_url])


def latency_under(base, command):
    """p50 and p99 of `/healthz` and of a cached page while `command` runs at the lowest priority, its output thrown
    away, and for as long again without it."""
    paths = ["/healthz", "/products?page_size=20"]
    for path in paths:
        urllib.request.urlopen(base + path, timeout=30).read()
    started = time.monotonic()
    running = subprocess.Popen(["nice", "-n", "19", *command], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    during = latencies(base, paths, lambda: running.poll() is not None)
    if running.wait(timeout=600) != 0:
        raise SystemExit(f"the load failed: {command[0]} exited {running.returncode}")
    window = time.monotonic() - started
    ends = time.monotonic() + window
    alone = latencies(base, paths, lambda: time.monotonic() > ends)
    return {
        path: {"requests_during": len(during[path]), "p50_ms_during": statistics.median(during[path]), "p99_ms_during": p99(during[path]),
               "requests_alone": len(alone[path]), "p50_ms_alone": statistics.median(alone[path]), "p99_ms_alone": p99(alone[path]),
               "p99_ratio": p99(during[path]) / p99(alone[path])}
        for path in paths
    }


def latency_with_database_apart(base, export_url, cluster, catalogd_pid):
    """The latencies under an export with the PostgreSQL server on the host's last core and catalogd, curl and this
    script on the others: a stand-in for a database on a host of its own, which takes none of the service's cores."""
    cores = set(range(os.cpu_count()))
    database_core = {max(cores)}
    try:
        pin(cluster_processes(cluster.directory), database_core)
        pin([catalogd_pid, os.getpid()], cores - database_core)
        return latency_under_export(base, export_url)
    finally:
        pin(cluster_processes(cluster.directory), cores)
        pin([catalogd_pid, os.getpid()], cores)


def pin(pids, cores):
    """Lets every thread of each of `pids` run on `cores` only (their children started afterwards inherit it)."""
    for pid in pids:
        for thread in os.listdir(f"/proc/{pid}/task"):
            try:
                os.sched_setaffinity(int(thread), cores)
            except ProcessLookupError:
                pass


def cluster_processes(directory):
    """The PostgreSQL server's processes: the postmaster (the first line of its `postmaster.pid`) and its children."""
    with open(os.path.join(directory, "data", "postmaster.pid")) as f:
        postmaster = int(f.readline())
    return [postmaster, *(pid for pid in map(int, filter(str.isdigit, os.listdir("/proc"))) if parent(pid) == postmaster)]


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            # The command's name, in parentheses, may hold spaces: the fields after it are counted from its end.
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None


def static_file_floor(base, work, size):
    """The same latencies while a static file of `size` bytes downloads from Python's own HTTP server on this host:
    what any download of that size costs the host's requests, catalogd's part left out."""
    path = os.path.join(work, "static.bin")
    with open(path, "wb") as f:
        block = os.urandom(1 << 20)
        for _ in range(size >> 20):
            f.write(block)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", work],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(f"http://127.0.0.1:{port}/static.bin", 30)
        return latency_under_export(base, f"http://127.0.0.1:{port}/static.bin")
    finally:
        server.terminate()
        server.wait(timeout=15)
        os.remove(path)


def measure(args, processes, database, name, peer, work, cluster=None):
    """One engine: its exports beside `peer`'s dump, its memory while it streams, and latency with an export under way
    (and, for PostgreSQL's `cluster`, with the server on a core of its own)."""
    process, base = start_catalogd(args, processes, database, name, ["--log-level", "warning"])
    url = base + "/products?format="
    # A server starts by reading its search sets and facet columns (on PostgreSQL for several seconds at a million
    # products): the figures are of exports, taken once that is done.
    wait_until_host_idle()
    # The first export of the server: what streaming costs its memory, before any other has.
    memory = memory_while(process.pid, lambda: timed_download(url + "ndjson"))
    result = rounds({
        "catalogd NDJSON": lambda: timed_download(url + "ndjson"),
        "catalogd CSV": lambda: timed_download(url + "csv"),
        peer[0]: lambda: timed_command(peer[1]),
    })
    result["memory"] = memory
    result["latency"] = latency_under_export(base, url + "ndjson")
    result["latency_static_file"] = static_file_floor(base, work, int(result["catalogd NDJSON"]["mib"] * 2**20))
    # The engine's own dump of the same rows, catalogd answering requests beside it but exporting nothing: what the
    # database's work for a whole catalogue costs the host's requests, catalogd's part left out.
    result["latency_peer_dump"] = latency_under(base, peer[1])
    if cluster and os.cpu_count() > 1:
        result["latency_database_own_core"] = latency_with_database_apart(base, url + "ndjson", cluster, process.pid)
    processes.stop(process)
    return result


def print_engine(name, measured, peer):
    print(f"\n{name}:")
    for label in ("catalogd NDJSON", "catalogd CSV", peer):
        run = measured[label]
        print(f"  {label:<28} {run['seconds']:7.2f} s  {run['lines']:>9,} lines  {run['mib']:8.1f} MiB  rounds "
              + ", ".join(f"{s:.2f}" for s in run["rounds_seconds"]))
    memory = measured["memory"]
    print(f"  resident memory while streaming: {memory['before_mib']:.1f} -> {memory['peak_mib']:.1f} MiB (+{memory['growth_mib']:.1f}, "
          f"target <= {TARGET_MEMORY_MIB})")
    for path, figures in measured["latency"].items():
        floor = measured["latency_static_file"][path]
        dump = measured["latency_peer_dump"][path]
        print(f"  {path:<24} p99 {figures['p99_ms_during']:.2f} ms during an export, {figures['p99_ms_alone']:.2f} ms alone: "
              f"{figures['p99_ratio']:.2f}x (target <= {TARGET_LATENCY_RATIO}); {figures['requests_during']} requests during; "
              f"a static file as large from another server: {floor['p99_ratio']:.2f}x; during {peer} itself: {dump['p99_ratio']:.2f}x")
        if apart := measured.get("latency_database_own_core", {}).get(path):
            print(f"  {'':<24} with the server on a core of its own: p99 {apart['p99_ms_during']:.2f} ms during, "
                  f"{apart['p99_ms_alone']:.2f} ms alone: {apart['p99_ratio']:.2f}x")


def main(args, products):
    work = tempfile.mkdtemp(prefix="catalogd-bench-exports-")
    processes = Processes(work)
    cluster = None
    started = time.monotonic()
    result = {**run_facts(args, products), "engines": {}}
    try:
        listing = os.path.join(work, "products.ndjson")
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "longtail.py"), listing, "--count", str(products)],
                       check=True, capture_output=True)
        catalogd = os.path.join(args.bin, "catalogd")
        database = os.path.join(work, "catalog.sqlite")
        subprocess.run([catalogd, "import", "products", "--from", listing, "--database", database, "--log-level", "warning"],
                       check=True, capture_output=True, timeout=3600)
        print(f"exporting {products:,} long-tail products from SQLite", flush=True)
        sqlite_peer = ("sqlite3 -csv", ["sqlite3", "-csv", database, f"SELECT {COLUMNS} FROM products ORDER BY serial_code"])
        sqlite = measure(args, processes, database, "catalogd-sqlite", sqlite_peer, work)
        result["engines"]["SQLite"] = sqlite
        print_engine("SQLite", sqlite, sqlite_peer[0])
        if args.exports_postgres:
            cluster = Postgres()
            subprocess.run([catalogd, "import", "products", "--from", listing, "--database", cluster.url, "--log-level", "warning"],
                           check=True, capture_output=True, timeout=7200)
            psql(cluster.url, "-c", "VACUUM ANALYZE products")
            print(f"exporting {products:,} long-tail products from PostgreSQL", flush=True)
            copy = f"\\copy (SELECT {COLUMNS} FROM products ORDER BY serial_code) TO STDOUT CSV HEADER"
            postgres_peer = ("psql \\copy TO STDOUT CSV", ["psql", "-X", "-q", cluster.url, "-c", copy])
            postgres = measure(args, processes, cluster.url, "catalogd-postgres", postgres_peer, work, cluster)
            result["engines"]["PostgreSQL"] = postgres
            print_engine("PostgreSQL", postgres, postgres_peer[0])
    finally:
        processes.stop_all()
        if cluster:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    result["targets"] = targets(result["engines"])
    result["elapsed_seconds"] = time.monotonic() - started
    print("\ntargets:")
    for line in result["targets"]:
        print("  " + line)
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    with open(args.results, "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nwrote {args.results} in {result['elapsed_seconds']:.0f} s")


def targets(engines):
    """The issue's targets, each a line saying the figure, the target and whether it is met."""
    lines = []
    if sqlite := engines.get("SQLite"):
        for label in ("catalogd NDJSON", "catalogd CSV"):
            seconds = sqlite[label]["seconds"]
            lines.append(f"SQLite {label}: {seconds:.2f} s (target <= {TARGET_SQLITE_SECONDS} s: {'met' if seconds <= TARGET_SQLITE_SECONDS else 'NOT met'})")
    if postgres := engines.get("PostgreSQL"):
        copy = postgres["psql \\copy TO STDOUT CSV"]["seconds"]
        for label in ("catalogd NDJSON", "catalogd CSV"):
            ratio = postgres[label]["seconds"] / copy
            lines.append(f"PostgreSQL {label}: {ratio:.2f}x psql \\copy (target <= {TARGET_POSTGRES_RATIO}: "
                         f"{'met' if ratio <= TARGET_POSTGRES_RATIO else 'NOT met'})")
    for engine, measured in engines.items():
        growth = measured["memory"]["growth_mib"]
        lines.append(f"{engine} memory: +{growth:.1f} MiB (target <= {TARGET_MEMORY_MIB}: {'met' if growth <= TARGET_MEMORY_MIB else 'NOT met'})")
        for path, figures in measured["latency"].items():
            ratio = figures["p99_ratio"]
            lines.append(f"{engine} {path} p99 under an export: {ratio:.2f}x (target <= {TARGET_LATENCY_RATIO}: "
                         f"{'met' if ratio <= TARGET_LATENCY_RATIO else 'NOT met'})")
    return lines
