"""catalogd on PostgreSQL against its physical limits and against itself on SQLite, side by side in one run
(driven by `scripts/bench --backend postgres`).

Import: the same N products pulled by catalogd from the fake upstream over HTTP into PostgreSQL and into
SQLite, and the physical reference: `psql` `\\copy` of the same rows into a staging table plus one
`INSERT … ON CONFLICT DO UPDATE … WHERE … IS DISTINCT FROM` into catalogd's own products table (migrated by
catalogd, so the same indexes and count triggers), in one transaction.
Serving: wrk against a PostgreSQL-backed replica (repeated page, and with the response cache off) and its
/healthz, the same against SQLite, and pgbench running the keyset SELECT of the uncached first page (the target's
reference) and the whole statement catalogd sends for that page (its rows with the count and the versions).
For the uncached page the CPU of PostgreSQL's server processes is measured too, and set against the CPU per page
that the target leaves to catalogd, PostgreSQL and wrk together on this machine's cores.
The throwaway cluster runs with fsync off (scripts/postgres), for catalogd and the reference alike.
Loopback only; every wait is bounded; the cluster and every process are stopped on the way out.
"""

import csv
import glob
import json
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import time

from bench import IMPORT_ROUNDS, Processes, catalogd_import, cpu_seconds, median_run, ratio, run_facts, run_wrk, start_catalogd, timed
from loopback import free_port, wait_for

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
PRODUCT_VALUES = ["name", "description", "category", "brand", "price", "price_micros", "stock", "updated_at", "source_url"]
# The first 100-row page of /products: the SELECT catalogd's PostgreSQL store runs for it (one row more, to
# know whether there is a next page).
PAGE_SELECT = ("SELECT serial_code, " + ", ".join(PRODUCT_VALUES) + ", source, changed_seq, serial_code AS position_sort, "
               "serial_code AS position_key FROM products ORDER BY serial_code ASC, serial_code ASC LIMIT 101;\n")
# The whole statement catalogd's PostgreSQL store sends for that page (PostgresListing.page): the same rows with
# the count from the derived category counts, whether rows lie before the page, and the four versions.
PAGE_STATEMENT = PAGE_SELECT.replace(" FROM products ", ", COALESCE((SELECT SUM(product_count) FROM categories), 0)::bigint "
    "AS listing_count, false AS beyond_cursor, (SELECT version FROM versions WHERE name = 'films') AS films_version, "
    "(SELECT version FROM versions WHERE name = 'products') AS products_version, (SELECT version FROM versions WHERE "
    "name = 'imports') AS imports_version, (SELECT last_seq FROM history_state) AS last_seq FROM products ", 1)
POOL_SIZE = 10


class Cluster:
    """A throwaway PostgreSQL cluster on a loopback port (scripts/postgres)."""

    def __init__(self, work):
        self.directory = os.path.join(work, "postgres")
        self.url = subprocess.run([os.path.join(SCRIPTS, "postgres"), "start", self.directory, str(free_port())],
                                  capture_output=True, text=True, check=True, timeout=600).stdout.strip()
        self.bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda path: int(path.split("/")[-2]))[-1]

    def database(self, name):
        self.psql(self.url, "-c", f"CREATE DATABASE {name}")
        return self.url.rsplit("/", 1)[0] + "/" + name

    def psql(self, url, *arguments):
        return subprocess.run([os.path.join(self.bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", url, *arguments],
                              capture_output=True, text=True, check=True, timeout=3600).stdout

    def stop(self):
        subprocess.run([os.path.join(SCRIPTS, "postgres"), "stop", self.directory], timeout=120)


def write_reference_rows(json_file, csv_file):
    """The fixture's products as catalogd stores them, one CSV row each, for `\\copy`."""
    with open(json_file) as f:
        records = json.load(f)
    with open(csv_file, "w", newline="") as f:
        writer = csv.writer(f)
        for position, r in enumerate(records):
            price = repr(r["price"])
            writer.writerow([r["sku"], position, r["title"], r.get("description", ""), r["category"], r.get("brand", ""),
                             price, round(r["price"] * 1_000_000), r.get("stock", 0), r.get("meta", {}).get("updatedAt", ""),
                             f"https://upstream.invalid/products/{r['id']}"])


def reference_script(csv_file):
    columns = ", ".join(["serial_code"] + PRODUCT_VALUES)
    compared = ", ".join(f"products.{c}" for c in PRODUCT_VALUES)
    given = ", ".join(f"excluded.{c}" for c in PRODUCT_VALUES)
    updates = ", ".join(f"{c} = excluded.{c}" for c in PRODUCT_VALUES)
    return f"""
CREATE TEMP TABLE reference_rows (serial_code text COLLATE "C", position bigint, name text, description text,
    category text, brand text, price text, price_micros bigint, stock bigint, updated_at text, source_url text) ON COMMIT DROP;
\\copy reference_rows FROM '{csv_file}' WITH (FORMAT csv, NULL '\\N')
INSERT INTO products ({columns}, source, changed_seq) SELECT {columns}, 'products', position + 1 FROM reference_rows
    ON CONFLICT (serial_code) DO UPDATE SET {updates}
    WHERE ({compared}) IS DISTINCT FROM ({given});
"""


def measure_imports(args, processes, cluster, work, products):
    fixtures = os.path.join(args.bin, "catalog-fixtures")
    catalog = ["--films", "6", "--products", str(products), "--seed", "1"]
    port = free_port()
    processes.start("upstream", [fixtures, "serve", "--port", str(port), *catalog])
    wait_for(f"http://127.0.0.1:{port}/products?limit=1", 300)
    source = f"http://127.0.0.1:{port}/products"
    # First imports into fresh databases, each the median of IMPORT_ROUNDS (the last database is the one served).
    databases = [cluster.database("catalog" if round == IMPORT_ROUNDS - 1 else f"first{round}") for round in range(IMPORT_ROUNDS)]
    postgres = databases[-1]
    sqlite = os.path.join(work, "catalog.sqlite")
    runs = [
        median_run(lambda round: catalogd_import(
            args.bin, databases[round], source, "catalogd on PostgreSQL: first import, pages of 1000 over HTTP", products)),
        median_run(lambda round: catalogd_import(
            args.bin, sqlite if round == IMPORT_ROUNDS - 1 else os.path.join(work, f"first-{round}.sqlite"), source,
            "catalogd on SQLite: first import, pages of 1000 over HTTP", products)),
        catalogd_import(args.bin, postgres, source, "catalogd on PostgreSQL: unchanged re-import (upstream ETags)", products),
    ]
    json_file, csv_file = os.path.join(work, "products.json"), os.path.join(work, "products.csv")
    subprocess.run([fixtures, "generate", *catalog, "--format", "json", "--output", json_file], check=True, timeout=600)
    write_reference_rows(json_file, csv_file)
    script = os.path.join(work, "reference.sql")
    with open(script, "w") as f:
        f.write(reference_script(csv_file))

    def load_reference(round):
        reference = cluster.database(f"reference{round}")
        timed([os.path.join(args.bin, "catalogd"), "migrate", "--database", reference, "--log-level", "warning"])
        seconds, _ = timed([os.path.join(cluster.bin, "psql"), "-X", "-q", "-1", "-v", "ON_ERROR_STOP=1", reference, "-f", script])
        loaded = int(cluster.psql(reference, "-At", "-c", "SELECT COUNT(*) FROM products").strip())
        if loaded != products:
            raise SystemExit(f"the reference loaded {loaded} products, not {products}")
        return {"label": "psql \\copy + INSERT … ON CONFLICT (physical reference)", "seconds": seconds, "rows_per_second": products / seconds}
    runs.append(median_run(load_reference))
    processes.stop_all()
    return postgres, sqlite, runs


def postgres_cpu_seconds():
    """CPU seconds of the running processes of the `postgres` user: the cluster's server and its backends."""
    uid = pwd.getpwnam("postgres").pw_uid
    total = 0.0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    total += cpu_seconds(int(entry))
            except (FileNotFoundError, ProcessLookupError):
                pass
    return total


def run_pgbench(cluster, url, work, duration, statement=PAGE_SELECT, mode="extended"):
    """Transactions per second of pgbench running `statement` on as many connections as catalogd's pool."""
    script = os.path.join(work, "page.sql")
    with open(script, "w") as f:
        f.write(statement)
    output = subprocess.run([os.path.join(cluster.bin, "pgbench"), "-n", "-M", mode, "-c", str(POOL_SIZE), "-j", "1",
                             "-T", str(duration), "-f", script, url],
                            capture_output=True, text=True, check=True, timeout=duration + 120).stdout
    return {"rps": float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", output).group(1))}


def measure_serving(args, processes, cluster, postgres, sqlite, work):
    page = "/products?page_size=100"
    results = {}
    for engine, database in [("postgres", postgres), ("sqlite", sqlite)]:
        cached, base = start_catalogd(args, processes, database, f"catalogd-{engine}")
        uncached, uncached_base = start_catalogd(args, processes, database, f"catalogd-{engine}-uncached", ["--response-cache", "off"])
        results[f"{engine} /healthz"] = run_wrk(base + "/healthz", cached.pid, args.duration, args.connections)
        results[f"{engine} repeated page"] = run_wrk(base + page, cached.pid, args.duration, args.connections)
        postgres_before = postgres_cpu_seconds()
        results[f"{engine} uncached page"] = run_wrk(uncached_base + page, uncached.pid, args.duration, args.connections)
        if engine == "postgres":
            results["postgres uncached page"]["postgres_cpu_ms_per_request"] = (
                1000 * (postgres_cpu_seconds() - postgres_before) / max(results["postgres uncached page"]["requests"], 1))
        for name in ("/healthz", "repeated page", "uncached page"):
            print(f"  {engine} {name}: {results[f'{engine} {name}']['rps']:,.0f} req/s", flush=True)
        processes.stop(cached)
        processes.stop(uncached)
    results["pgbench page SELECT"] = run_pgbench(cluster, postgres, work, args.duration)
    results["pgbench whole page statement"] = run_pgbench(cluster, postgres, work, args.duration, PAGE_STATEMENT)
    results["pgbench whole page statement, prepared"] = run_pgbench(cluster, postgres, work, args.duration, PAGE_STATEMENT, "prepared")
    for name in ("pgbench page SELECT", "pgbench whole page statement", "pgbench whole page statement, prepared"):
        print(f"  {name}: {results[name]['rps']:,.0f} tps", flush=True)
    return results


def cpu_budget(serving):
    """What the uncached-page target leaves per page on this machine, against what one page was measured to cost.

    wrk, catalogd and PostgreSQL share the machine's cores, so a page rate R costs at most cores / R of CPU per
    page; the target R = 0.5 x pgbench's rate of the bare SELECT fixes that budget. The floor is the part of a
    page that catalogd cannot give up: PostgreSQL's own CPU for the statement it runs, and an HTTP request
    (/healthz of the same server).
    """
    page = serving["postgres uncached page"]
    budget = 1000 * os.cpu_count() / (0.5 * serving["pgbench page SELECT"]["rps"])
    floor = page["postgres_cpu_ms_per_request"] + serving["postgres /healthz"]["cpu_ms_per_request"]
    return {"budget_ms": budget, "postgres_ms": page["postgres_cpu_ms_per_request"], "catalogd_ms": page["cpu_ms_per_request"],
            "floor_ms": floor}


def summarize(imports, serving):
    by_label = {run["label"]: run for run in imports}
    postgres = by_label["catalogd on PostgreSQL: first import, pages of 1000 over HTTP"]
    reference = by_label["psql \\copy + INSERT … ON CONFLICT (physical reference)"]
    unchanged = by_label["catalogd on PostgreSQL: unchanged re-import (upstream ETags)"]
    checks = [
        # The earlier round asked for 2x; this one for 1.5x.
        ("PostgreSQL first import / raw psql reference (time)", ratio(postgres["seconds"], reference["seconds"]), "≤ 1.5",
         lambda v: v <= 1.5),
        ("PostgreSQL repeated 100-row page / its /healthz (req/s)",
         ratio(serving["postgres repeated page"]["rps"], serving["postgres /healthz"]["rps"]), "≥ 0.6", lambda v: v >= 0.6),
        ("PostgreSQL uncached 100-row page / pgbench of its SELECT",
         ratio(serving["postgres uncached page"]["rps"], serving["pgbench page SELECT"]["rps"]), "≥ 0.5", lambda v: v >= 0.5),
        ("rows written by the unchanged re-import", unchanged["rows_written"], "0", lambda v: v == 0),
    ]
    return [{"target": name, "value": value, "goal": goal, "met": bool(test(value))} for name, value, goal, test in checks]


def print_tables(result):
    print()
    print(f"catalogd on PostgreSQL, {result['products']:,} products, {result['date']}, {result['machine']}")
    print()
    print(f"{'import':<64} {'seconds':>8} {'rows/s':>10}")
    for run in result["imports"]:
        print(f"{run['label']:<64} {run['seconds']:8.2f} {run['rows_per_second']:10,.0f}")
    print()
    print(f"{'serving (wrk -t1 -c' + str(result['connections']) + '; pgbench -c' + str(POOL_SIZE) + ')':<40} "
          f"{'req/s':>10} {'p50/p99 ms':>13} {'CPU ms/req':>10}")
    for name, row in result["serving"].items():
        latency = f"{row['p50_ms']:.2f}/{row['p99_ms']:.2f}" if "p50_ms" in row else ""
        cpu = f"{row['cpu_ms_per_request']:.3f}" if "cpu_ms_per_request" in row else ""
        print(f"{name:<40} {row['rps']:10,.0f} {latency:>13} {cpu:>10}")
    budget = result["uncached_page_cpu"]
    print()
    print(f"uncached page, CPU ms per page: the target allows {budget['budget_ms']:.3f} for wrk, catalogd and PostgreSQL "
          f"together on {os.cpu_count()} cores;")
    print(f"  measured: catalogd {budget['catalogd_ms']:.3f}, PostgreSQL {budget['postgres_ms']:.3f}; "
          f"PostgreSQL's share plus a bare HTTP request (/healthz) alone: {budget['floor_ms']:.3f}")
    print()
    print(f"{'target':<62} {'value':>10} {'goal':>8}  met")
    for check in result["targets"]:
        print(f"{check['target']:<62} {check['value']:10.2f} {check['goal']:>8}  {'yes' if check['met'] else 'NO'}")


def main(args, products):
    work = tempfile.mkdtemp(prefix="catalogd-bench-postgres-")
    os.chmod(work, 0o755)
    processes = Processes(work)
    cluster = None
    started = time.monotonic()
    try:
        cluster = Cluster(work)
        print(f"importing {products:,} products (catalogd on PostgreSQL and on SQLite, psql reference)", flush=True)
        postgres, sqlite, imports = measure_imports(args, processes, cluster, work, products)
        for run in imports:
            print(f"  {run['label']}: {run['seconds']:.2f} s", flush=True)
        print("serving (wrk, pgbench)", flush=True)
        serving = measure_serving(args, processes, cluster, postgres, sqlite, work)
        result = {
            **run_facts(args, products),
            "imports": imports,
            "serving": serving,
            "targets": summarize(imports, serving),
            "uncached_page_cpu": cpu_budget(serving),
            "elapsed_seconds": time.monotonic() - started,
        }
    finally:
        processes.stop_all()
        if cluster:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    print_tables(result)
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    with open(args.results, "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nwrote {args.results} in {result['elapsed_seconds']:.0f} s")
    return result
