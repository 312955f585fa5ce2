"""What both backends of scripts/bench measure with (bench.py on SQLite, bench_postgres.py on PostgreSQL): wrk runs
with the server's CPU per request, timed commands with their peak memory, catalogd's imports and servers, the
median of a few rounds, and the facts every result file starts with. Loopback only; every wait is bounded."""

import datetime
import json
import os
import platform
import subprocess
import tempfile
import time

from harness import cpu_seconds, free_port, wait_for, wrk_figures, wrk_milliseconds

PAGE_SIZE = 1000
IMPORT_ROUNDS = 3


def run_wrk(url, pid, duration, connections, headers=()):
    """req/s, p50 and p99 in ms, CPU ms per request of the server, errors."""
    cpu_before = cpu_seconds(pid)
    output = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--timeout", "10s", "--latency",
         *[argument for header in headers for argument in ("-H", header)], url],
        capture_output=True, text=True, timeout=duration + 60, check=True).stdout
    cpu = cpu_seconds(pid) - cpu_before
    figures = wrk_figures(output)
    latencies = figures["latencies"]
    return {
        "rps": figures["rps"],
        # No latency lines: no request finished within wrk's timeout (they count as errors).
        "p50_ms": wrk_milliseconds(latencies["50"]) if "50" in latencies else float("nan"),
        "p99_ms": wrk_milliseconds(latencies["99"]) if "99" in latencies else float("nan"),
        "cpu_ms_per_request": 1000 * cpu / max(figures["requests"], 1),
        "requests": figures["requests"],
        "errors": figures["socket_errors"] + figures["non_2xx"],
    }


def timed(command):
    elapsed, output, _ = timed_with_peak_rss(command)
    return elapsed, output


def timed_with_peak_rss(command):
    """Seconds, standard output and peak RSS in MiB of one command (its own rusage, from wait4)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 3600
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                process.wait()
                raise SystemExit(f"timed out: {' '.join(command)}")
            time.sleep(0.01)
        elapsed = time.monotonic() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if process.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{stdout}\n{stderr}")
    return elapsed, stdout, usage.ru_maxrss / 1024


def catalogd_import(bin_dir, database, source_url, label, products):
    seconds, output, peak_rss_mib = timed_with_peak_rss([os.path.join(bin_dir, "catalogd"), "import", "products", "--database", database,
                             "--from", source_url, "--products-page-size", str(PAGE_SIZE), "--json",
                             "--log-level", "warning"])
    report = json.loads(output)
    written = report["inserted"] + report["updated"] + report["deleted"]
    return {"label": label, "seconds": seconds, "rows_per_second": products / seconds, "inserted": report["inserted"],
            "updated": report["updated"], "unchanged": report["unchanged"], "rows_written": written,
            "peak_rss_mib": peak_rss_mib}


def median_run(measure):
    """The run of median time among IMPORT_ROUNDS of `measure` (given the round), with every round's seconds: one
    import on this shared machine moves by 10-15 % from run to run."""
    runs = sorted((measure(round) for round in range(IMPORT_ROUNDS)), key=lambda run: run["seconds"])
    median = {**runs[len(runs) // 2], "rounds_seconds": [run["seconds"] for run in runs]}
    if "peak_rss_mib" in median:
        # Memory is a bound, not a typical value: the highest of the rounds.
        median["peak_rss_mib"] = max(run["peak_rss_mib"] for run in runs)
    return median


def start_catalogd(args, processes, database, name, extra=()):
    port = free_port()
    process = processes.start(name, [
        os.path.join(args.bin, "catalogd"), "serve", "--port", str(port), "--database", database, "--films-url", "",
        "--products-url", "", "--import-interval", "off", *extra])
    base = f"http://127.0.0.1:{port}"
    wait_for(base + "/readyz")
    return process, base


def run_facts(args, products):
    """What every result file starts with: when, where, how much, and how hard wrk pushed."""
    return {
        "date": datetime.date.today().isoformat(),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, {platform.system()} {platform.release()}",
        "products": products,
        "connections": args.connections,
        "wrk_seconds": args.duration,
    }


def ratio(a, b):
    return a / b if b else float("nan")
