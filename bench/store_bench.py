"""Store benchmark: bulk-add throughput and keyword search latency at 1k/10k/100k entries.

Keyword channel only (no embeddings). One user holds every entry, which is the
worst case for a per-user search. Text is synthetic but varied: a Zipf-like mix
of common English words and a large made-up vocabulary, so both frequent and
rare terms occur. Prints a Markdown table.

    .venv/bin/python bench/store_bench.py [--sizes 1000 10000 100000] [--queries 300]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

from memvault import Vault

COMMON = (
    "project meeting deploy service database cache user team release "
    "bug feature review design budget customer report weekly plan "
    "travel dinner family doctor gym music book movie coffee "
    "python golang rust kubernetes postgres invoice contract deadline office "
).split()


def make_vocab(rng: random.Random, size: int = 20000) -> list[str]:
    letters = "bcdfghjklmnpqrstvwxz"
    vowels = "aeiou"
    words = set()
    while len(words) < size:
        n = rng.randint(2, 4)
        words.add("".join(rng.choice(letters) + rng.choice(vowels) for _ in range(n)))
    return sorted(words)


def zipf_pick(rng: random.Random, vocab: list[str]) -> str:
    # Rank r with probability ~ 1/r: frequent words recur, the tail stays rare.
    r = int(len(vocab) ** rng.random())
    return vocab[min(r, len(vocab) - 1)]


def sentence(rng: random.Random, vocab: list[str]) -> str:
    words = [
        rng.choice(COMMON) if rng.random() < 0.3 else zipf_pick(rng, vocab)
        for _ in range(rng.randint(6, 24))
    ]
    return " ".join(words).capitalize() + "."


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(sizes: list[int], n_queries: int, batch: int) -> None:
    rng = random.Random(7)
    vocab = make_vocab(rng)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        vault = Vault(Path(tmp) / "bench.db", embedder=None)  # keyword channel only
        stored = 0
        add_seconds = 0.0
        for size in sizes:
            todo = size - stored
            texts = [sentence(rng, vocab) for _ in range(todo)]
            start = time.perf_counter()
            for i in range(0, todo, batch):
                vault.add_many([{"content": t} for t in texts[i : i + batch]], user_id="bench")
            add_seconds += time.perf_counter() - start
            stored = size
            adds_per_s = todo / (time.perf_counter() - start)
            queries = [
                " ".join(
                    zipf_pick(rng, vocab) if rng.random() < 0.7 else rng.choice(COMMON)
                    for _ in range(rng.randint(1, 4))
                )
                for _ in range(n_queries)
            ]
            for q in queries[:20]:  # warm the page cache
                vault.search(q, user_id="bench", limit=10)
            times = []
            for q in queries:
                t0 = time.perf_counter()
                vault.search(q, user_id="bench", limit=10)
                times.append((time.perf_counter() - t0) * 1000)
            rows.append(
                (size, adds_per_s, statistics.median(times), percentile(times, 0.95), peak_rss_mb())
            )
        vault.close()
    print(f"batch size {batch}, {n_queries} queries per size, limit 10, one user\n")
    print("| entries | bulk add (entries/s) | search p50 (ms) | search p95 (ms) | peak RSS (MB) |")
    print("|---:|---:|---:|---:|---:|")
    for size, rate, p50, p95, rss in rows:
        print(f"| {size:,} | {rate:,.0f} | {p50:.2f} | {p95:.2f} | {rss:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    run(sorted(args.sizes), args.queries, args.batch)


if __name__ == "__main__":
    main()
