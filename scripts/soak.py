"""catalogd's guarantees, proved against the real binaries on loopback (driven by scripts/soak).

crash: `kill -9` of `catalogd serve` at random moments while it imports a large listing and API writes
stream in; after every kill, `catalogd check` passes, the feed's rows are exactly one whole listing
(the one before or the one being imported, never a mix), and every acknowledged write is present.

upstream faults: a hostile upstream (5xx, 429, refused and reset connections, truncated, mistyped,
endless, oversized, invalid UTF-8, deeply nested and out-of-range documents, `next` loops and links to
another host); every import fails with a report naming the cause, and the store stays as it was.

load with writes: wrk reads every endpoint at high concurrency while imports run every 2 s, API batches
move feed rows (so each import has rows to put back) and a checker compares every category page's
derived count with the rows it lists: 0 errors, 0 5xx, no half-applied write ever seen, p99 and RSS
(after warm-up and at the end) reported.

Every wait is bounded; every loop has a fixed count.
"""

import argparse
import json
import os
import random
import signal
import socket
import socketserver
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from harness import Processes, free_port, get_json, memory_kib, wait_for, wrk_figures

TOKEN = "soak-token"


def listing(bin_dir, products, changed, work):
    """serial_code -> (name, price text) of one fixture listing."""
    path = os.path.join(work, f"listing-{changed}.json")
    subprocess.run([os.path.join(bin_dir, "catalog-fixtures"), "generate", "--products", str(products), "--seed", "1",
                    "--changed-fraction", str(changed), "--format", "json", "--output", path], check=True, timeout=600)
    with open(path) as f:
        rows = json.load(f, parse_float=str, parse_int=str)
    return {row["sku"]: (row["title"], row["price"]) for row in rows}


class Writer(threading.Thread):
    """Streams API writes and remembers every one the server acknowledged."""

    def __init__(self, base, prefix):
        super().__init__(daemon=True)
        self.base = base
        self.prefix = prefix
        self.acknowledged = []
        self.stopping = threading.Event()

    def run(self):
        for number in range(100_000):
            if self.stopping.is_set():
                return
            key = f"{self.prefix}-{number}"
            body = json.dumps({"name": f"Written {number}", "category": "soak", "price": "1.50"}).encode()
            request = urllib.request.Request(f"{self.base}/products/{key}", data=body, method="PUT",
                                             headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    if 200 <= response.status < 300:
                        self.acknowledged.append(key)
            except (OSError, urllib.error.HTTPError):
                return  # the server is gone: nothing after this was acknowledged


def crash_safety(bin_dir, runs, products, seed, work):
    """Returns (failures, figures)."""
    rng = random.Random(seed)
    listings = {0.0: listing(bin_dir, products, 0.0, work), 0.5: listing(bin_dir, products, 0.5, work)}
    upstreams = {}
    processes = Processes(work)
    for changed in listings:
        port = free_port()
        processes.start(None, [os.path.join(bin_dir, "catalog-fixtures"), "serve", "--port", str(port), "--products", str(products),
                               "--seed", "1", "--changed-fraction", str(changed)])
        upstreams[changed] = f"http://127.0.0.1:{port}/products"
    database = os.path.join(work, "crash.sqlite")
    failures = []
    acknowledged = set()
    outcomes = {"whole new listing": 0, "whole previous listing": 0}
    try:
        for changed in listings:
            wait_for(upstreams[changed] + "?limit=1", 300)
        # A first, uninterrupted import: every kill then lands on a store that holds a whole listing, and
        # its duration spreads the kills over the imports whatever the speed of the build under test.
        started = time.monotonic()
        subprocess.run([os.path.join(bin_dir, "catalogd"), "import", "products", "--database", database, "--from", upstreams[0.5],
                        "--products-page-size", "1000", "--log-level", "error"], check=True, timeout=900, capture_output=True)
        import_seconds = time.monotonic() - started
        for run in range(runs):
            # Each run imports the other listing, so an interrupted import would show as a mix of the two.
            target = [0.0, 0.5][run % 2]
            port = free_port()
            server = processes.start(f"catalogd-{run}", [
                os.path.join(bin_dir, "catalogd"), "serve", "--port", str(port), "--database", database, "--films-url", "",
                "--products-url", upstreams[target], "--products-page-size", "1000", "--import-interval", "1s",
                "--api-token", TOKEN])
            base = f"http://127.0.0.1:{port}"
            wait_for(base + "/readyz", 60)
            writer = Writer(base, f"API-{run}")
            writer.start()
            time.sleep(rng.uniform(0.05, 0.3 + 1.5 * import_seconds))
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=30)
            writer.stopping.set()
            writer.join(timeout=10)
            acknowledged.update(writer.acknowledged)

            check = subprocess.run([os.path.join(bin_dir, "catalogd"), "check", "--database", database],
                                   capture_output=True, text=True, timeout=300)
            if check.returncode != 0:
                failures.append(f"run {run}: catalogd check failed: {check.stdout.strip()} {check.stderr.strip()[-500:]}")
            with sqlite3.connect(database) as db:
                feed_rows = {key: (name, price) for key, name, price in
                             db.execute("SELECT serial_code, name, price FROM products WHERE source = 'products'")}
                api_keys = {key for (key,) in db.execute("SELECT serial_code FROM products WHERE source = 'api'")}
            if feed_rows == listings[target]:
                outcomes["whole new listing"] += 1
            elif feed_rows == listings[[0.0, 0.5][(run + 1) % 2]]:
                outcomes["whole previous listing"] += 1
            else:
                failures.append(f"run {run}: the feed's {len(feed_rows)} rows are neither listing whole")
            missing = acknowledged - api_keys
            if missing:
                failures.append(f"run {run}: {len(missing)} acknowledged writes missing, e.g. {sorted(missing)[:3]}")
    finally:
        processes.stop_all()
    figures = (f"{runs} kills; {outcomes['whole new listing']} after a whole new import, "
               f"{outcomes['whole previous listing']} with the previous listing whole; "
               f"{len(acknowledged)} acknowledged writes, all present" if not failures else f"{len(failures)} failing runs")
    return failures, figures


class HostileUpstream(socketserver.ThreadingTCPServer):
    """Answers each path with one kind of misbehaviour, written byte by byte on a raw socket."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), HostileHandler)
        self.port = self.server_address[1]


def film_page(next_url):
    return json.dumps({"count": 2, "next": next_url, "previous": None, "results": []}).encode()


class HostileHandler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(5)
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 65536:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            head += chunk
        self.target = head.split(b" ", 2)[1].decode()
        path = self.target.split("?")[0]
        base = f"http://127.0.0.1:{self.server.port}"
        scenario = path.strip("/").split("/")[0]
        try:
            getattr(self, "answer_" + scenario.replace("-", "_"))(base)
        except (BrokenPipeError, ConnectionResetError, socket.timeout, OSError):
            pass

    def send(self, status, body, content_type="application/json", extra=""):
        self.request.sendall(f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
                             f"Connection: close\r\n{extra}\r\n".encode() + body)

    def answer_status503(self, base):
        self.send("503 Service Unavailable", b'{"message": "down"}')

    def answer_status429(self, base):
        self.send("429 Too Many Requests", b'{"message": "slow down"}', extra="Retry-After: 1\r\n")

    def answer_reset(self, base):
        self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
                             + b'{"products": [' + b'{"sku": "A", "title": "t"},' * 20)
        time.sleep(0.2)
        self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        self.request.close()

    def answer_truncated(self, base):
        self.send("200 OK", b'{"products": [{"sku": "A", "title": "t", "category": "c", "price": 1}, {"sku": "B", "ti')

    def answer_html(self, base):
        self.send("200 OK", b"<html><body>Service moved</body></html>", content_type="text/html; charset=utf-8")

    def answer_huge(self, base):
        self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n")
        self.stream(2147483648, b"[" + b" " * 65535)

    def answer_huge_chunked(self, base):
        self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"10000\r\n" + b" " * 65536 + b"\r\n"
        self.stream(2147483648, chunk)

    def stream(self, total, chunk):
        sent = 0
        deadline = time.monotonic() + 120
        while sent < total and time.monotonic() < deadline:
            self.request.sendall(chunk)
            sent += len(chunk)

    def answer_endless(self, base):
        self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n[")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self.request.sendall(b" ")
            time.sleep(0.2)

    def answer_bad_utf8(self, base):
        self.send("200 OK", b'{"products": [{"sku": "A", "title": "caf\xc3\x28", "category": "c", "price": 1}], "total": 1}')

    def answer_nested(self, base):
        self.send("200 OK", b"[" * 100_000 + b"]" * 100_000)

    def answer_huge_total(self, base):
        self.send("200 OK", b'{"products": [], "total": 1e400, "skip": 0, "limit": 50}')

    def answer_loop(self, base):
        self.send("200 OK", film_page(f"{base}/loop/" if "page=2" in self.target else f"{base}/loop/?page=2"))

    def answer_elsewhere(self, base):
        self.send("200 OK", film_page(f"http://localhost:{self.server.port}/elsewhere/?page=2"))


def store_snapshot(database):
    with sqlite3.connect(database) as db:
        return (list(db.execute("SELECT * FROM products ORDER BY serial_code")), list(db.execute("SELECT * FROM films ORDER BY episode_id")),
                list(db.execute("SELECT name, version FROM versions WHERE name != 'imports' ORDER BY name")),
                db.execute("SELECT MAX(seq) FROM changes").fetchone())


def upstream_faults(bin_dir, work):
    catalogd = os.path.join(bin_dir, "catalogd")
    database = os.path.join(work, "faults.sqlite")
    port = free_port()
    processes = Processes()
    processes.start(None, [os.path.join(bin_dir, "catalog-fixtures"), "serve", "--port", str(port), "--products", "200"])
    hostile = HostileUpstream()
    threading.Thread(target=hostile.serve_forever, daemon=True).start()
    hostile_base = f"http://127.0.0.1:{hostile.port}"
    closed_port = free_port()
    scenarios = [
        ("5xx", "products", f"{hostile_base}/status503/products", ["HTTP 503"]),
        ("429 with Retry-After", "products", f"{hostile_base}/status429/products", ["HTTP 429"]),
        ("connection refused", "products", f"http://127.0.0.1:{closed_port}/products", ["connection failed"]),
        ("connection reset mid-body", "products", f"{hostile_base}/reset/products", ["connection failed", "no complete response"]),
        ("truncated JSON", "products", f"{hostile_base}/truncated/products", ["malformed JSON"]),
        ("wrong content type", "products", f"{hostile_base}/html/products", ["text/html", "not JSON"]),
        ("2 GB body (Content-Length)", "products", f"{hostile_base}/huge/products", ["larger than"]),
        ("2 GB body (chunked)", "products", f"{hostile_base}/huge-chunked/products", ["larger than"]),
        ("a page that never ends", "products", f"{hostile_base}/endless/products", ["no complete response"]),
        ("invalid UTF-8", "products", f"{hostile_base}/bad-utf8/products", ["invalid UTF-8"]),
        ("deeply nested JSON", "products", f"{hostile_base}/nested/products", ["nesting deeper"]),
        ("numbers out of range", "products", f"{hostile_base}/huge-total/products", ["total"]),
        ("next link back to an earlier page", "films", f"{hostile_base}/loop/", ["loop"]),
        ("next link to another host", "films", f"{hostile_base}/elsewhere/", ["leaves the feed's host"]),
    ]
    failures = []
    results = []
    try:
        wait_for(f"http://127.0.0.1:{port}/products?limit=1", 60)
        for source, path in [("products", "/products"), ("films", "/api/films/")]:
            subprocess.run([catalogd, "import", source, "--database", database, "--from", f"http://127.0.0.1:{port}{path}",
                            "--log-level", "error"], check=True, timeout=120, capture_output=True)
        before = store_snapshot(database)
        for name, source, url, causes in scenarios:
            started = time.monotonic()
            completed = subprocess.run(
                [catalogd, "import", source, "--database", database, "--from", url, "--json", "--log-level", "critical",
                 "--upstream-timeout", "2s", "--upstream-max-body", "16MiB", "--products-page-size", "50"],
                capture_output=True, text=True, timeout=120)
            seconds = time.monotonic() - started
            try:
                report = json.loads(completed.stdout)
            except ValueError:
                report = {"status": "no report", "error": completed.stdout[-300:] + completed.stderr[-300:]}
            error = report.get("error") or ""
            problems = []
            if completed.returncode != 1 or report.get("status") != "failed":
                problems.append(f"exit {completed.returncode}, status {report.get('status')}")
            if not any(cause in error for cause in causes):
                problems.append(f"the report does not name the cause ({' or '.join(causes)}): {error!r}")
            if store_snapshot(database) != before:
                problems.append("the store changed")
            if problems:
                failures.append(f"{name}: " + "; ".join(problems))
            results.append((name, seconds, error))
    finally:
        processes.stop_all()
        hostile.shutdown()
    for name, seconds, error in results:
        print(f"  {name:<36} {seconds:5.1f} s  {error[:110]}")
    figures = (f"{len(scenarios)} faults, each a failed report naming its cause, store unchanged" if not failures
               else f"{len(failures)} of {len(scenarios)} faults mishandled")
    return failures, figures, len(scenarios)


WRK_SCRIPT = """
paths = {"/films", "/products?page_size=100", "/products?category=category-3&page_size=50", "/categories",
         "/changes?since=0&limit=100", "/imports", "/products/SKU-000010", "/healthz", "/products?ordering=-price&page_size=20"}
counter = 0
request = function()
    counter = counter + 1
    return wrk.format("GET", paths[(counter % #paths) + 1])
end
"""


def load_with_writes(bin_dir, seconds, products, work):
    categories = max(2, products // 500)  # about 500 products each: a category page lists them all
    upstream_port, port = free_port(), free_port()
    processes = Processes(work, timeout=30)
    processes.start(None, [os.path.join(bin_dir, "catalog-fixtures"), "serve", "--port", str(upstream_port), "--products",
                           str(products), "--categories", str(categories)])
    server = processes.start("load-catalogd", [
        os.path.join(bin_dir, "catalogd"), "serve", "--port", str(port), "--database", os.path.join(work, "load.sqlite"),
        "--films-url", f"http://127.0.0.1:{upstream_port}/api/films/", "--products-url", f"http://127.0.0.1:{upstream_port}/products",
        "--products-page-size", "1000", "--import-interval", "2s", "--api-token", TOKEN, "--log-level", "warning"])
    base = f"http://127.0.0.1:{port}"
    failures = []
    stop = threading.Event()
    checked = {"pages": 0, "mismatches": [], "writes": 0, "write_errors": []}

    def check_pages():
        rng = random.Random(7)
        while not stop.is_set():
            category = f"category-{rng.randrange(categories)}"
            try:
                page = get_json(f"{base}/products?category={category}&page_size=1000")
            except urllib.error.HTTPError as error:
                checked["mismatches"].append(f"{category}: HTTP {error.code}")
                continue
            except OSError:
                continue
            checked["pages"] += 1
            if page["count"] != len(page["results"]) or any(row["category"] != category for row in page["results"]):
                checked["mismatches"].append(f"{category}: count {page['count']}, {len(page['results'])} rows")

    def write_batches():
        rng = random.Random(11)
        for number in range(100_000):
            if stop.is_set():
                return
            # Moves 200 feed products to another category; the next import moves them back.
            start = rng.randrange(max(1, products - 200))
            batch = [{"serial_code": f"SKU-{index:06d}", "name": f"Moved {number}", "category": f"category-{rng.randrange(categories)}",
                      "price": "9.99"} for index in range(start, start + 200)]
            request = urllib.request.Request(f"{base}/products", data=json.dumps(batch).encode(), method="POST",
                                             headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=30):
                    checked["writes"] += 1
            except (OSError, urllib.error.HTTPError) as error:
                checked["write_errors"].append(str(error))
            stop.wait(0.3)

    try:
        wait_for(base + "/readyz", 60)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            reports = get_json(base + "/imports?page_size=10")["results"]
            if sum(1 for report in reports if report["status"] == "succeeded") >= 2:
                break
            time.sleep(0.2)
        script = os.path.join(work, "load.lua")
        with open(script, "w") as f:
            f.write(WRK_SCRIPT)
        threads = [threading.Thread(target=check_pages, daemon=True), threading.Thread(target=write_batches, daemon=True)]
        for thread in threads:
            thread.start()
        wrk = subprocess.Popen(["wrk", "-t2", "-c64", f"-d{seconds}s", "--timeout", "10s", "--latency", "-s", script, base],
                               stdout=subprocess.PIPE, text=True)
        time.sleep(seconds / 4)
        rss_warm = memory_kib(server.pid, "VmRSS") / 1024
        output, _ = wrk.communicate(timeout=seconds + 60)
        rss_end = memory_kib(server.pid, "VmRSS") / 1024
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        imports = get_json(base + "/imports?page_size=1000")
        failed_imports = [report for report in imports["results"] if report["status"] == "failed"]
        read = wrk_figures(output)
        requests, rps = read["requests"], read["rps"]
        p99 = read["latencies"].get("99", "none")
        if "99" not in read["latencies"]:
            failures.append(f"wrk printed no latency distribution (no request finished?): {output.strip()[-400:]}")
        if read["socket_errors"]:
            failures.append(f"{read['socket_errors']} socket errors")
        if read["non_2xx"]:
            failures.append(f"{read['non_2xx']} non-2xx responses")
        if checked["mismatches"]:
            failures.append(f"{len(checked['mismatches'])} pages whose count disagreed with their rows, e.g. {checked['mismatches'][:3]}")
        if checked["write_errors"]:
            failures.append(f"{len(checked['write_errors'])} failed API writes, e.g. {checked['write_errors'][:2]}")
        if failed_imports:
            failures.append(f"{len(failed_imports)} failed imports, e.g. {failed_imports[0]['error']}")
        if checked["pages"] == 0 or checked["writes"] == 0 or imports["count"] < 3:
            failures.append(f"too little happened: {checked['pages']} pages checked, {checked['writes']} writes, {imports['count']} imports")
        if rss_end > rss_warm + 50:
            failures.append(f"RSS grew from {rss_warm:.0f} MiB to {rss_end:.0f} MiB")
        figures = (f"{requests:,} reads ({rps:,.0f}/s, p99 {p99}), {checked['writes']} API batches, {imports['count']} imports, "
                   f"{checked['pages']} pages checked; RSS {rss_warm:.0f} -> {rss_end:.0f} MiB")
    finally:
        stop.set()
        processes.stop_all()
    return failures, figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--size", choices=["ci", "full"], default="full")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hostile", action="store_true", help="also run scripts/hostile (schemathesis and hostile clients)")
    args = parser.parse_args()
    sizes = {"ci": {"runs": 4, "products": 20_000, "load_seconds": 15, "load_products": 5_000},
             "full": {"runs": 20, "products": 100_000, "load_seconds": 60, "load_products": 50_000}}[args.size]
    rows = []
    with tempfile.TemporaryDirectory(prefix="catalogd-soak-") as work:
        started = time.monotonic()
        failures, figures = crash_safety(args.bin, sizes["runs"], sizes["products"], args.seed, work)
        rows.append(("crash safety (kill -9 during import and writes)", sizes["runs"], len(failures), figures,
                     time.monotonic() - started))
        for failure in failures:
            print("FAIL", failure)
        started = time.monotonic()
        failures, figures, runs = upstream_faults(args.bin, work)
        rows.append(("upstream faults leave the store unchanged", runs, len(failures), figures, time.monotonic() - started))
        for failure in failures:
            print("FAIL", failure)
        started = time.monotonic()
        failures, figures = load_with_writes(args.bin, sizes["load_seconds"], sizes["load_products"], work)
        rows.append((f"load with writes ({sizes['load_seconds']} s)", 1, len(failures), figures, time.monotonic() - started))
        for failure in failures:
            print("FAIL", failure)
        if args.hostile:
            started = time.monotonic()
            report = os.path.join(work, "hostile.json")
            hostile = subprocess.run([os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile"), "--bin", args.bin,
                                      "--seed", str(args.seed), "--idle", "10000", "--json", report],
                                     capture_output=True, text=True, timeout=3600)
            print(hostile.stdout[-6000:])
            # The results hostile wrote; none (it ended before its table) counts as one failure.
            try:
                with open(report) as f:
                    checked = json.load(f)["results"]
            except (OSError, ValueError, KeyError):
                checked = None
            checks, failed = (len(checked), sum(1 for row in checked if not row["ok"])) if checked is not None else (0, 1)
            failing = [row["check"] for row in checked or [] if not row["ok"]]
            rows.append(("hostile clients (schemathesis and hand-written)", checks, failed,
                         "failing: " + "; ".join(failing) if failing else f"{checks} checks passed", time.monotonic() - started))
    print(f"\n{'guarantee':<52} {'runs':>5} {'failures':>9} {'seconds':>8}  figures")
    for name, runs, failed, figures, seconds in rows:
        print(f"{name:<52} {runs:>5} {failed:>9} {seconds:8.0f}  {figures}")
    sys.exit(1 if any(row[2] for row in rows) else 0)


if __name__ == "__main__":
    main()
