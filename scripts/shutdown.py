#!/usr/bin/env python3
"""SIGTERM under live traffic, with the real binary on loopback: 200 Server-Sent Events followers, 200 long
polls and a running import, then SIGTERM. Passes when catalogd exits 0 within 2 s, every stream got
`event: shutdown`, every long poll a 200, the import is recorded failed (rolled back) and `catalogd check` passes.

    python3 scripts/shutdown.py --bin "$(swift build --show-bin-path)" [--clients 200]
"""

import argparse
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopback import free_port, get_json, wait_for  # noqa: E402


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder holding catalogd and catalog-fixtures")
    parser.add_argument("--clients", type=int, default=200, help="followers, and as many long polls (default 200)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="catalogd-shutdown-")
    database = os.path.join(work, "catalog.sqlite")
    upstream_port, port = free_port(), free_port()
    processes = []
    sockets = []
    try:
        processes.append(subprocess.Popen(
            [f"{args.bin}/catalog-fixtures", "serve", "--port", str(upstream_port), "--films", "6", "--products", "20000", "--seed", "1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for(f"http://127.0.0.1:{upstream_port}/products?limit=1", 30)
        environment = dict(os.environ, CATALOG_API_TOKEN="shutdown-token", CATALOG_FILMS_URL="",
                           CATALOG_PRODUCTS_URL=f"http://127.0.0.1:{upstream_port}/products")
        with open(os.path.join(work, "catalogd.log"), "w") as log:
            server = subprocess.Popen(
                [f"{args.bin}/catalogd", "serve", "--port", str(port), "--database", database, "--import-interval", "off",
                 "--products-page-size", "20"], env=environment, stdout=log, stderr=log)
        processes.append(server)
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
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
