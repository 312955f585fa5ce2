"""Webhooks under load (`scripts/bench --webhooks`), on SQLite: how long a subscription takes to receive every change of
an import (100,000 at the default scale) from a receiver on loopback that answers at once
(scripts/webhook_receiver.py); the cached read rate of the API while a subscription delivers, beside the rate without
one in the same run; and an import of as many changed rows while a subscription delivers, beside the same import
without. Writes bench/webhooks.json. Loopback only; every wait is bounded."""

import json
import urllib.parse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench_common import catalogd_import, run_facts, run_wrk, start_catalogd
from harness import Processes, api, wait_until_host_idle
from webhook_receiver import Receiver

TOKEN = "bench-token"
TARGET_SECONDS_PER_100K = 20
TARGET_READ_RATIO = 0.8


def call(method, url, body=None):
    status, answer = api(method, url, TOKEN, body, timeout=60)
    if status >= 400:
        raise SystemExit(f"{method} {url} answered {status}")
    return answer


def newest_seq(base):
    head = call("GET", f"{base}/changes?since=0&limit=1")
    return head["last_seq"] + head["pending"]


def subscribe(base, receiver):
    created = call("POST", f"{base}/webhooks", {"url": receiver.url, "entities": ["product"], "since": 0})
    receiver.secret = created["secret"]
    return created["id"]


def delivered(base, webhook):
    return call("GET", f"{base}/webhooks/{webhook}")["delivered_seq"]


def time_delivery(base, receiver, last, limit=600):
    """Seconds from a new subscription since 0 until it has delivered `last`; and the subscription."""
    started = time.monotonic()
    webhook = subscribe(base, receiver)
    while delivered(base, webhook) < last:
        if time.monotonic() - started > limit:
            raise SystemExit(f"the subscription did not deliver {last} changes within {limit} s")
        time.sleep(0.05)
    return time.monotonic() - started, webhook


def main(args, products):
    work = tempfile.mkdtemp(prefix="catalogd-bench-webhooks-")
    database = os.path.join(work, "catalog.sqlite")
    listings = [os.path.join(work, f"products-{seed}.ndjson") for seed in (24, 25)]
    for listing, seed in zip(listings, (24, 25)):
        subprocess.run([sys.executable, "scripts/longtail.py", listing, "--count", str(products), "--seed", str(seed)],
                       check=True, capture_output=True, timeout=1200)
    results = {**run_facts(args, products)}
    with Processes(work) as processes:
        first = catalogd_import(args.bin, database, listings[0], "first import", products)
        process, base = start_catalogd(args, processes, database, "catalogd",
                                       ["--api-token", TOKEN, "--webhook-allow-private", "--log-level", "warning"])
        receiver = Receiver()
        try:
            wait_until_host_idle()
            last = newest_seq(base)
            print(f"{last:,} changes in the history; a subscription since 0 receives them", flush=True)
            seconds, webhook = time_delivery(base, receiver, last)
            with receiver.lock:
                messages = len(receiver.messages)
                unsigned = sum(1 for _, _, signed in receiver.messages if not signed)
            seqs = receiver.seqs()
            results["delivery"] = {
                "changes": last, "seconds": seconds, "changes_per_second": last / seconds, "messages": messages,
                "unsigned": unsigned, "in_order_without_gaps": seqs == list(range(1, last + 1)),
                "seconds_per_100k": seconds * 100_000 / last, "target_seconds_per_100k": TARGET_SECONDS_PER_100K,
            }
            print(f"delivered {last:,} changes in {seconds:.1f} s ({messages} messages; target {TARGET_SECONDS_PER_100K} s per 100,000)",
                  flush=True)
            call("DELETE", f"{base}/webhooks/{webhook}")

            page = f"{base}/products?page_size=20&category=" + urllib.parse.quote(call("GET", f"{base}/categories?page_size=1")["results"][0]["name"])
            urllib.request.urlopen(page, timeout=60).read()
            wait_until_host_idle()
            alone = run_wrk(page, process.pid, args.duration, args.connections)
            webhook = subscribe(base, receiver)
            under = run_wrk(page, process.pid, args.duration, args.connections)
            during = delivered(base, webhook)
            call("DELETE", f"{base}/webhooks/{webhook}")
            results["reads"] = {
                "url": page.replace(base, ""), "alone": alone, "while_delivering": under,
                "changes_delivered_during": during, "ratio": under["rps"] / alone["rps"], "target_ratio": TARGET_READ_RATIO,
            }
            print(f"cached page: {alone['rps']:,.0f} req/s alone, {under['rps']:,.0f} while a subscription delivered "
                  f"{during:,} changes: {under['rps'] / alone['rps']:.2f}x (target >= {TARGET_READ_RATIO})", flush=True)

            wait_until_host_idle()
            plain = catalogd_import(args.bin, database, listings[1], "changed rows, no subscription", products)
            webhook = subscribe(base, receiver)
            busy = catalogd_import(args.bin, database, listings[0], "changed rows, a subscription delivering", products)
            during = delivered(base, webhook)
            call("DELETE", f"{base}/webhooks/{webhook}")
            results["imports"] = {
                "first": first, "alone": plain, "while_delivering": busy, "changes_delivered_during": during,
                "ratio": busy["seconds"] / plain["seconds"],
            }
            print(f"import of {products:,} changed rows: {plain['seconds']:.1f} s alone, {busy['seconds']:.1f} s while a subscription "
                  f"delivered {during:,} changes ({busy['seconds'] / plain['seconds']:.2f}x)", flush=True)
        finally:
            receiver.stop()
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    with open(args.results, "w") as out:
        json.dump(results, out, indent=2)
        out.write("\n")
    print(f"wrote {args.results}")
