"""catalogd's guarantees, proved against the real binaries on loopback (driven by scripts/soak).

crash: `kill -9` of `catalogd serve` at random moments while it imports a large listing and API writes
stream in; after every kill, `catalogd check` passes, the feed's rows are exactly one whole listing
(the one before or the one being imported, never a mix), and every acknowledged write is present.

Every wait is bounded; every loop has a fixed count.
"""

import argparse
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

TOKEN = "soak-token"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, seconds):
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
    processes = []
    for changed in listings:
        port = free_port()
        processes.append(subprocess.Popen(
            [os.path.join(bin_dir, "catalog-fixtures"), "serve", "--port", str(port), "--products", str(products),
             "--seed", "1", "--changed-fraction", str(changed)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        upstreams[changed] = f"http://127.0.0.1:{port}/products"
    database = os.path.join(work, "crash.sqlite")
    failures = []
    acknowledged = set()
    outcomes = {"whole new listing": 0, "whole previous listing": 0, "no listing yet": 0}
    try:
        for changed in listings:
            wait_for(upstreams[changed] + "?limit=1", 300)
        for run in range(runs):
            # Each run imports the other listing, so an interrupted import would show as a mix of the two.
            target = [0.0, 0.5][run % 2]
            port = free_port()
            log = open(os.path.join(work, f"catalogd-{run}.log"), "w")
            server = subprocess.Popen(
                [os.path.join(bin_dir, "catalogd"), "serve", "--port", str(port), "--database", database, "--films-url", "",
                 "--products-url", upstreams[target], "--products-page-size", "1000", "--import-interval", "1s",
                 "--api-token", TOKEN],
                stdout=log, stderr=subprocess.STDOUT)
            base = f"http://127.0.0.1:{port}"
            wait_for(base + "/readyz", 60)
            writer = Writer(base, f"API-{run}")
            writer.start()
            # Spread the kills over the import (about 25,000 products a second here) and the writes around it.
            time.sleep(rng.uniform(0.05, 0.5 + products / 40_000))
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
            if not feed_rows:
                outcomes["no listing yet"] += 1
            elif feed_rows == listings[target]:
                outcomes["whole new listing"] += 1
            elif feed_rows == listings[[0.0, 0.5][(run + 1) % 2]]:
                outcomes["whole previous listing"] += 1
            else:
                failures.append(f"run {run}: the feed's {len(feed_rows)} rows are neither listing whole")
            missing = acknowledged - api_keys
            if missing:
                failures.append(f"run {run}: {len(missing)} acknowledged writes missing, e.g. {sorted(missing)[:3]}")
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=15)
    figures = (f"{runs} kills; {outcomes['whole new listing']} after a whole new import, "
               f"{outcomes['whole previous listing']} with the previous listing whole, {outcomes['no listing yet']} before the first; "
               f"{len(acknowledged)} acknowledged writes, all present" if not failures else f"{len(failures)} failing runs")
    return failures, figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--size", choices=["ci", "full"], default="full")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = {"ci": {"runs": 4, "products": 20_000}, "full": {"runs": 20, "products": 100_000}}[args.size]
    rows = []
    with tempfile.TemporaryDirectory(prefix="catalogd-soak-") as work:
        started = time.monotonic()
        failures, figures = crash_safety(args.bin, sizes["runs"], sizes["products"], args.seed, work)
        rows.append(("crash safety (kill -9 during import and writes)", sizes["runs"], len(failures), figures,
                     time.monotonic() - started))
        for failure in failures:
            print("FAIL", failure)
    print(f"\n{'guarantee':<52} {'runs':>5} {'failures':>9} {'seconds':>8}  figures")
    for name, runs, failed, figures, seconds in rows:
        print(f"{name:<52} {runs:>5} {failed:>9} {seconds:8.0f}  {figures}")
    sys.exit(1 if any(row[2] for row in rows) else 0)


if __name__ == "__main__":
    main()
