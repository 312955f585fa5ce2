#!/usr/bin/env python3
"""Search and filters at scale: catalogd on SQLite (and PostgreSQL with --postgres-url) beside tantivy and
sqlite-utils on the same long-tail listing (scripts/longtail.py), measured in one run.

    scripts/bench-search [--count 1000000] [--postgres]      (the wrapper builds, installs the anchors, starts PostgreSQL)

Prints one table of first reads (the response cache off, so that each request reads the store; median of --rounds
requests, each a distinct URL) with the issue's target beside each, the import times, and writes
bench/search-results-1m.json (-COUNT.json at another size). Loopback only; every server it starts, it stops.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from loopback import free_port, wait_for


def timed(command, **kwargs):
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - started


class Served:
    """catalogd serving one store on a loopback port, stopped on exit."""

    def __init__(self, binary, database):
        self.port = free_port()
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--database", database, "--films-url", "", "--products-url", "",
             "--import-interval", "off", "--response-cache", "off", "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        wait_for(self.base + "/readyz")
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def ms(self, path):
        started = time.perf_counter()
        with urllib.request.urlopen(self.base + path, timeout=60) as response:
            body = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        return elapsed, json.loads(body)


def catalogd_requests(words):
    """(label, target ms, [paths]): each label's paths differ, so that none is read twice."""
    q = urllib.parse.quote
    common, second, pair = words["common"]
    selective = words["selective"]
    prefix = words["prefix"]

    def search(texts, extra=""):
        return [f"/products?search={q(text)}{extra}" for text in texts]
    return [
        ("search: a word most rows hold", 15, search([common + " ", second + " ", common + "  "])),
        ("search: two common words", 15, search([pair + " ", f"{second} {common} "])),
        ("search: a selective word", 5, search([w + " " for w in selective])),
        ("search: a prefix as typed, selective", 5, search(prefix[1:])),
        ("search: a prefix as typed, of a common word", 15, search(prefix[:1])),
        ("search: a rare word", 5, search([w + " " for w in words["rare"]])),
        ("search: no match", 5, search(words["absent"] + ["zzqqxx", "qqwwee"])),
        ("brand", 10, [f"/products?brand={q(b)}" for b in words["brands"]]),
        ("ordering=stock", 10, ["/products?ordering=stock", "/products?ordering=-stock"]),
        ("ordering=-updated_at", 10, ["/products?ordering=-updated_at", "/products?ordering=updated_at"]),
        ("in_stock=true&ordering=price", 10, ["/products?in_stock=true&ordering=price", "/products?in_stock=true&ordering=-price"]),
        ("brand + price range", 10, [f"/products?brand={q(b)}&min_price=100&max_price=900" for b in words["brands"]]),
        ("category + search", 10, [f"/products?category=category-3&search={q(w)}%20" for w in [common] + selective]),
        ("facets category,brand, selective search", 20, search([w + " " for w in selective], "&facets=category,brand")),
        ("facets category,brand, common search", 200, search([common + " "], "&facets=category,brand")),
    ]


def measure_catalogd(served, requests, rounds):
    results = {}
    for label, target, paths in requests:
        times = []
        for round_index in range(rounds):
            path = paths[round_index % len(paths)]
            # Page size varies with the round: the same words read again would be the same statement's second run.
            elapsed, _ = served.ms(path + ("&" if "?" in path else "?") + f"page_size={20 + round_index}")
            times.append(elapsed)
        results[label] = {"median_ms": statistics.median(times), "target_ms": target}
    return results


def tantivy_anchor(listing, words, rounds, work):
    import tantivy
    builder = tantivy.SchemaBuilder()
    for field in ("name", "brand", "description", "category"):
        builder.add_text_field(field, stored=field == "name")
    builder.add_text_field("serial_code", stored=True, tokenizer_name="raw")
    schema = builder.build()
    path = os.path.join(work, "tantivy")
    os.makedirs(path, exist_ok=True)
    index = tantivy.Index(schema, path=path)
    writer = index.writer(heap_size=512_000_000)
    started = time.perf_counter()
    with open(listing, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            writer.add_document(tantivy.Document(
                name=record["name"], brand=record["brand"], description=record["description"], category=record["category"],
                serial_code=record["serial_code"]))
    writer.commit()
    writer.wait_merging_threads()
    build = time.perf_counter() - started
    index.reload()
    searcher = index.searcher()
    fields = ["name", "brand", "description", "category"]
    common, second, pair = words["common"]
    queries = {
        "search: a word most rows hold": [common, second],
        "search: two common words": [pair, f"{second} {common}"],
        "search: a selective word": words["selective"],

        "search: a rare word": words["rare"],
        "search: no match": words["absent"],
    }
    results = {}
    for label, texts in queries.items():
        times = []
        for round_index in range(rounds):
            text = texts[round_index % len(texts)]
            query = index.parse_query(" AND ".join(text.split()), fields)
            started = time.perf_counter()
            hits = searcher.search(query, 20 + round_index, count=True)
            _ = [searcher.doc(address)["serial_code"] for _, address in hits.hits]
            times.append((time.perf_counter() - started) * 1000)
        results[label] = {"median_ms": statistics.median(times)}
    return build, results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--postgres-url")
    parser.add_argument("--sqlite-utils", default="sqlite-utils")
    parser.add_argument("--out", help="where the results go (default bench/search-results-1m.json at a million, -COUNT.json otherwise)")
    args = parser.parse_args()
    binary = os.path.join(args.bin, "catalogd")
    work = tempfile.mkdtemp(prefix="catalogd-bench-search-")
    try:
        listing = os.path.join(work, "products.ndjson")
        generated = subprocess.run(
            [sys.executable, os.path.join(os.path.dirname(__file__), "longtail.py"), listing, "--count", str(args.count)],
            check=True, capture_output=True, text=True)
        words = json.loads(generated.stdout.strip().splitlines()[-1])
        with open(listing, encoding="utf-8") as f:
            brands = []
            for line in f:
                brand = json.loads(line)["brand"]
                if brand not in brands:
                    brands.append(brand)
                if len(brands) == 3:
                    break
        words["brands"] = brands
        result = {"count": args.count, "words": words, "imports": {}, "reads": {}}
        database = os.path.join(work, "catalog.sqlite")
        result["imports"]["catalogd (SQLite), with its search index"] = timed(
            [binary, "import", "products", "--from", listing, "--database", database])
        peer = os.path.join(work, "peer.db")
        insert = timed([args.sqlite_utils, "insert", peer, "products", listing, "--nl", "--pk", "serial_code"])
        fts = timed([args.sqlite_utils, "enable-fts", peer, "products", "name", "brand", "description", "category"])
        result["imports"]["sqlite-utils insert + enable-fts"] = insert + fts
        requests = catalogd_requests(words)
        with Served(binary, database) as served:
            result["reads"]["catalogd SQLite"] = measure_catalogd(served, requests, args.rounds)
        if args.postgres_url:
            result["imports"]["catalogd (PostgreSQL), with its search index"] = timed(
                [binary, "import", "products", "--from", listing, "--database", args.postgres_url])
            with Served(binary, args.postgres_url) as served:
                result["reads"]["catalogd PostgreSQL"] = measure_catalogd(served, requests, args.rounds)
        build, tantivy_reads = tantivy_anchor(listing, words, args.rounds, work)
        result["imports"]["tantivy index build (Python bindings)"] = build
        result["reads"]["tantivy"] = tantivy_reads
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_table(result)
    out = args.out or f"bench/search-results-{'1m' if args.count == 1_000_000 else args.count}.json"
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=2, ensure_ascii=False)


def print_table(result):
    print(f"\n{result['count']:,} long-tail products; words: {json.dumps(result['words'], ensure_ascii=False)}")
    print("\nimports (s):")
    for label, seconds in result["imports"].items():
        print(f"  {label:50s} {seconds:8.2f}")
    ours = result["imports"]["catalogd (SQLite), with its search index"]
    peer = result["imports"]["sqlite-utils insert + enable-fts"]
    print(f"  sqlite-utils / catalogd: {peer / ours:.2f} (target >= 2.5: {'met' if peer / ours >= 2.5 else 'not met'})")
    sqlite = result["reads"]["catalogd SQLite"]
    postgres = result["reads"].get("catalogd PostgreSQL", {})
    tantivy = result["reads"]["tantivy"]
    print("\nfirst reads, median ms:")
    print(f"  {'request':42s} {'SQLite':>8s} {'PostgreSQL':>10s} {'tantivy':>8s} {'target':>7s}  met")
    for label, measured in sqlite.items():
        pg = postgres.get(label, {}).get("median_ms")
        anchor = tantivy.get(label, {}).get("median_ms")
        checks = [measured["median_ms"] <= measured["target_ms"]]
        if anchor is not None:
            checks.append(measured["median_ms"] <= 2 * anchor)
        if pg is not None:
            checks.append(pg <= 2 * measured["median_ms"])
        print(f"  {label:42s} {measured['median_ms']:8.2f} {pg if pg is not None else float('nan'):10.2f} "
              f"{anchor if anchor is not None else float('nan'):8.2f} {measured['target_ms']:7d}  "
              f"{'yes' if all(checks) else 'no'}")
    print("\n  met: within the target, within 2x tantivy where it answers the query, PostgreSQL within 2x SQLite")


if __name__ == "__main__":
    main()
