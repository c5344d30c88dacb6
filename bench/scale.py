"""Hybrid query latency at 10k and 100k entries for one user (query embedding included).

Entries are synthetic but varied sentences (see ``store_bench.py``). Up to
``--embed-upto`` entries get real all-MiniLM-L6-v2 vectors of their own text;
beyond that, to keep the run short on 2 cores, each further entry's vector is a
real vector of an earlier entry plus Gaussian noise, re-normalised. That changes
nothing about the work a query does (one exact matrix-vector product over every
vector of the user, BM25 over FTS5, fusion), which is what is measured here.
Quality is measured by ``locomo.py``. Each query runs twice, alternately, on two
vaults over the same file: the default configuration (fused, then the learned
reranker) and ``retrieval.rerank = false`` (fused order), so the reranker's cost
is read under the same load.

    .venv/bin/python bench/scale.py [--sizes 10000 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from memvault import Vault, load_config
from memvault.embed.local import LocalEmbedder
from memvault.stores.values import VectorItem
from store_bench import COMMON, make_vocab, percentile, sentence, zipf_pick


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embed-upto", type=int, default=10_000)
    args = parser.parse_args()

    rng = random.Random(11)
    nprng = np.random.default_rng(11)
    vocab = make_vocab(rng)
    embedder = LocalEmbedder()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scale.db"
        config = load_config(environ={}, home=Path(tmp))
        plain = load_config(environ={}, home=Path(tmp), retrieval={"rerank": False})
        writer = Vault(path, config=config, embedder=None)
        real: list[np.ndarray] = []
        stored = 0
        embed_seconds = 0.0
        for size in sorted(args.sizes):
            todo = size - stored
            for start in range(0, todo, 1000):
                texts = [sentence(rng, vocab) for _ in range(min(1000, todo - start))]
                entries = writer.add_many([{"content": t} for t in texts], user_id="bench")
                if len(real) < args.embed_upto:
                    t0 = time.perf_counter()
                    vectors = embedder.embed(texts)
                    embed_seconds += time.perf_counter() - t0
                    real.extend(vectors)
                else:
                    base = np.stack([real[rng.randrange(len(real))] for _ in texts])
                    noisy = base + nprng.normal(0, 0.02, base.shape).astype(np.float32)
                    vectors = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
                writer.store.put_vectors(
                    "bench",
                    embedder.name,
                    [
                        VectorItem(e.id, e.updated_at, v)
                        for e, v in zip(entries, vectors, strict=True)
                    ],
                )
            stored = size
            vault = Vault(path, config=config, embedder=embedder)
            fused = Vault(path, config=plain, embedder=embedder)
            queries = [
                " ".join(
                    zipf_pick(rng, vocab) if rng.random() < 0.6 else rng.choice(COMMON)
                    for _ in range(rng.randint(2, 6))
                )
                for _ in range(args.queries)
            ]
            for q in queries[:10]:  # load the vector cache and warm up
                vault.search(q, user_id="bench", limit=10)
                fused.search(q, user_id="bench", limit=10)
            times: list[float] = []
            plain_times: list[float] = []
            for q in queries:
                for v, into in ((vault, times), (fused, plain_times)):
                    t0 = time.perf_counter()
                    v.search(q, user_id="bench", limit=10)
                    into.append((time.perf_counter() - t0) * 1000)
            vault.close()
            fused.close()
            rows.append(
                (
                    size,
                    statistics.median(times),
                    percentile(times, 0.95),
                    statistics.median(plain_times),
                    percentile(plain_times, 0.95),
                )
            )
        writer.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"hybrid search, limit 10, {args.queries} queries per size, one user, 2 cores")
    print(f"(real embeddings for the first {args.embed_upto:,} entries, {embed_seconds:.0f} s)\n")
    print("| entries | query p50 (ms) | query p95 (ms) | rerank = false: p50 | p95 |")
    print("|---:|---:|---:|---:|---:|")
    for size, p50, p95, f50, f95 in rows:
        print(f"| {size:,} | {p50:.1f} | {p95:.1f} | {f50:.1f} | {f95:.1f} |")
    print(f"\npeak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
