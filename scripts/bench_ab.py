"""Compares catalogd binaries on the same store, minutes apart being too noisy on a shared host: each binary serves
the store at once, and each request of scripts/bench_search.py is sent to every one in turn (the order alternating
by round); prints each request's median per binary.

    python3 scripts/bench_ab.py --words WORDS.json --rounds 21 BINARY@STORE BINARY@STORE ...

WORDS.json is the "words" object of a bench/search-results-*.json (the listing the store was imported from); a
STORE is a SQLite file or a postgres:// URL. Loopback only; every server started is stopped."""
import argparse
import contextlib
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from bench_search import Served, catalogd_requests  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", required=True)
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--only", help="labels to measure, separated by |")
    parser.add_argument("served", nargs="+", metavar="BINARY@STORE")
    args = parser.parse_args()
    with open(args.words, encoding="utf-8") as f:
        words = json.load(f)
    words = words.get("words", words)
    only = set(args.only.split("|")) if args.only else None
    requests = [r for r in catalogd_requests(words) if only is None or r[0] in only]
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(Served(*pair.split("@", 1))) for pair in args.served]
        names = [os.path.basename(pair.split("@", 1)[0]) + ("/pg" if "postgres" in pair else "/sqlite") for pair in args.served]
        print("request".ljust(45) + "".join(name[-16:].rjust(17) for name in names))
        for label, _, paths in requests:
            times = [[] for _ in servers]
            for round_index in range(args.rounds):
                path = paths[round_index % len(paths)]
                order = list(range(len(servers)))
                if round_index % 2:
                    order.reverse()
                for index in order:
                    elapsed, _ = servers[index].ms(path + ("&" if "?" in path else "?") + f"page_size={20 + round_index}")
                    times[index].append(elapsed)
            print(label.ljust(45) + "".join(f"{statistics.median(t):17.2f}" for t in times), flush=True)


if __name__ == "__main__":
    main()
