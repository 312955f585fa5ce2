#!/usr/bin/env python3
"""SIGTERM under live traffic and with followers that stopped reading, with the real binary on loopback.

1. 200 Server-Sent Events followers, 200 long polls and a running import, then SIGTERM: passes when catalogd exits 0
   within 2 s, every stream got `event: shutdown`, every long poll a 200, the import is recorded failed (rolled back)
   and `catalogd check` passes.
2. The stuck stop, on SQLite and (with --postgres-url) on PostgreSQL: a history of 30,000 changes, 30 followers
   whose clients never read (small receive buffers and 536-byte segments, as a phone asleep on a mobile network),
   an export of the 30,000 products whose client never reads and one read slowly, then SIGTERM: passes when catalogd
   exits 0 within its --shutdown-timeout and a second (the default 10 s, and 2 s), the export being read ends as a
   truncated transfer, and the store then passes `catalogd check`.
3. A kill -9 during an import, on SQLite and (with --postgres-url) on PostgreSQL: a second import that rewrites every
   name of 100,000 products is killed a second in; passes when `catalogd check` (which compares the search index with the rows)
   passes, a search finds the names of the first import only, and the second import run again is found by its names.
4. Memory: a products import of 1,000,000 records from an NDJSON file of about 360 MB with the default limits, then
   100 followers that never read, each 90,000 changes behind on that 1,000,000-change history: passes when the server's
   resident memory grows by less than 100 times (its outbound high-water mark plus two batches of history) plus 16 MiB.

    python3 scripts/shutdown.py --bin "$(swift build --show-bin-path)" [--clients 200] [--postgres-url URL] [--skip-memory]
"""

import argparse
import contextlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from harness import Processes, cpu_seconds, free_port, get_json, memory_kib, psql, wait_for, with_database


def read_until_closed(sock, seconds):
    sock.settimeout(seconds)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data


def under_traffic(args):
    work = tempfile.mkdtemp(prefix="catalogd-shutdown-")
    database = os.path.join(work, "catalog.sqlite")
    upstream_port, port = free_port(), free_port()
    processes = Processes(work)
    sockets = []
    try:
        processes.start(None, [f"{args.bin}/catalog-fixtures", "serve", "--port", str(upstream_port), "--films", "6", "--products",
                               "20000", "--seed", "1"])
        wait_for(f"http://127.0.0.1:{upstream_port}/products?limit=1", 30)
        environment = dict(CATALOG_API_TOKEN="shutdown-token", CATALOG_FILMS_URL="",
                           CATALOG_PRODUCTS_URL=f"http://127.0.0.1:{upstream_port}/products")
        server = processes.start("catalogd", [f"{args.bin}/catalogd", "serve", "--port", str(port), "--database", database,
                                              "--import-interval", "off", "--products-page-size", "20"], env=environment)
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/readyz", 30)
        for index in range(2 * args.clients):
            stream = index < args.clients
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            target = "/changes?since=0" if stream else "/changes?since=0&feed=longpoll&timeout=60000"
            accept = "Accept: text/event-stream\r\n" if stream else ""
            sock.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\n{accept}\r\n".encode())
            sockets.append(sock)
        deadline = time.monotonic() + 30
        wanted = {f'catalogd_changes_clients{{feed="{feed}"}}': float(args.clients) for feed in ("stream", "longpoll")}
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{base}/metrics", timeout=5) as response:
                samples = dict(line.rsplit(" ", 1) for line in response.read().decode().splitlines() if line.startswith("catalogd_changes"))
            if all(float(samples.get(name, 0)) == count for name, count in wanted.items()):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"clients not all connected: {samples}")
        request = urllib.request.Request(f"{base}/imports", data=b'{"source": "products"}', method="POST",
                                         headers={"Authorization": "Bearer shutdown-token", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            import_id = get_json(f"{base}/imports")["results"][0]["id"] if response.status == 202 else None
        time.sleep(0.3)
        started = time.monotonic()
        server.terminate()
        code = server.wait(timeout=30)
        milliseconds = (time.monotonic() - started) * 1000
        streams = sum(1 for sock in sockets[:args.clients] if b"event: shutdown\ndata: {\"resume_from\": " in read_until_closed(sock, 5))
        polls = sum(1 for sock in sockets[args.clients:] if read_until_closed(sock, 5).startswith(b"HTTP/1.1 200"))
        check = subprocess.run([f"{args.bin}/catalogd", "check", "--database", database], capture_output=True, text=True)
        with sqlite3.connect(database) as db:
            status, error = db.execute("SELECT status, error FROM imports WHERE id = ?", (import_id,)).fetchone()
            products = db.execute("SELECT COUNT(*) FROM products").fetchone()[0]
        print(f"SIGTERM to exit: {milliseconds:.0f} ms, exit {code}; {streams}/{args.clients} streams got event: shutdown; "
              f"{polls}/{args.clients} long polls answered 200; import {import_id}: {status} ({error}), {products} products; "
              f"check exit {check.returncode}")
        failures = [why for ok, why in [
            (code == 0, f"exit {code}"), (milliseconds < 2000, f"{milliseconds:.0f} ms"),
            (streams == args.clients, "streams without a shutdown event"), (polls == args.clients, "long polls unanswered"),
            (status == "failed" and products == 0, "the import was not rolled back"), (check.returncode == 0, check.stdout)] if not ok]
        if failures:
            print("shutdown FAILED: " + "; ".join(failures), file=sys.stderr)
            return 1
        return 0
    finally:
        for sock in sockets:
            sock.close()
        processes.stop_all()
        shutil.rmtree(work, ignore_errors=True)


SHUTDOWN_DEFAULT_SECONDS = 10


def silent_follower(port, since=0, path=None):
    """A follower that sends its request and never reads: a 4 KiB receive buffer, and 536-byte segments, with which
    the server's kernel takes under 200 KiB for the connection (over loopback's 64 KiB segments it would take
    megabytes before the server had to wait). `path` asks for something else than the change stream."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    request = path or f"/changes?since={since}"
    sock.sendall(f"GET {request} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n".encode())
    return sock


class SlowExport:
    """An NDJSON export of every product read 4 KiB every 20 ms, far slower than the server sends it, in a thread of
    its own until the server closes the connection; `truncated` tells whether the body ended without the chunked
    transfer's last chunk, as an export cut by a stop must."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.sendall(b"GET /products?format=ndjson HTTP/1.1\r\nHost: localhost\r\n\r\n")
        self.received = b""
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        deadline = time.monotonic() + 120
        try:
            while time.monotonic() < deadline:
                chunk = self.sock.recv(4096)
                if not chunk:
                    return
                self.received += chunk
                time.sleep(0.02)
        except OSError:
            return

    def finish(self):
        """Waits for the server to close the connection; whether the export was under way and then cut."""
        self.thread.join(timeout=130)
        self.sock.close()
        head, _, body = self.received.partition(b"\r\n\r\n")
        return head.startswith(b"HTTP/1.1 200") and body.count(b"\n") > 1 and not body.endswith(b"\r\n0\r\n\r\n")


def wait_until_idle(pid, seconds=180):
    """Returns once the process spends under a tenth of a core for a second (every follower waits for room)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(1)
        if cpu_seconds(pid) - before < 0.1:
            return
    raise RuntimeError(f"catalogd still busy after {seconds} s")


def write_products_ndjson(path, count):
    """A listing of `count` products, one JSON object per line, about 360 bytes each."""
    filler = "with a description long enough to make the listing as large as a real catalogue's, " * 2
    with open(path, "w") as f:
        for index in range(count):
            f.write(json.dumps({
                "id": index + 1, "sku": f"SKU-{index:07d}", "title": f"Product {index}",
                "description": f"Product {index}, {filler}", "category": f"category-{index % 40}",
                "brand": f"Brand {index % 300}", "price": round(1 + (index % 99_999) / 100, 2), "stock": index % 50,
                "meta": {"updatedAt": "2025-01-10T10:00:00Z"}}, separators=(",", ":")) + "\n")


def streams_connected(port):
    """How many change streams the server counts now."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        for line in response.read().decode().splitlines():
            if line.startswith('catalogd_changes_clients{feed="stream"} '):
                return int(float(line.rsplit(" ", 1)[1]))
    return 0


def stuck_stop(args, database, shutdown_timeout, work):
    """SIGTERM with 30 followers that never read, on a history of 30,000 changes, beside two exports of the 30,000
    products, one whose client never reads and one read slowly; returns failures."""
    port = free_port()
    # A send timeout far longer than the run, so that the followers are still there when SIGTERM comes.
    flags = ["--send-timeout", "10m"] + ([] if shutdown_timeout is None else ["--shutdown-timeout", f"{shutdown_timeout}s"])
    limit = (shutdown_timeout or SHUTDOWN_DEFAULT_SECONDS) + 1
    sockets = []
    processes = Processes(work)
    server = processes.start("stuck", [f"{args.bin}/catalogd", "serve", "--port", str(port), "--database", database,
                                       "--import-interval", "off", *flags], env=dict(CATALOG_FILMS_URL="", CATALOG_PRODUCTS_URL=""))
    try:
        wait_for(f"http://127.0.0.1:{port}/readyz", 30)
        sockets = [silent_follower(port) for _ in range(30)] + [silent_follower(port, path="/products?format=ndjson")]
        export = SlowExport(port)
        wait_until_idle(server.pid)
        connected = streams_connected(port)
        started = time.monotonic()
        server.terminate()
        code = server.wait(timeout=60)
        seconds = time.monotonic() - started
        export_cut = export.finish()
    finally:
        for sock in sockets:
            sock.close()
        processes.stop_all()
    check = subprocess.run([f"{args.bin}/catalogd", "check", "--database", database], capture_output=True, text=True)
    engine = "PostgreSQL" if database.startswith("postgres") else "SQLite"
    setting = f"--shutdown-timeout {shutdown_timeout}s" if shutdown_timeout else f"the default {SHUTDOWN_DEFAULT_SECONDS} s"
    print(f"{engine}, {connected} followers that never read, {setting}: SIGTERM to exit {seconds:.2f} s, exit {code}; "
          f"check exit {check.returncode}; the export being read {'was cut' if export_cut else 'was NOT cut'}")
    return [why for ok, why in [
        (connected == 30, f"{engine}: {connected} of 30 followers were connected at SIGTERM"),
        (export_cut, f"{engine}: the export under way at SIGTERM was not a truncated transfer"),
        (code == 0, f"{engine}: exit {code}"), (seconds < limit, f"{engine}: the stop took {seconds:.1f} s, over {limit} s"),
        (check.returncode == 0, f"{engine}: {check.stdout}")] if not ok]


@contextlib.contextmanager
def stores(args, name, work):
    """A SQLite file in `work` and, with --postgres-url, a PostgreSQL database made for the check and dropped after."""
    database = f"catalogd_{name}_{os.getpid()}"
    if args.postgres_url:
        psql(args.postgres_url, "-c", f"CREATE DATABASE {database}")
    try:
        yield [os.path.join(work, "catalog.sqlite")] + ([with_database(args.postgres_url, database)] if args.postgres_url else [])
    finally:
        if args.postgres_url:
            psql(args.postgres_url, "-c", f"DROP DATABASE IF EXISTS {database}", check=False)


def stuck_followers(args):
    work = tempfile.mkdtemp(prefix="catalogd-stuck-")
    try:
        listing = os.path.join(work, "products.ndjson")
        write_products_ndjson(listing, 30_000)
        failures = []
        with stores(args, "stuck", work) as databases:
            for database in databases:
                # A history of 30,000 changes: each follower has megabytes to send, its socket takes under 200 KiB.
                subprocess.run([f"{args.bin}/catalogd", "import", "products", "--from", listing, "--database", database],
                               check=True, capture_output=True, env=dict(os.environ, CATALOG_FILMS_URL=""))
                for shutdown_timeout in (None, 2):
                    try:
                        failures += stuck_stop(args, database, shutdown_timeout, work)
                    except (OSError, RuntimeError, subprocess.TimeoutExpired) as error:
                        failures.append(f"{database}, shutdown timeout {shutdown_timeout}: {error}")
        return failures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def killed_import(args):
    """kill -9 while an import writes: the store, its search index included, is as the last import left it."""
    work = tempfile.mkdtemp(prefix="catalogd-killed-")
    try:
        first, second = os.path.join(work, "first.ndjson"), os.path.join(work, "second.ndjson")
        write_products_ndjson(first, 100_000)
        with open(first) as source, open(second, "w") as rewritten:
            for line in source:
                rewritten.write(line.replace('"title":"Product ', '"title":"Renamed '))
        failures = []
        with stores(args, "killed", work) as databases:
            for database in databases:
                failures += killed_import_on(args, database, first, second)
        return failures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def killed_import_on(args, database, first, second):
    catalogd = f"{args.bin}/catalogd"

    def run(*arguments):
        return subprocess.run([catalogd, *arguments, "--database", database], capture_output=True, text=True, timeout=300)
    failures = []
    run("import", "products", "--from", first)
    with Processes(timeout=30) as processes:
        importing = processes.start(None, [catalogd, "import", "products", "--from", second, "--database", database])
        time.sleep(1.0)
        if importing.poll() is not None:
            failures.append(f"{database}: the second import ended before it could be killed; give it a larger listing")
        importing.kill()
        importing.wait(timeout=30)
        checked = run("check")
        if checked.returncode != 0:
            failures.append(f"{database}: check after kill -9 failed: {checked.stdout.strip()} {checked.stderr.strip()[-300:]}")
        port = free_port()
        server = processes.start(None, [catalogd, "serve", "--port", str(port), "--database", database, "--films-url", "",
                                        "--products-url", "", "--import-interval", "off", "--response-cache", "off"])
        wait_for(f"http://127.0.0.1:{port}/readyz")
        old = get_json(f"http://127.0.0.1:{port}/products?search=product%2012345%20")["count"]
        new = get_json(f"http://127.0.0.1:{port}/products?search=renamed%20")["count"]
        print(f"kill -9 during an import ({'PostgreSQL' if database.startswith('postgres') else 'SQLite'}): check exit "
              f"{checked.returncode}; 'product 12345' found {old} time(s), 'renamed' {new}")
        if (old, new) != (1, 0):
            failures.append(f"{database}: after kill -9, 'product 12345' found {old} times and 'renamed' {new} (want 1 and 0)")
        processes.stop(server)
    rerun = run("import", "products", "--from", second)
    if rerun.returncode != 0 or run("check").returncode != 0:
        failures.append(f"{database}: the import run again after kill -9 failed or left check failing")
    return failures


def followers_memory(args):
    """100 followers that never read, on a history of 1,000,000 changes imported from an NDJSON file."""
    work = tempfile.mkdtemp(prefix="catalogd-followers-")
    processes = Processes(work)
    sockets = []
    try:
        listing = os.path.join(work, "products.ndjson")
        write_products_ndjson(listing, 1_000_000)
        size = os.path.getsize(listing)
        database = os.path.join(work, "catalog.sqlite")
        started = time.monotonic()
        imported = subprocess.run([f"{args.bin}/catalogd", "import", "products", "--from", listing, "--database", database,
                                   "--json"], capture_output=True, text=True, env=dict(os.environ, CATALOG_FILMS_URL=""))
        report = json.loads(imported.stdout) if imported.returncode == 0 else {}
        print(f"import of {size / 1e6:.0f} MB of NDJSON with the default limits: exit {imported.returncode}, "
              f"{report.get('inserted', 0)} inserted in {time.monotonic() - started:.1f} s {imported.stderr[-300:] if imported.returncode else ''}")
        if report.get("inserted") != 1_000_000:
            return ["the 1,000,000-product NDJSON import did not succeed with the default limits"]
        port = free_port()
        server = processes.start("catalogd", [f"{args.bin}/catalogd", "serve", "--port", str(port), "--database", database,
                                              "--import-interval", "off", "--send-timeout", "10m"],
                                 env=dict(CATALOG_FILMS_URL="", CATALOG_PRODUCTS_URL=""))
        wait_for(f"http://127.0.0.1:{port}/readyz", 60)
        get_json(f"http://127.0.0.1:{port}/changes?since=0&limit=10")
        wait_until_idle(server.pid)
        before = memory_kib(server.pid, "VmRSS")
        # 90,000 changes behind each: within the 100,000 a stream may trail by before it is told to resume later.
        sockets = [silent_follower(port, since=1_000_000 - 90_000) for _ in range(100)]
        wait_until_idle(server.pid)
        after = memory_kib(server.pid, "VmRSS")
        connected = streams_connected(port)
        if connected != 100:
            return [f"{connected} of 100 silent followers were connected when the memory was read"]
        streams = get_json(f"http://127.0.0.1:{port}/changes?since=999999&limit=1")  # the server still answers
        # NIO's outbound high-water mark (64 KiB) plus two batches of history (one waiting to be written, one partly
        # written: 100 events of at most 192 bytes each).
        per_follower_kib = 64 + 2 * 100 * 192 / 1024
        bound = 100 * per_follower_kib + 16 * 1024
        grown = after - before
        print(f"100 followers that never read, each 90,000 changes behind on a 1,000,000-change history: resident memory {before / 1024:.0f} -> "
              f"{after / 1024:.0f} MiB (+{grown / 1024:.1f} MiB, {grown / 100:.0f} KiB each; bound {bound / 1024:.1f} MiB); "
              f"last_seq {streams['last_seq']}")
        return [] if grown < bound else [f"100 silent followers grew the server by {grown / 1024:.1f} MiB, over {bound / 1024:.1f}"]
    finally:
        for sock in sockets:
            sock.close()
        processes.stop_all()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder holding catalogd and catalog-fixtures")
    parser.add_argument("--clients", type=int, default=200, help="followers, and as many long polls (default 200)")
    parser.add_argument("--postgres-url", help="a PostgreSQL server to run the stuck stop on too (a database is created)")
    parser.add_argument("--skip-memory", action="store_true", help="leave out the million-change memory check")
    args = parser.parse_args()
    if under_traffic(args):
        return 1
    failures = stuck_followers(args) + killed_import(args)
    if not args.skip_memory:
        failures += followers_memory(args)
    if failures:
        print("shutdown FAILED: " + "; ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
