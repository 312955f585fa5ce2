#!/usr/bin/env python3
"""Webhooks through kill -9 and failover, with the real binary: nothing lost, a message sent again keeps its id.

Each check writes products through the API, subscribes a receiver on loopback (scripts/webhook_receiver.py, which
checks every signature) to the history from seq 0, and kills the process sending its deliveries with SIGKILL while a
message is under way (the receiver takes 50 ms to answer each):
- SQLite: one `catalogd serve`, killed and started again on the same file;
- PostgreSQL: the same on a database of the given server;
- a cluster: three replicas on one PostgreSQL database; the one that sends is killed, and another must take over
  within 15 s.
Then every change up to the newest must have reached the receiver, in order the first time it came; the message under
way at the kill must have come again, and nothing else, and every change that came twice must have come in messages of one
webhook-id. Prints one line per check; exits 1 if any fails.

    python3 scripts/webhooks.py --bin "$(swift build --show-bin-path)" [--postgres-url URL]
"""

import argparse
import os
import signal
import sys
import tempfile
import time

from harness import Processes, api, free_port, psql, wait_for, with_database
from webhook_receiver import Receiver

TOKEN = "webhooks-token"
PRODUCTS = 3000
TAKEOVER_LIMIT = 15


def request(method, url, body=None):
    return api(method, url, TOKEN, body)


def serve(processes, binaries, name, database):
    port = free_port()
    processes.start(name, [os.path.join(binaries, "catalogd"), "serve", "--port", str(port), "--database", database,
                           "--films-url", "", "--products-url", "", "--import-interval", "off", "--api-token", TOKEN,
                           "--webhook-allow-private"])
    base = f"http://127.0.0.1:{port}"
    wait_for(base + "/readyz", 60)
    return base


def write_products(base):
    for start in range(0, PRODUCTS, 50):
        batch = [{"serial_code": f"WH-{number}", "name": f"hook {number}", "category": "hooks", "price": 1.5}
                 for number in range(start, start + 50)]
        status, _ = request("POST", f"{base}/products", batch)
        if status not in (200, 201):
            raise SystemExit(f"writing products answered {status}")
    _, head = request("GET", f"{base}/changes?since=0&limit=1")
    return head["last_seq"] + head["pending"]


def subscribe(base, receiver):
    status, created = request("POST", f"{base}/webhooks", {"url": receiver.url, "since": 0})
    if status != 201:
        raise SystemExit(f"POST /webhooks answered {status}")
    receiver.secret = created["secret"]
    return created["id"]


def wait_for_messages(receiver, count, seconds, under_way=False):
    """Waits until the receiver answered `count` messages, and with `under_way` also has one more still arriving (in
    its 50 ms), for at most `seconds`; whether it did."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with receiver.lock:
            if len(receiver.messages) >= count and (not under_way or receiver.arrivals > len(receiver.messages)):
                return True
        time.sleep(0.002)
    return False


def verdict(receiver, last):
    """(ok, detail): every seq up to `last` came, in order the first time, and each repeat in a message of the id it
    first came in."""
    with receiver.lock:
        messages = list(receiver.messages)
    first_seen = []
    ids_of = {}
    for message_id, seqs, _ in messages:
        for seq in seqs:
            if seq not in ids_of:
                first_seen.append(seq)
            ids_of.setdefault(seq, set()).add(message_id)
    came = sum(len(seqs) for _, seqs, _ in messages)
    split = [seq for seq, ids in ids_of.items() if len(ids) > 1]
    unsigned = sum(1 for _, _, signed in messages if not signed)
    # The message under way when the sender was killed reached the receiver, but its answer did not reach the sender:
    # it must come again, and it alone (at most 100 changes).
    ok = first_seen == list(range(1, last + 1)) and 0 < came - len(first_seen) <= 100 and not split and unsigned == 0
    return ok, (f"{len(first_seen)} of {last} changes in {len(messages)} messages, {came - len(first_seen)} came again, "
                f"{len(split)} of them under another id; {unsigned} unsigned")


def check_kill(binaries, database, label):
    with tempfile.TemporaryDirectory() as work, Processes(work, timeout=10) as processes:
        receiver = Receiver(delay=0.05)
        try:
            base = serve(processes, binaries, "first", database)
            last = write_products(base)
            subscribe(base, receiver)
            if not wait_for_messages(receiver, 5, 60, under_way=True):
                return False, "no message under way after 5 within 60 s"
            processes["first"].send_signal(signal.SIGKILL)
            processes["first"].wait()
            before = len(receiver.messages)
            serve(processes, binaries, "second", database)
            if not receiver.wait_for_seq(last, 120):
                return False, f"the changes up to {last} did not all come within 120 s of the restart"
            ok, detail = verdict(receiver, last)
            return ok, f"{label}: killed after {before} messages; {detail}"
        finally:
            receiver.stop()


def says_it_sends(work, name):
    with open(os.path.join(work, f"{name}.log")) as log:
        return "this process sends the webhooks" in log.read()


def check_cluster(binaries, database):
    with tempfile.TemporaryDirectory() as work, Processes(work, timeout=10) as processes:
        receiver = Receiver(delay=0.05)
        try:
            replicas = {name: serve(processes, binaries, name, database) for name in "ABC"}
            last = write_products(replicas["A"])
            subscribe(replicas["B"], receiver)
            if not wait_for_messages(receiver, 5, 60, under_way=True):
                return False, "no message under way after 5 within 60 s"
            sender = next((name for name in "ABC" if says_it_sends(work, name)), None)
            if sender is None:
                return False, "no replica said it sends the webhooks"
            processes[sender].send_signal(signal.SIGKILL)
            killed_at = time.monotonic()
            processes[sender].wait()
            count = len(receiver.messages)
            if not wait_for_messages(receiver, count + 2, 60):
                return False, f"nothing more came within 60 s of killing {sender}"
            took = time.monotonic() - killed_at
            if not receiver.wait_for_seq(last, 120):
                return False, f"the changes up to {last} did not all come"
            ok, detail = verdict(receiver, last)
            taker = [name for name in "ABC" if name != sender and says_it_sends(work, name)]
            ok = ok and took <= TAKEOVER_LIMIT and len(taker) == 1
            return ok, f"cluster: {sender} sent and was killed, {','.join(taker) or 'none'} took over after {took:.1f} s (limit {TAKEOVER_LIMIT}); {detail}"
        finally:
            receiver.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="folder holding catalogd")
    parser.add_argument("--postgres-url", help="a PostgreSQL server for the PostgreSQL and cluster checks (databases are created)")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as work:
        results.append(check_kill(args.bin, os.path.join(work, "catalog.sqlite"), "SQLite"))
    if args.postgres_url:
        for name, check in [("webhooks_kill", lambda url: check_kill(args.bin, url, "PostgreSQL")),
                            ("webhooks_cluster", lambda url: check_cluster(args.bin, url))]:
            psql(args.postgres_url, "-c", f"DROP DATABASE IF EXISTS {name}", "-c", f"CREATE DATABASE {name}")
            try:
                results.append(check(with_database(args.postgres_url, name)))
            finally:
                psql(args.postgres_url, "-c", f"DROP DATABASE IF EXISTS {name}", check=False)
    for ok, detail in results:
        print(f"{'ok  ' if ok else 'FAIL'} {detail}")
    sys.exit(0 if all(ok for ok, _ in results) else 1)


if __name__ == "__main__":
    main()
