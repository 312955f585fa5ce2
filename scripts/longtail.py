#!/usr/bin/env python3
"""A products listing whose words follow a long tail, for measuring search.

    python3 scripts/longtail.py OUT.ndjson [--count 1000000] [--seed 24]

Names and descriptions draw their words from a vocabulary of 60,000 with Zipf-like frequencies, so that some
words are in most rows and most words in a few hundred or fewer; some words carry accents. Brands and categories
are skewed the same way. The fixture feed's identical descriptions would hide the hard cases: a word that every
row holds, a word that almost none does. Deterministic for a given seed; prints what it wrote and, as JSON on its
last line, words to query by how many rows hold them (`common`, `frequent`, `uncommon`, `selective`, `rare`,
`absent`, `prefix`es, and a `wide_prefix` about 6 % of the rows hold).
"""
import argparse
import bisect
import itertools
import json
import random
import sys
import unicodedata

VOCABULARY = 60_000
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pa", "de", "la", "mo", "ri", "ca", "fe", "bu", "go",
             "ha", "ji", "ku", "ny", "po", "qui", "st", "tr", "wa", "xe", "yo", "zu", "é", "ü", "ñ", "ça", "ø"]
# The most frequent words are real ones, so that the queries read as a shop's.
HEAD = ["lamp", "desk", "black", "steel", "cable", "chair", "café", "light", "table", "white", "wood", "glass",
        "cover", "set", "pack", "mini", "pro", "large", "small", "classic", "modern", "crème", "naïve", "écran"]


def vocabulary(rng):
    words = list(HEAD)
    seen = set(words)
    while len(words) < VOCABULARY:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    words = vocabulary(rng)
    cumulative = list(itertools.accumulate(1.0 / (rank + 1) ** 1.05 for rank in range(len(words))))
    total = cumulative[-1]
    # Drawn many at a time: random.choices with cumulative weights bisects for each.
    def draw(k):
        return [words[bisect.bisect_left(cumulative, rng.random() * total)] for _ in range(k)]
    brands = [f"{w.capitalize()} {rng.choice(['Co', 'Works', 'Labs', 'Home'])}" for w in words[5000:5600]]
    brand_weights = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(brands))))
    categories = [f"category-{index}" for index in range(60)]
    holders = {}
    # How many rows hold a word of each three first letters in a field the search reads, counted over every row and
    # folded as catalogd folds (case, and the marks of Latin letters): a typed prefix's matches.
    start_rows = {}
    folded_starts = {}

    def folded_start(word):
        start = folded_starts.get(word)
        if start is None:
            decomposed = unicodedata.normalize("NFKD", word.lower())
            start = folded_starts[word] = "".join(c for c in decomposed if not unicodedata.combining(c))[:3]
        return start
    with open(args.out, "w") as out:
        for index in range(args.count):
            name = draw(rng.randint(2, 5))
            description = draw(rng.randint(12, 30))
            brand = brands[bisect.bisect_left(brand_weights, rng.random() * brand_weights[-1])]
            record = {
                "serial_code": f"LT-{(index * 7919) % args.count:07d}", "name": " ".join(name).capitalize(),
                "description": " ".join(description) + ".", "category": categories[min(int(rng.expovariate(0.12)), 59)],
                "brand": brand, "price": f"{rng.randint(100, 99_999) / 100:.2f}", "stock": rng.choice([0, 0, 1, 3, 12, 40]),
                "updated_at": f"2026-{1 + index % 11:02d}-{1 + index % 28:02d}T10:00:00Z"}
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            if index < 20_000:
                for word in set(name + description):
                    holders[word] = holders.get(word, 0) + 1
            searched = name + description + brand.lower().split() + record["category"].split("-")
            for start in {folded_start(word) for word in searched if len(word) >= 3}:
                start_rows[start] = start_rows.get(start, 0) + 1
    # Frequencies in the first 20,000 rows, scaled: enough to pick words by how common they are.
    scale = args.count / min(args.count, 20_000)
    by_rows = sorted(((count * scale, word) for word, count in holders.items()), reverse=True)
    def near(rows):
        return min(by_rows, key=lambda item: abs(item[0] - rows))[1]
    # Three first letters that about 6 % of the rows hold a word of: a typed prefix of tens of thousands of matches
    # at a million rows, far fewer than the common word's.
    wide_start = min(start_rows.items(), key=lambda item: (abs(item[1] - args.count * 0.06), item[0]), default=None)
    queries = {
        "common": [by_rows[0][1], by_rows[1][1], f"{by_rows[0][1]} {by_rows[2][1]}"],
        "selective": [near(args.count / 2000), near(args.count / 5000)],
        # Between the selective words and those the frequent words' sets count (5 % of the rows and more).
        "uncommon": [near(args.count / 400), near(args.count / 100)],
        "frequent": [near(args.count * 0.03)],
        "rare": [near(args.count / 100_000) if args.count >= 100_000 else by_rows[-1][1]],
        "prefix": [by_rows[0][1][:3], near(args.count / 2000)[:4]],
        "wide_prefix": [wide_start[0]] if wide_start else [],
        "absent": ["qqqzzz"],
    }
    print(f"longtail: wrote {args.count} products to {args.out}", file=sys.stderr)
    print(json.dumps(queries, ensure_ascii=False))


if __name__ == "__main__":
    main()
